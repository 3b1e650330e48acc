package pgas

import (
	"fmt"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas/driver"
)

// GPU is a PE's GPU, for programs that launch their own kernels on the
// symmetric heap (examples/jacobi does). The cuda and nvshmem backends
// implement it; [PE.GPU] returns it. Kernels written against
// kernels/symchan.cuh take [GPU.HeapDescriptor] as their first argument.
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

// GPU returns the PE's GPU, or an error wrapping ErrNotGPU when its
// backend's PEs are not GPUs (the host backend).
func (p *PE) GPU() (GPU, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	gt, ok := p.w.tr.(driver.GPUTransport)
	if !ok {
		return nil, fmt.Errorf("%w: PE %d runs on the %s backend", ErrNotGPU, p.id, p.w.cfg.Backend)
	}
	v, err := gt.GPU(p.id)
	if err != nil {
		return nil, err
	}
	g, ok := v.(GPU)
	if !ok {
		return nil, fmt.Errorf("pgas: the %s backend's GPU (%T) does not implement pgas.GPU", p.w.cfg.Backend, v)
	}
	return checkedGPU{g, p}, nil
}

// checkedGPU checks the arguments of the routines a backend's GPU
// performs, as pgas checks those of its own routines: PEs in range, bytes
// inside the heap, signal words aligned.
type checkedGPU struct {
	GPU
	p *PE
}

func (g checkedGPU) Addr(pe int, off int64) device.Ptr {
	if uint(pe) >= uint(g.p.w.n) || off < 0 || off >= g.p.w.span {
		return 0
	}
	return g.GPU.Addr(pe, off)
}

func (g checkedGPU) PutSignalOnStream(s *device.Stream, pe int, off int64, src device.Ptr, n int64, sigOff int64, sig uint64, op SigOp) error {
	if err := g.p.checkPE(pe); err != nil {
		return err
	}
	if s == nil || src == 0 || !op.Valid() {
		return fmt.Errorf("%w: PutSignalOnStream: stream %p, source %#x, %v", ErrBadArg, s, src, op)
	}
	if err := g.checkBytes(off, n); err != nil {
		return err
	}
	if err := g.checkWord(sigOff); err != nil {
		return err
	}
	if off < sigOff+8 && sigOff < off+n {
		return fmt.Errorf("%w: signal word at %d inside the data [%d, %d)", ErrBadArg, sigOff, off, off+n)
	}
	return g.GPU.PutSignalOnStream(s, pe, off, src, n, sigOff, sig, op)
}

func (g checkedGPU) SignalWaitOnStream(s *device.Stream, sigOff int64, v uint64) error {
	if s == nil {
		return fmt.Errorf("%w: SignalWaitOnStream on a nil stream", ErrBadArg)
	}
	if err := g.checkWord(sigOff); err != nil {
		return err
	}
	return g.GPU.SignalWaitOnStream(s, sigOff, v)
}

// checkBytes checks that [off, off+n) is a non-empty range of the heap
// (or of the registered buffers past it).
func (g checkedGPU) checkBytes(off, n int64) error {
	if h := g.p.w.span; n <= 0 || off < 0 || off > h-n {
		return fmt.Errorf("%w: %d bytes at offset %d of a %d-byte partition", ErrBadSize, n, off, h)
	}
	return nil
}

// checkWord checks that a signal word at off is aligned and in the heap.
func (g checkedGPU) checkWord(off int64) error {
	if off%8 != 0 {
		return fmt.Errorf("%w: signal word at offset %d is not 8-byte aligned", ErrBadArg, off)
	}
	return g.checkBytes(off, 8)
}
