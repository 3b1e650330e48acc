package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// teamCases runs a collective test on the world and on a strided team.
func (ck *kit) teamCases(t *testing.T, n int, body func(ctx context.Context, pe *pgas.PE, tm *pgas.Team) error) {
	t.Run("world", func(t *testing.T) {
		ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error { return body(ctx, pe, pe.TeamWorld()) })
	})
	t.Run("strided", func(t *testing.T) {
		ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
			tm, err := pe.TeamWorld().Split(ctx, 1, 2, n/2) // odd PEs
			if err != nil || tm == nil {
				// Non-members still take part in the world's allocations.
				return body(ctx, pe, nil)
			}
			return body(ctx, pe, tm)
		})
	})
}

func (ck *kit) testBroadcast(t *testing.T) {
	ck.teamCases(t, 6, func(ctx context.Context, pe *pgas.PE, tm *pgas.Team) error {
		src := must(pgas.AllocZeroed[float64](ctx, pe, 100))
		dst := must(pgas.AllocZeroed[float64](ctx, pe, 100))
		if tm == nil {
			return nil
		}
		for root := range tm.NumPEs() {
			mine := seq(100, func(i int) float64 { return float64(i) + 0.5*float64(tm.ID()) })
			check(pgas.Put(pe, src, mine, pe.ID()))
			check(pgas.Broadcast(ctx, tm, dst, src, 90, root))
			got := make([]float64, 100)
			check(pgas.Get(pe, got, dst, pe.ID()))
			for i := range 90 {
				if want := float64(i) + 0.5*float64(root); got[i] != want {
					return fmt.Errorf("root %d: dst[%d] = %v, want %v", root, i, got[i], want)
				}
			}
			if got[95] != 0 {
				return fmt.Errorf("broadcast of 90 wrote element 95")
			}
		}
		if err := pgas.Broadcast(ctx, tm, dst, src, 10, tm.NumPEs()); !errors.Is(err, pgas.ErrBadPE) {
			return fmt.Errorf("root out of range: %v", err)
		}
		return nil
	})
}

func reduceCase[T pgas.Number](ctx context.Context, pe *pgas.PE, tm *pgas.Team, op pgas.ReduceOp, val func(rank, i int) T, inPlace bool) error {
	const n = 33
	src := must(pgas.AllocZeroed[T](ctx, pe, n))
	dst := src
	if !inPlace {
		dst = must(pgas.AllocZeroed[T](ctx, pe, n))
	}
	if tm == nil {
		return nil
	}
	check(pgas.Put(pe, src, seq(n, func(i int) T { return val(tm.ID(), i) }), pe.ID()))
	if err := pgas.ReduceAll(ctx, tm, op, dst, src, n); err != nil {
		return err
	}
	got := make([]T, n)
	check(pgas.Get(pe, got, dst, pe.ID()))
	for i := range n {
		want := val(0, i)
		for r := 1; r < tm.NumPEs(); r++ {
			v := val(r, i)
			switch op {
			case pgas.ReduceSum:
				want += v
			case pgas.ReduceProd:
				want *= v
			case pgas.ReduceMin:
				want = min(want, v)
			case pgas.ReduceMax:
				want = max(want, v)
			}
		}
		if op >= pgas.ReduceAnd {
			want = bitRef(op, tm.NumPEs(), i, val)
		}
		if got[i] != want {
			return fmt.Errorf("%v element %d = %v, want %v", op, i, got[i], want)
		}
	}
	return nil
}

// bitRef computes bitwise reductions through int64, independently of the
// code under test.
func bitRef[T pgas.Number](op pgas.ReduceOp, n, i int, val func(rank, i int) T) T {
	acc := int64(val(0, i))
	for r := 1; r < n; r++ {
		v := int64(val(r, i))
		switch op {
		case pgas.ReduceAnd:
			acc &= v
		case pgas.ReduceOr:
			acc |= v
		case pgas.ReduceXor:
			acc ^= v
		}
	}
	return T(acc)
}

