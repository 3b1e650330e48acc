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

// unmapHeap releases a partition of mapHeap. Slices of it (pgas.Local)
// fault when used afterwards.
func unmapHeap(b []byte) error { return syscall.Munmap(b) }
