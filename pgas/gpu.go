package pgas

import (
	"fmt"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/driver"
)

// GPU is a PE's GPU, for programs that launch their own kernels on the
// symmetric heap (examples/jacobi does): driver.GPU, the contract the
// cuda and nvshmem backends implement. [PE.GPU] returns it. Kernels
// written against kernels/symchan.cuh take [GPU.HeapDescriptor] as their
// first argument.
type GPU = driver.GPU

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
	g, err := gt.GPU(p.id)
	if err != nil {
		return nil, err
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
