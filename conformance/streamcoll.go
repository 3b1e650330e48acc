package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// The team collectives on a stream, on the world (4 PEs, or as many as
// the run has) and on a strided team of the even ranks, each enqueued with nothing between them and checked
// after one Sync: a barrier after each PE's put to its right neighbour,
// a broadcast from rank 1, reductions (float64 sum out of place, float32
// sum and int64 max in place, uint32 xor; counts that leave a tail past
// the last 16 bytes), fcollect, alltoall, and an fcollect and an in-place
// sum large enough to run their data step on a grid (GPU backends).
// Members' arguments that are bad on their own PE fail at once.
func (ck *kit) testStreamCollectives(t *testing.T) {
	const n, big = 42, 80 << 10 // big: 80 Ki int64 = 640 KiB a member, 2.5 MiB collected with 4 PEs
	npes := ck.upToPEs(4)
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		me := pe.ID()
		st := must(pgas.NewStream(pe))
		world := pe.TeamWorld()
		even := must(world.Split(ctx, 0, 2, (npes+1)/2))
		ring := must(pgas.AllocZeroed[int64](ctx, pe, 1))
		i64 := must(pgas.AllocZeroed[int64](ctx, pe, npes*n))
		bcast := must(pgas.AllocZeroed[int64](ctx, pe, n))
		f64src := must(pgas.AllocZeroed[float64](ctx, pe, n))
		f64dst := must(pgas.AllocZeroed[float64](ctx, pe, n))
		f32 := must(pgas.AllocZeroed[float32](ctx, pe, n))
		mx := must(pgas.AllocZeroed[int64](ctx, pe, n))
		u32 := must(pgas.AllocZeroed[uint32](ctx, pe, n))
		fcol := must(pgas.AllocZeroed[int64](ctx, pe, npes*n))
		a2a := must(pgas.AllocZeroed[int64](ctx, pe, npes*n))
		bigSrc := must(pgas.AllocZeroed[int64](ctx, pe, big))
		bigDst := must(pgas.AllocZeroed[int64](ctx, pe, npes*big))
		bigSum := must(pgas.AllocZeroed[float64](ctx, pe, big+3))
		evenDst := must(pgas.AllocZeroed[int64](ctx, pe, npes*n))
		val := func(q, i int) int64 { return int64(q*1000 + i) }
		check(pgas.Put(pe, i64, seq(npes*n, func(i int) int64 { return val(me, i) }), me))
		check(pgas.Put(pe, f64src, seq(n, func(i int) float64 { return float64(me) + float64(i)/4 }), me))
		check(pgas.Put(pe, f32, seq(n, func(i int) float32 { return float32(me*i) / 2 }), me))
		check(pgas.Put(pe, mx, seq(n, func(i int) int64 { return int64((me*7 + i*3) % 11) }), me))
		check(pgas.Put(pe, u32, seq(n, func(i int) uint32 { return uint32(me+1) << (i % 24) }), me))
		check(pgas.Put(pe, bigSrc, seq(big, func(i int) int64 { return val(me, i) }), me))
		check(pgas.Put(pe, bigSum, seq(big+3, func(i int) float64 { return float64(me*3 + i%17) }), me))
		check(pe.Barrier(ctx))

		right := (me + 1) % npes
		check(pgas.PutOnStream(st, ring, i64.Slice(0, 1), right))
		check(pgas.BarrierOnStream(st, world))
		check(pgas.GetOnStream(st, bcast.Slice(0, 1), ring, me)) // after the barrier: the left neighbour's put
		check(pgas.BroadcastOnStream(st, world, bcast.Slice(1, n), i64, n-1, 1))
		check(pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, f64dst, f64src, n))
		check(pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, f32, f32, n))
		check(pgas.ReduceAllOnStream(st, world, pgas.ReduceMax, mx, mx, n))
		check(pgas.ReduceAllOnStream(st, world, pgas.ReduceXor, u32, u32, n))
		check(pgas.FCollectOnStream(st, world, fcol, i64, n))
		check(pgas.AllToAllOnStream(st, world, a2a, i64, n))
		check(pgas.FCollectOnStream(st, world, bigDst, bigSrc, big))
		check(pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, bigSum, bigSum, big+3))
		if even != nil {
			check(pgas.FCollectOnStream(st, even, evenDst, i64, n))
			check(pgas.BarrierOnStream(st, even))
		}
		check(st.Sync(ctx))

		left := (me + npes - 1) % npes
		found := findings{me: me}
		found.expect("the barrier's put from the left", read(pe, bcast)[0], val(left, 0))
		found.expect("broadcast from rank 1", read(pe, bcast)[1:], seq(n-1, func(i int) int64 { return val(1, i) }))
		found.expect("float64 sum", read(pe, f64dst), seq(n, func(i int) float64 {
			var s float64
			for q := range npes {
				s += float64(q) + float64(i)/4
			}
			return s
		}))
		found.expect("float32 sum in place", read(pe, f32), seq(n, func(i int) float32 {
			var s float32
			for q := range npes {
				s += float32(q*i) / 2
			}
			return s
		}))
		found.expect("int64 max in place", read(pe, mx), seq(n, func(i int) int64 {
			var m int64
			for q := range npes {
				m = max(m, int64((q*7+i*3)%11))
			}
			return m
		}))
		found.expect("uint32 xor in place", read(pe, u32), seq(n, func(i int) uint32 {
			var x uint32
			for q := range npes {
				x ^= uint32(q+1) << (i % 24)
			}
			return x
		}))
		found.expect("fcollect", read(pe, fcol), seq(npes*n, func(i int) int64 { return val(i/n, i%n) }))
		found.expect("alltoall", read(pe, a2a), seq(npes*n, func(i int) int64 { return val(i/n, me*n+i%n) }))
		if got := read(pe, bigDst); !slices.Equal(got, seq(npes*big, func(i int) int64 { return val(i/big, i%big) })) {
			found.add(fmt.Errorf("PE %d: the large fcollect differs", me))
		}
		if got, want := read(pe, bigSum), seq(big+3, func(i int) float64 { return float64(3*npes*(npes-1)/2 + npes*(i%17)) }); !slices.Equal(got, want) {
			found.add(fmt.Errorf("PE %d: the large float64 sum differs", me))
		}
		if even != nil {
			m := even.NumPEs()
			found.expect("fcollect of the even ranks", read(pe, evenDst)[:m*n], seq(m*n, func(i int) int64 { return val(2*(i/n), i%n) }))
		}

		// Refused on the caller's PE before anything is enqueued.
		for _, c := range []struct {
			name string
			err  error
		}{
			{"broadcast root out of range", pgas.BroadcastOnStream(st, world, bcast, i64, n, npes)},
			{"reduce longer than dst", pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, f64dst.Slice(0, 1), f64src, n)},
			{"xor of floats", pgas.ReduceAllOnStream(st, world, pgas.ReduceXor, f64dst, f64src, n)},
			{"reduce over shifted copies", pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, i64.Slice(1, n+1), i64, n)},
			{"fcollect into a short dst", pgas.FCollectOnStream(st, world, fcol.Slice(0, n), i64, n)},
			{"alltoall onto its source", pgas.AllToAllOnStream(st, world, i64, i64, n)},
			{"nil team", pgas.BarrierOnStream(st, nil)},
		} {
			if !errors.Is(c.err, pgas.ErrBadArg) && !errors.Is(c.err, pgas.ErrBadSize) && !errors.Is(c.err, pgas.ErrBadPE) {
				found.add(fmt.Errorf("%s: %v, want an argument error", c.name, c.err))
			}
		}
		check(st.Close(ctx))
		return found.err()
	})
}
