package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// Every stream-ordered routine, enqueued on one Stream per PE and run in
// order (a CUDA stream on the GPU backends, the PE's host stream on the
// others): a put-with-signal, a wait on the stream for the other PE's, a
// get, a strided put, fetching atomics whose results land in a Sym,
// signal adds with waits that compare NE and LE, and a barrier on the
// stream, after which every PE's earlier stream work is visible. Bad
// arguments fail at once, before anything is enqueued; a closed stream
// refuses work.
func (ck *kit) testStreamOrdered(t *testing.T) {
	const n = 64
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		me, other := pe.ID(), 1-pe.ID()
		st := must(pgas.NewStream(pe))
		src := must(pgas.AllocZeroed[int64](ctx, pe, n))
		dst := must(pgas.AllocZeroed[int64](ctx, pe, n))
		got := must(pgas.AllocZeroed[int64](ctx, pe, n))
		strided := must(pgas.AllocZeroed[int64](ctx, pe, 2*n))
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 2))
		counter := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		fetch := must(pgas.AllocZeroed[uint64](ctx, pe, 4))
		check(pgas.Put(pe, src, seq(n, func(i int) int64 { return int64(me*1000 + i) }), me))
		check(pe.Barrier(ctx))

		check(pgas.PutSignalOnStream(st, dst, src, sig.Index(0), 1, pgas.SignalSet, other))
		check(pgas.SignalWaitUntilOnStream(st, sig.Index(0), pgas.CmpEQ, 1))
		check(pgas.GetOnStream(st, got, src, other))
		check(pgas.IPutOnStream(st, strided, src, 2, 1, n, other))
		check(pgas.AtomicFetchAddOnStream(st, fetch.Index(0), counter, 5, other))
		check(pgas.AtomicCompareSwapOnStream(st, fetch.Index(1), counter, 99, 1, other)) // fails: the word is 5
		check(pgas.AtomicCompareSwapOnStream(st, fetch.Index(2), counter, 5, 6, other))
		check(pgas.AtomicFetchOnStream(st, fetch.Index(3), counter, other))
		check(pgas.SignalOpOnStream(st, sig.Index(1), 3, pgas.SignalAdd, other))
		check(pgas.SignalWaitUntilOnStream(st, sig.Index(1), pgas.CmpNE, 0))
		check(pgas.SignalWaitUntilOnStream(st, sig.Index(1), pgas.CmpLE, 3))
		check(pgas.BarrierOnStream(st, pe.TeamWorld()))
		check(st.Sync(ctx))

		want := seq(n, func(i int) int64 { return int64(other*1000 + i) })
		for _, c := range []struct {
			name string
			s    pgas.Sym[int64]
			want []int64
		}{
			{"dst (the other PE's put-with-signal)", dst, want},
			{"got (a get of the other PE's src)", got, want},
			{"strided (the other PE's strided put)", strided, seq(2*n, func(i int) int64 {
				if i%2 == 1 {
					return 0
				}
				return int64(other*1000 + i/2)
			})},
		} {
			v := make([]int64, c.s.Len())
			check(pgas.Get(pe, v, c.s, me))
			if !slices.Equal(v, c.want) {
				return fmt.Errorf("PE %d: %s = %v…, want %v…", me, c.name, v[:4], c.want[:4])
			}
		}
		words := make([]uint64, 4)
		check(pgas.Get(pe, words, fetch, me))
		if want := []uint64{0, 5, 5, 6}; !slices.Equal(words, want) {
			return fmt.Errorf("PE %d: the atomics fetched %v, want %v", me, words, want)
		}
		check(pgas.Get(pe, words[:1], counter, me))
		if words[0] != 6 {
			return fmt.Errorf("PE %d: counter = %d after the other PE's atomics, want 6", me, words[0])
		}

		// Refused before anything is enqueued.
		for _, c := range []struct {
			name string
			err  error
		}{
			{"wait with comparison 0", pgas.SignalWaitUntilOnStream(st, sig, 0, 1)},
			{"signal op 0", pgas.SignalOpOnStream(st, sig, 1, 0, other)},
			{"PE out of range", pgas.PutOnStream(st, dst, src, 2)},
			{"put into a smaller Sym", pgas.PutOnStream(st, dst.Slice(0, 1), src, other)},
			{"signal inside the data", pgas.PutSignalOnStream(st, sig, sig, sig.Index(1), 1, pgas.SignalSet, other)},
			{"fetch of the zero Sym", pgas.AtomicFetchOnStream(st, pgas.Sym[uint64]{}, counter, other)},
		} {
			if !errors.Is(c.err, pgas.ErrBadArg) && !errors.Is(c.err, pgas.ErrBadSize) && !errors.Is(c.err, pgas.ErrBadPE) {
				return fmt.Errorf("%s: %v, want an argument error", c.name, c.err)
			}
		}
		check(pe.Barrier(ctx))
		check(st.Close(ctx))
		if err := pgas.PutOnStream(st, dst, src, other); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("PutOnStream on a closed stream: %v, want ErrBadArg", err)
		}
		return nil
	})
}
