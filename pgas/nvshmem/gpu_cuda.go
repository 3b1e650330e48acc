//go:build cuda

package nvshmem

import (
	"fmt"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// GPU is a PE's GPU on the nvshmem backend, for programs that launch their
// own kernels on the symmetric heap (examples/jacobi does). Kernels reach
// other PEs' partitions directly only where NVSHMEM maps them (nvshmem_ptr:
// GPUs of one node joined by NVLink or PCIe); symchan's PTX kernels cannot
// call NVSHMEM's device library, which must be linked into the kernel at
// build time.
type GPU struct{ t *transport }

// On returns pe's GPU, or an error when pe's world is not on the nvshmem
// backend.
func On(pe *pgas.PE) (*GPU, error) {
	t, ok := pe.World().Transport().(*transport)
	if !ok {
		return nil, fmt.Errorf("nvshmem: PE %d runs on the %s backend, not nvshmem", pe.ID(), pe.World().Config().Backend)
	}
	return &GPU{t}, nil
}

// Context is the GPU's primary context (NVSHMEM's).
func (x *GPU) Context() *device.Context { return proc.ctx }

// Stream is the stream of the PE's routines.
func (x *GPU) Stream() *device.Stream { return x.t.st }

// Module is symchan.cu loaded on this GPU.
func (x *GPU) Module() *device.Module { return proc.mod }

// HeapDescriptor is the device address of this PE's struct symchan_heap;
// the base of a PE this GPU cannot address is 0.
func (x *GPU) HeapDescriptor() device.Ptr { return x.t.desc }

// Addr is the device address of byte off of pe's partition as this GPU
// sees it, or 0 where it cannot address it.
func (x *GPU) Addr(pe int, off int64) device.Ptr {
	if x.t.peers[pe] == 0 {
		return 0
	}
	return x.t.peers[pe] + device.Ptr(off)
}

// Mapped reports whether this GPU can address every PE's partition (the
// kernels of symchan.cuh need that for the PEs they touch).
func (x *GPU) Mapped() bool {
	for _, p := range x.t.peers {
		if p == 0 {
			return false
		}
	}
	return true
}
