//go:build unix

package host

import (
	"fmt"
	"syscall"
)

// heapOutsideGo: partitions are mapped outside the Go heap.
const heapOutsideGo = true

// mapHeap reserves a zeroed partition outside the Go heap: the garbage
// collector neither scans nor counts it, and pages never touched cost no
// memory (MAP_NORESERVE).
func mapHeap(size int64) ([]byte, error) {
	if size > int64(^uint(0)>>1) {
		return nil, fmt.Errorf("partition of %d bytes does not fit the address space", size)
	}
	b, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|mapNoReserve)
	if err != nil {
		return nil, fmt.Errorf("mmap of a %d-byte partition: %w", size, err)
	}
	adviseHuge(b)
	return b, nil
}

// releaseHeap gives a partition's pages back to the system and leaves it
// mapped, reading as zeros: a call of the world still in flight when the
// world closed (a kept handle's method on another goroutine) touches
// harmless memory instead of faulting.
func releaseHeap(b []byte) error { return syscall.Madvise(b, syscall.MADV_DONTNEED) }

// unmapHeap unmaps a partition of mapHeap. Slices of it (pgas.Local)
// fault when used afterwards.
func unmapHeap(b []byte) error { return syscall.Munmap(b) }
