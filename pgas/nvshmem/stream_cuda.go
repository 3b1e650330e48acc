//go:build cuda

package nvshmem

import (
	"errors"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/internal/gpuop"
)

// #include <stdint.h>
// #include <stddef.h>
// void sc_put(uintptr_t dst, uintptr_t src, size_t n, int pe, void *st);
// void sc_get(uintptr_t dst, uintptr_t src, size_t n, int pe, void *st);
// void sc_put_signal(uintptr_t dst, uintptr_t src, size_t n, uintptr_t sig, uint64_t v, int op, int pe, void *st);
// void sc_signal_op(uintptr_t sig, uint64_t v, int op, int pe, void *st);
// void sc_quiet_on_stream(void *st);

// NewStream makes a CUDA stream of this process's GPU for pgas.Stream
// (driver.StreamTransport).
func (t *transport) NewStream(me int) (driver.Stream, error) {
	k, err := gpuop.LoadStreamKernels(proc.mod)
	if err != nil {
		return nil, err
	}
	st, err := proc.ctx.NewStream()
	if err != nil {
		return nil, err
	}
	scratch, err := proc.ctx.Alloc(8)
	if err != nil {
		return nil, errors.Join(err, st.Destroy())
	}
	return &stream{t: t, st: st, k: k, scratch: scratch}, nil
}

// A stream is a driver.Stream on the nvshmem backend: a mapped peer's
// memory is reached as on the cuda backend (copy engines, stream writes,
// the atomic kernel), an unmapped one's through NVSHMEM's on-stream
// routines and the remote atomic kernel.
type stream struct {
	t       *transport
	st      *device.Stream
	k       gpuop.StreamKernels
	scratch device.Ptr // where a remote atomic's unwanted result goes
	// unquiet: a put to an unmapped PE went since the last quiet, so
	// the next signal alone is preceded by one (a signal must not
	// overtake the data before it, as in a barrier).
	unquiet bool
}

// mapped is pe's partition as this GPU addresses it at off, or 0.
func (s *stream) mapped(pe int, off int64) device.Ptr {
	if s.t.peers[pe] == 0 {
		return 0
	}
	return s.t.peers[pe] + device.Ptr(off)
}

func (s *stream) Copy(dstPE int, dstOff int64, srcPE int, srcOff int64, n int64) error {
	dst, src := s.mapped(dstPE, dstOff), s.mapped(srcPE, srcOff)
	if dst != 0 && src != 0 {
		return gpuop.CopyOnStream(s.st, s.k.Copy, dst, proc.ctx, src, proc.ctx, n)
	}
	if srcPE == s.t.me {
		s.unquiet = true
		call(func() {
			nvPut(s.t.addr(dstOff), s.t.addr(srcOff), int64(n), dstPE, s.st.Handle())
		})
		return nil
	}
	call(func() {
		nvGet(s.t.addr(dstOff), s.t.addr(srcOff), int64(n), srcPE, s.st.Handle())
	})
	return nil
}

func (s *stream) PutSignal(pe int, off, srcOff, n, sigOff int64, sig uint64, op driver.SigOp) error {
	if sigAddr := s.mapped(pe, sigOff); sigAddr != 0 {
		if dst, src := s.mapped(pe, off), s.mapped(s.t.me, srcOff); n > 0 && n <= gpuop.SmallPutSignal && dst != 0 && src != 0 {
			s.quiet()
			return gpuop.PutSignalOnStream(s.st, s.k, dst, proc.ctx, src, proc.ctx, n, sigAddr, sig, op)
		}
		if n > 0 {
			if err := s.Copy(pe, off, s.t.me, srcOff, n); err != nil {
				return err
			}
		}
		s.quiet()
		return gpuop.Signal(s.st, s.k.Atomic, sigAddr, sig, op)
	}
	if n > 0 {
		call(func() {
			nvPutSignal(s.t.addr(off), s.t.addr(srcOff), int64(n), s.t.addr(sigOff), uint64(sig), op, pe, s.st.Handle())
		})
		return nil
	}
	s.quiet()
	call(func() {
		nvSignalOp(s.t.addr(sigOff), uint64(sig), op, pe, s.st.Handle())
	})
	return nil
}

// Quiet is driver.Stream's: quiet.
func (s *stream) Quiet() error {
	s.quiet()
	return nil
}

// quiet enqueues nvshmemx_quiet_on_stream if a put to an unmapped PE is
// outstanding.
func (s *stream) quiet() {
	if s.unquiet {
		s.unquiet = false
		call(func() { nvQuietOnStream(s.st.Handle()) })
	}
}

func (s *stream) Wait(off int64, cmp driver.Cmp, v uint64) error {
	return gpuop.WaitOnStream(s.st, s.k.Wait, s.t.heap+device.Ptr(off), cmp, v, s.t.abort.Ptr())
}

func (s *stream) Atomic(pe int, off int64, k driver.Kind, op driver.AtomicOp, operand, cond uint64, resultOff int64) error {
	result := s.scratch
	if resultOff >= 0 {
		result = s.t.heap + device.Ptr(resultOff)
	}
	one := device.D1(1)
	if addr := s.mapped(pe, off); addr != 0 {
		return s.st.Launch(s.k.Atomic, one, one, 0, uint64(addr), uint64(k)|uint64(op)<<8, operand, cond, uint64(result))
	}
	return s.st.Launch(proc.remoteAtomic, one, one, 0, uint64(s.t.addr(off)), uint64(k), uint64(op), operand, cond, uint64(pe), uint64(result))
}

func (s *stream) Sync() error            { return s.st.Sync() }
func (s *stream) Device() *device.Stream { return s.st }
func (s *stream) Close() error {
	return errors.Join(s.st.Sync(), proc.ctx.Free(s.scratch), s.st.Destroy())
}
