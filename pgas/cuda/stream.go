//go:build cuda

package cuda

import (
	"errors"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/internal/gpuop"
)

// NewStream makes a CUDA stream of PE me's GPU for pgas.Stream
// (driver.StreamTransport).
func (t *transport) NewStream(me int) (driver.Stream, error) {
	g := t.gpus[me]
	st, err := g.ctx.NewStream()
	if err != nil {
		return nil, err
	}
	return &stream{t: t, g: g, st: st}, nil
}

// A stream is a driver.Stream on the cuda backend: copies go to the copy
// engines (peer to peer; the copy kernel while captured), a small
// put-with-signal to the put-with-signal kernel, signals are stream
// writes or the atomic kernel, waits the wait kernel (which also ends
// when the world aborts); the kernels are its GPU's (g.k).
type stream struct {
	t  *transport
	g  *gpu
	st *device.Stream
}

func (s *stream) Copy(dstPE int, dstOff int64, srcPE int, srcOff int64, n int64) error {
	return gpuop.CopyOnStream(s.st, s.g.k.Copy, s.t.addr(dstPE, dstOff), s.t.gpus[dstPE].ctx, s.t.addr(srcPE, srcOff), s.t.gpus[srcPE].ctx, n)
}

// PutSignal: the stream starts the signal once the copy is complete.
func (s *stream) PutSignal(pe int, off, srcOff, n, sigOff int64, sig uint64, op driver.SigOp) error {
	return gpuop.PutSignalOnStream(s.st, s.g.k, s.t.addr(pe, off), s.t.gpus[pe].ctx, s.t.addr(s.g.id, srcOff), s.g.ctx, n,
		s.t.addr(pe, sigOff), sig, op)
}

func (s *stream) Wait(off int64, cmp driver.Cmp, v uint64) error {
	return gpuop.WaitOnStream(s.st, s.g.k.Wait, s.t.addr(s.g.id, off), cmp, v, s.t.abort.Ptr())
}

func (s *stream) Atomic(pe int, off int64, k driver.Kind, op driver.AtomicOp, operand, cond uint64, resultOff int64) error {
	var result device.Ptr
	if resultOff >= 0 {
		result = s.t.addr(s.g.id, resultOff)
	}
	return s.st.Launch(s.g.k.Atomic, device.D1(1), device.D1(1), 0, uint64(s.t.addr(pe, off)), uint64(k)|uint64(op)<<8, operand, cond, uint64(result))
}

// Quiet: copies, stream writes and kernels are complete when the stream
// runs past them.
func (s *stream) Quiet() error { return nil }

func (s *stream) Sync() error            { return s.st.Sync() }
func (s *stream) Device() *device.Stream { return s.st }
func (s *stream) Close() error {
	return errors.Join(s.st.Sync(), s.st.Destroy())
}