func (ck *kit) testReduceAll(t *testing.T) {
	ints := func(rank, i int) int64 { return int64((rank+1)*(i+3)) ^ int64(rank<<i%60) }
	floats := func(rank, i int) float64 { return float64(rank+1) * (float64(i) - 10.25) }
	u8 := func(rank, i int) uint8 { return uint8(rank*37 + i) }
	for _, op := range []pgas.ReduceOp{pgas.ReduceSum, pgas.ReduceProd, pgas.ReduceMin, pgas.ReduceMax, pgas.ReduceAnd, pgas.ReduceOr, pgas.ReduceXor} {
		t.Run(op.String(), func(t *testing.T) {
			ck.teamCases(t, 6, func(ctx context.Context, pe *pgas.PE, tm *pgas.Team) error {
				if err := reduceCase(ctx, pe, tm, op, ints, false); err != nil {
					return fmt.Errorf("int64: %w", err)
				}
				if err := reduceCase(ctx, pe, tm, op, u8, true); err != nil {
					return fmt.Errorf("uint8 in place: %w", err)
				}
				if op >= pgas.ReduceAnd {
					err := reduceCase(ctx, pe, tm, op, floats, false)
					if tm != nil && !errors.Is(err, pgas.ErrBadArg) {
						return fmt.Errorf("float64 %v: %v, want ErrBadArg", op, err)
					}
					return nil
				}
				if err := reduceCase(ctx, pe, tm, op, floats, true); err != nil {
					return fmt.Errorf("float64: %w", err)
				}
				return nil
			})
		})
	}
}

func (ck *kit) testFCollectAndAllToAll(t *testing.T) {
	ck.teamCases(t, 6, func(ctx context.Context, pe *pgas.PE, tm *pgas.Team) error {
		const blk = 5
		src := must(pgas.AllocZeroed[int32](ctx, pe, 6*blk))
		dst := must(pgas.AllocZeroed[int32](ctx, pe, 6*blk))
		if tm == nil {
			return nil
		}
		n, me := tm.NumPEs(), tm.ID()
		check(pgas.Put(pe, src, seq(n*blk, func(i int) int32 { return int32(me*1000 + i) }), pe.ID()))
		check(pgas.FCollect(ctx, tm, dst, src, blk))
		got := make([]int32, n*blk)
		check(pgas.Get(pe, got, dst, pe.ID()))
		for i, v := range got {
			if want := int32(i/blk*1000 + i%blk); v != want {
				return fmt.Errorf("fcollect dst[%d] = %d, want %d", i, v, want)
			}
		}
		check(pgas.AllToAll(ctx, tm, dst, src, blk))
		check(pgas.Get(pe, got, dst, pe.ID()))
		for i, v := range got {
			// Block i/blk came from rank i/blk's block me.
			if want := int32(i/blk*1000 + me*blk + i%blk); v != want {
				return fmt.Errorf("alltoall dst[%d] = %d, want %d", i, v, want)
			}
		}
		if err := pgas.FCollect(ctx, tm, src, src, blk); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("overlapping fcollect: %v", err)
		}
		small := dst.Slice(0, blk)
		if err := pgas.AllToAll(ctx, tm, small, src, blk); !errors.Is(err, pgas.ErrBadSize) {
			return fmt.Errorf("short alltoall dst: %v", err)
		}
		return nil
	})
}

// Jacobi's use: all-reduce one float64 per iteration, many times.
func (ck *kit) testReduceAllRepeated(t *testing.T) {
	ck.run(t, 4, func(ctx context.Context, pe *pgas.PE) error {
		s := must(pgas.AllocZeroed[float64](ctx, pe, 1))
		for it := range 200 {
			check(pgas.P(pe, s, float64(pe.ID()+it), pe.ID()))
			check(pgas.ReduceAll(ctx, pe.TeamWorld(), pgas.ReduceMax, s, s, 1))
			if v := must(pgas.G(pe, s, pe.ID())); v != float64(3+it) {
				return fmt.Errorf("iteration %d: max = %v", it, v)
			}
		}
		return nil
	})
}
