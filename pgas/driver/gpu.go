package driver

import (
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
)

// GPU is a PE's GPU, for programs that launch their own kernels on the
// symmetric heap (examples/jacobi does). The cuda and nvshmem backends
// implement it (GPUTransport); pgas.PE.GPU returns it, its arguments
// checked. Kernels written against kernels/symchan.cuh take
// GPU.HeapDescriptor as their first argument.
//
// A GPU is used through the device package, which works only in binaries
// built with -tags cuda; this interface builds without it, so that
// programs compile (and fall back to the host backend) everywhere. A
// binary built with the tag links the CUDA driver API and needs an NVIDIA
// driver wherever it runs (see package device); without the tag nothing
// of CUDA is linked.
type GPU interface {
	// Context is the GPU's CUDA context; device.Context.Do runs code with
	// it current.
	Context() *device.Context
	// Stream is the stream of the PE's own routines. The PE's routines
	// issued before Stream is called are ordered before the work queued on
	// it afterwards, and routines issued later run after the work queued on
	// it by then.
	Stream() *device.Stream
	// Module is the runtime's kernels (kernels.Runtime) loaded on this
	// GPU: the backend's own.
	Module() *device.Module
	// Load loads p, CUDA C that includes kernels/symchan.cuh, on this
	// GPU and returns its module: p's PTX on the cuda backend, and on the
	// nvshmem backend its SYMCHAN_NVSHMEM variant linked with NVSHMEM's
	// device library, so that its routines reach PEs this GPU cannot map.
	// A program loads once per GPU context: later calls, from any PE that
	// shares the context, return the same module, which lives as long as
	// the context (the world, on the cuda backend; the process, on the
	// nvshmem backend).
	Load(p kernels.Program) (*device.Module, error)
	// HeapDescriptor is the device address of this PE's struct
	// symchan_heap (kernels/symchan.cuh).
	HeapDescriptor() device.Ptr
	// Addr is the device address of byte off of pe's partition as this
	// GPU sees it, or 0 where it cannot address it (nvshmem: PEs that
	// NVSHMEM does not map, nvshmem_ptr).
	Addr(pe int, off int64) device.Ptr
	// PutSignalOnStream enqueues on s, a stream of this GPU, a
	// put-with-signal from device memory src to pe's partition: n bytes
	// to off, then the signal word at sigOff updated with op and sig, both
	// after s's earlier work (nvshmemx_putmem_signal_on_stream).
	PutSignalOnStream(s *device.Stream, pe int, off int64, src device.Ptr, n int64, sigOff int64, sig uint64, op SigOp) error
	// SignalWaitOnStream makes s's later work wait until this PE's signal
	// word at sigOff is ≥ v (nvshmemx_signal_wait_until_on_stream with
	// NVSHMEM_CMP_GE).
	SignalWaitOnStream(s *device.Stream, sigOff int64, v uint64) error
}

// GPUTransport is implemented by transports whose PEs are GPUs. GPU returns
// local PE pe's GPU, which pgas.PE.GPU hands to programs that launch their
// own kernels; pgas checks the arguments of its routines (PEs, offsets,
// sizes, alignment) first.
type GPUTransport interface {
	GPU(pe int) (GPU, error)
}
