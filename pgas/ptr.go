package pgas

import (
	"slices"
	"unsafe"
)

// Ptr returns PE pe's copy of s as a slice the caller loads from and stores
// to directly (shmem_ptr, nvshmem_ptr), or nil when this process cannot
// address that copy as host memory: every PE's copy on the host backend,
// none on the GPU backends, whose partitions are device memory (a kernel
// gets a peer GPU's address from GPU.Addr instead).
//
// Go's form returns a slice rather than an address, so that its length
// bounds the access. Loads and stores through it are plain memory
// accesses: they are not atomic, not ordered by Fence or Quiet, and do not
// wake a PE waiting on the words they change; signal such a PE with an
// atomic or SignalOp. The slice is valid while s is (see Local).
func Ptr[T any](p *PE, s Sym[T], pe int) ([]T, error) {
	if err := p.checkRMA(s.rec, pe); err != nil {
		return nil, err
	}
	if !slices.Contains(p.w.tr.LocalPEs(), pe) {
		return nil, nil
	}
	return view(p.w.tr.Heap(pe), s), nil
}

// view is s in partition h as a slice: nil when h is (the partition is
// not host memory of this process).
func view[T any](h []byte, s Sym[T]) []T {
	switch {
	case h == nil:
		return nil
	case s.n == 0:
		return []T{}
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&h[s.off])), s.n)
}

// PEAccessible reports whether this PE's RMA and atomic routines reach PE
// pe (shmem_pe_accessible): true for every PE of a running world on every
// backend (a backend that cannot reach all its PEs fails to start), false
// for an id outside it or once the world has ended.
func (p *PE) PEAccessible(pe int) bool {
	return p.check() == nil && p.checkPE(pe) == nil
}

// AddrAccessible reports whether s can be accessed on PE pe
// (shmem_addr_accessible): s is a live allocation of p's world and pe one
// of its PEs. Go's form takes a Sym, as every routine does; an address that
// is not symmetric cannot be expressed.
func AddrAccessible[T any](p *PE, s Sym[T], pe int) bool {
	return p.rmaOK(s.rec, pe)
}
