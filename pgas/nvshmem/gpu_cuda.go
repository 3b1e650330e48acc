//go:build cuda

package nvshmem

import (
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/internal/gpuop"
)

// gpuAPI is a PE's GPU as pgas.PE.GPU returns it (pgas.GPU). Kernels
// reach other PEs' partitions directly only where NVSHMEM maps them
// (nvshmem_ptr: GPUs of one node joined by NVLink or PCIe; Addr is 0
// elsewhere); symchan.cuh's routines reach the others through NVSHMEM's
// device library, which the backend links into symchan's kernels.
type gpuAPI struct{ t *transport }

// GPU implements driver.GPUTransport.
func (t *transport) GPU(int) (driver.GPU, error) { return &gpuAPI{t}, nil }

// Context is the GPU's primary context (NVSHMEM's).
func (x *gpuAPI) Context() *device.Context { return proc.ctx }

// Stream is the stream of the PE's routines.
func (x *gpuAPI) Stream() *device.Stream { return x.t.st }

// Module is symchan.cu loaded on this GPU (the nvshmem variant, linked
// with NVSHMEM's device library).
func (x *gpuAPI) Module() *device.Module { return proc.mod }

// Load links p's SYMCHAN_NVSHMEM variant with NVSHMEM's device library into
// the GPU's primary context and initialises NVSHMEM's state in it, once
// per process.
func (x *gpuAPI) Load(p kernels.Program) (*device.Module, error) {
	return proc.progs.Load(p.Key(), func() (*device.Module, error) {
		ptx, err := p.Code(true)
		if err != nil {
			return nil, err
		}
		return linkWithNVSHMEM(p, ptx)
	})
}

// HeapDescriptor is the device address of this PE's struct symchan_heap;
// the base of a PE this GPU cannot address is 0.
func (x *gpuAPI) HeapDescriptor() device.Ptr { return x.t.desc }

// Addr is the device address of byte off of pe's partition as this GPU
// sees it, or 0 where it cannot address it.
func (x *gpuAPI) Addr(pe int, off int64) device.Ptr {
	if x.t.peers[pe] == 0 {
		return 0
	}
	return x.t.peers[pe] + device.Ptr(off)
}

// PutSignalOnStream is nvshmemx_putmem_signal_on_stream on s. The PE's own
// routines queued on its stream are ordered before it only when the
// caller's work on s already follows them (as with any NVSHMEM on-stream
// call on another stream).
func (x *gpuAPI) PutSignalOnStream(s *device.Stream, pe int, off int64, src device.Ptr, n int64, sigOff int64, sig uint64, op pgas.SigOp) error {
	call(func() {
		nvPutSignal(x.t.addr(off), uintptr(src), n, x.t.addr(sigOff), sig, op, pe, s.Handle())
	})
	return nil
}

// SignalWaitOnStream waits on s with the wait kernel on the PE's own
// word, which also ends when the world aborts, as the cuda backend does.
func (x *gpuAPI) SignalWaitOnStream(s *device.Stream, sigOff int64, v uint64) error {
	return gpuop.WaitOnStream(s, x.t.wait, x.t.heap+device.Ptr(sigOff), driver.CmpGE, v, x.t.abort.Ptr())
}
