package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// The routines with a symmetric source: PutSignalSym (and NBI) deliver
// the data before the signal a waiting PE sees; PutSymNBI and GetSymNBI
// are complete after Quiet; IPutSym and IGetSym move strided elements
// between symmetric arrays; bad arguments are errors, as for the slice
// forms.
func (ck *kit) testSymmetricSources(t *testing.T) {
	const n = 48
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		me, other := pe.ID(), 1-pe.ID()
		src := must(pgas.AllocZeroed[int64](ctx, pe, n))
		dst := must(pgas.AllocZeroed[int64](ctx, pe, 3*n))
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 2))
		check(pgas.Put(pe, src, seq(n, func(i int) int64 { return int64(me*1000 + i) }), me))
		check(pe.Barrier(ctx))

		// Put-with-signal from a symmetric source, blocking then NBI:
		// the other PE waits for each signal, then reads the data.
		check(pgas.PutSignalSym(pe, dst.Slice(0, n), src, sig.Index(0), 1, pgas.SignalSet, other))
		check(pgas.PutSignalSymNBI(pe, dst.Slice(n, 2*n), src, sig.Index(1), 5, pgas.SignalAdd, other))
		for i, want := range []uint64{1, 5} {
			if _, err := pgas.SignalWaitUntil(ctx, pe, sig.Index(i), pgas.CmpEQ, want); err != nil {
				return err
			}
		}
		got := make([]int64, 2*n)
		check(pgas.Get(pe, got, dst.Slice(0, 2*n), me))
		for i, v := range got {
			if want := int64(other*1000 + i%n); v != want {
				return fmt.Errorf("after the signals, dst[%d] = %d, want %d (PE %d's src)", i, v, want, other)
			}
		}
		check(pe.Barrier(ctx))

		// NBI put and get, complete after Quiet.
		check(pgas.PutSymNBI(pe, dst.Slice(2*n, 3*n), src, other))
		back := must(pgas.AllocZeroed[int64](ctx, pe, n))
		check(pgas.GetSymNBI(pe, back, src, other))
		check(pe.Quiet())
		check(pgas.Get(pe, got[:n], back, me))
		for i, v := range got[:n] {
			if want := int64(other*1000 + i); v != want {
				return fmt.Errorf("GetSymNBI: back[%d] = %d, want %d", i, v, want)
			}
		}
		check(pe.Barrier(ctx))
		check(pgas.Get(pe, got[:n], dst.Slice(2*n, 3*n), me))
		for i, v := range got[:n] {
			if want := int64(other*1000 + i); v != want {
				return fmt.Errorf("PutSymNBI: dst[%d] = %d, want %d", 2*n+i, v, want)
			}
		}
		check(pe.Barrier(ctx))

		// Strided: every third element of src, 16 of them, to every
		// second element of the other's dst; then back, strided.
		check(pgas.Put(pe, dst, make([]int64, 3*n), me))
		check(pe.Barrier(ctx))
		check(pgas.IPutSym(pe, dst, src, 2, 3, 16, other))
		check(pe.Barrier(ctx))
		check(pgas.Get(pe, got[:32], dst.Slice(0, 32), me))
		for i := range 16 {
			if got[2*i] != int64(other*1000+3*i) || got[2*i+1] != 0 {
				return fmt.Errorf("IPutSym: dst[%d], dst[%d] = %d, %d, want %d, 0", 2*i, 2*i+1, got[2*i], got[2*i+1], other*1000+3*i)
			}
		}
		check(pgas.IGetSym(pe, back, src, 3, 1, 16, other)) // other's src[0..16) → my back[0], back[3], …
		check(pgas.Get(pe, got[:n], back, me))
		for i := range 16 {
			if got[3*i] != int64(other*1000+i) {
				return fmt.Errorf("IGetSym: back[%d] = %d, want %d", 3*i, got[3*i], other*1000+i)
			}
		}

		// Bad arguments.
		inData := must(pgas.Lookup[uint64](pe, dst.Offset()+8, 1))
		for name, c := range map[string]struct {
			err  error
			want error
		}{
			"zero signal Sym":        {pgas.PutSignalSym(pe, dst.Slice(0, n), src, pgas.Sym[uint64]{}, 1, pgas.SignalSet, other), pgas.ErrBadSym},
			"signal inside the data": {pgas.PutSignalSym(pe, dst.Slice(0, n), src, inData, 1, pgas.SignalSet, other), pgas.ErrBadArg},
			"bad signal operation":   {pgas.PutSignalSym(pe, dst, src, sig, 1, pgas.SigOp(9), other), pgas.ErrBadArg},
			"source too long":        {pgas.PutSymNBI(pe, src.Slice(0, 4), dst, other), pgas.ErrBadSize},
			"PE out of range":        {pgas.GetSymNBI(pe, back, src, 7), pgas.ErrBadPE},
			"stride 0":               {pgas.IPutSym(pe, dst, src, 0, 1, 4, other), pgas.ErrBadArg},
			"strided past the end":   {pgas.IGetSym(pe, back, src, 4, 1, 16, other), pgas.ErrBadSize},
			"strided overlap":        {pgas.IPutSym(pe, src, src, 2, 2, 4, me), pgas.ErrBadArg},
		} {
			if !errors.Is(c.err, c.want) {
				return fmt.Errorf("%s: %v, want %v", name, c.err, c.want)
			}
		}
		return pe.Barrier(ctx)
	})
}
