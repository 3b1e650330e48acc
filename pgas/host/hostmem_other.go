//go:build !unix

package host

import "unsafe"

// heapOutsideGo: partitions are Go memory here.
const heapOutsideGo = false

// mapHeap allocates a partition in the Go heap where mmap is not at hand.
func mapHeap(size int64) ([]byte, error) {
	words := make([]uint64, size/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), size), nil
}

func releaseHeap([]byte) error { return nil }

func unmapHeap([]byte) error { return nil }
