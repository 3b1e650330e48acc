//go:build race

package racesync

import "sync/atomic"

var word uint64

// Release marks what the calling goroutine did so far as published by its
// next signal update.
func Release() { atomic.AddUint64(&word, 1) }

// Acquire orders the calling goroutine after every earlier Release.
func Acquire() { atomic.LoadUint64(&word) }
