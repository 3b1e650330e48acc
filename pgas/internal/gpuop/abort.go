//go:build cuda

package gpuop

import (
	"sync/atomic"
	"unsafe"

	"github.com/symchan/symchan/device"
)

// An AbortWord is a world's abort word: a uint64 of mapped pinned host
// memory that every wait of the runtime on the device watches beside its
// own word (the heap descriptor's abort field, symchan_aborted; the wait
// kernel of streams). The host sets it once, when a PE fails, when the
// PEs' context ends or before the world closes; from then on those waits
// end within a few hundred microseconds and the kernels and streams
// behind them drain, so that no GPU work of a failed world outlives it.
// A world has its own word: the next world in the process starts clear.
type AbortWord struct {
	mem *device.HostMem
	set atomic.Bool
}

// NewAbortWord allocates a clear abort word, mapped into every context
// (device.Context.HostAlloc's memory is portable).
func NewAbortWord(ctx *device.Context) (*AbortWord, error) {
	mem, err := ctx.HostAlloc(8)
	if err != nil {
		return nil, err
	}
	return &AbortWord{mem: mem}, nil
}

// Ptr is the word's device address, for descriptors and kernels; 0 for a
// nil word.
func (a *AbortWord) Ptr() device.Ptr {
	if a == nil {
		return 0
	}
	return a.mem.Ptr()
}

// Set sets the word: every wait watching it ends. Safe from any
// goroutine, any number of times.
func (a *AbortWord) Set() {
	if a == nil || a.set.Swap(true) {
		return
	}
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&a.mem.Bytes()[0])), 1)
}

// Free sets the word (a kernel still watching it must not wait on freed
// memory's old contents) and releases it; the GPU work that watched it
// must have ended.
func (a *AbortWord) Free() error {
	if a == nil {
		return nil
	}
	a.Set()
	return a.mem.Free()
}
