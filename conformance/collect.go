package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// Collect concatenates blocks of different sizes (zero included) in rank
// order on every member, and rejects what does not fit on every member
// alike, leaving the team usable.
func (ck *kit) testCollect(t *testing.T) {
	for _, n := range []int{2, 6} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { ck.collect(t, n) })
	}
}

func (ck *kit) collect(t *testing.T, n int) {
	ck.teamCases(t, n, func(ctx context.Context, pe *pgas.PE, tm *pgas.Team) error {
		src := must(pgas.AllocZeroed[int32](ctx, pe, 8))
		dst := must(pgas.AllocZeroed[int32](ctx, pe, 30))
		if tm == nil {
			return nil
		}
		me, size := tm.ID(), tm.NumPEs()
		count := func(r int) int { return (r * 3) % 5 } // 0, 3, 1, 4, 2, 0 …
		mine := seq(8, func(i int) int32 { return int32(me*100 + i) })
		check(pgas.Put(pe, src, mine, pe.ID()))
		total := must(pgas.Collect(ctx, tm, dst, src, count(me)))
		var want []int32
		for r := range size {
			for i := range count(r) {
				want = append(want, int32(r*100+i))
			}
		}
		if total != len(want) {
			return fmt.Errorf("collect returned %d elements, want %d", total, len(want))
		}
		got := make([]int32, len(want))
		check(pgas.Get(pe, got, dst, pe.ID()))
		for i := range want {
			if got[i] != want[i] {
				return fmt.Errorf("collect dst[%d] = %d, want %d", i, got[i], want[i])
			}
		}
		// Too much for dst on every member: all fail alike, team usable.
		if _, err := pgas.Collect(ctx, tm, dst.Slice(0, 2), src, 1); size > 2 && !errors.Is(err, pgas.ErrBadSize) {
			return fmt.Errorf("short collect dst: %v", err)
		}
		if _, err := pgas.Collect(ctx, tm, dst, src, 9); !errors.Is(err, pgas.ErrBadSize) {
			return fmt.Errorf("count past src: %v", err)
		}
		if _, err := pgas.Collect(ctx, tm, src, src, 1); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("overlapping collect: %v", err)
		}
		return tm.Barrier(ctx)
	})
}

// AllToAlls moves each strided block to its member and place, for unit
// and larger strides on either side.
func (ck *kit) testAllToAlls(t *testing.T) {
	strides := []struct{ tst, sst int }{{1, 1}, {2, 1}, {1, 3}, {3, 2}}
	for _, npes := range []int{2, 4} {
		for _, st := range strides {
			t.Run(fmt.Sprintf("%d/tst=%d,sst=%d", npes, st.tst, st.sst), func(t *testing.T) { ck.allToAlls(t, npes, st.tst, st.sst) })
		}
	}
}

func (ck *kit) allToAlls(t *testing.T, npes, tst, sst int) {
	ck.teamCases(t, npes, func(ctx context.Context, pe *pgas.PE, tm *pgas.Team) error {
		const blk = 3
		src := must(pgas.Alloc[int64](ctx, pe, npes*blk*sst))
		dst := must(pgas.Alloc[int64](ctx, pe, npes*blk*tst))
		if tm == nil {
			return nil
		}
		me, size := tm.ID(), tm.NumPEs()
		check(pgas.Put(pe, src, seq(src.Len(), func(i int) int64 { return int64(me*1000 + i) }), pe.ID()))
		check(pgas.Put(pe, dst, seq(dst.Len(), func(int) int64 { return -1 }), pe.ID()))
		check(pgas.AllToAlls(ctx, tm, dst, src, tst, sst, blk))
		got := make([]int64, dst.Len())
		check(pgas.Get(pe, got, dst, pe.ID()))
		for i, v := range got {
			want := int64(-1)
			if e := i / tst; i%tst == 0 && e < size*blk {
				from, k := e/blk, e%blk // sender's rank, element of its block
				want = int64(from*1000 + (me*blk+k)*sst)
			}
			if v != want {
				return fmt.Errorf("alltoalls dst[%d] = %d, want %d", i, v, want)
			}
		}
		if err := pgas.AllToAlls(ctx, tm, dst, src, 0, 1, blk); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("zero stride: %v", err)
		}
		short := (size*blk-1)*(sst+1)+1 > src.Len()
		if err := pgas.AllToAlls(ctx, tm, dst, src, tst, sst+1, blk); short && !errors.Is(err, pgas.ErrBadSize) {
			return fmt.Errorf("src too short for its stride: %v", err)
		}
		return pgas.AllToAlls(ctx, tm, dst, src, tst, sst, 0)
	})
}

// Complex reductions sum and multiply; other operators are rejected.
func (ck *kit) testReduceAllComplex(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		c64 := must(pgas.AllocZeroed[complex64](ctx, pe, 2))
		c128 := must(pgas.AllocZeroed[complex128](ctx, pe, 2))
		me := float64(pe.ID() + 1)
		check(pgas.Put(pe, c64, []complex64{complex(float32(me), 1), complex(0, float32(me))}, pe.ID()))
		check(pgas.Put(pe, c128, []complex128{complex(me, -me), 2i}, pe.ID()))
		world := pe.TeamWorld()
		check(pgas.ReduceAllComplex(ctx, world, pgas.ReduceSum, c64, c64, 2))
		check(pgas.ReduceAllComplex(ctx, world, pgas.ReduceProd, c128, c128, 2))
		got64 := make([]complex64, 2)
		check(pgas.Get(pe, got64, c64, pe.ID()))
		if got64[0] != complex(3, 2) || got64[1] != complex(0, 3) {
			return fmt.Errorf("complex64 sum = %v", got64)
		}
		got128 := make([]complex128, 2)
		check(pgas.Get(pe, got128, c128, pe.ID()))
		// (1-1i)(2-2i) = 2(1-i)^2 = -4i; (2i)^2 = -4.
		if got128[0] != -4i || got128[1] != -4 {
			return fmt.Errorf("complex128 product = %v", got128)
		}
		if err := pgas.ReduceAllComplex(ctx, world, pgas.ReduceMax, c64, c64, 2); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("Max of complex: %v", err)
		}
		return world.Barrier(ctx)
	})
}
