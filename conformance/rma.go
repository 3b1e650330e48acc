package conformance

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/symchan/symchan/pgas"
)

type point struct {
	X, Y float32
	Tag  uint16
}

// putGetRoundTrip puts gen(me) to the right neighbour, then checks that
// its own copy holds gen(left) and the right neighbour's gen(me).
func putGetRoundTrip[T any](ctx context.Context, pe *pgas.PE, gen func(id int) []T, nbi bool) error {
	n, me := pe.NumPEs(), pe.ID()
	right, left := (me+1)%n, (me+n-1)%n
	vals := gen(me)
	s := must(pgas.AllocZeroed[T](ctx, pe, len(vals)))
	defer pgas.Free(ctx, pe, s)
	if nbi {
		check(pgas.PutNBI(pe, s, vals, right))
		check(pe.Quiet())
	} else {
		check(pgas.Put(pe, s, vals, right))
	}
	check(pe.Barrier(ctx))
	got := make([]T, len(vals))
	check(pgas.Get(pe, got, s, me)) // what the left neighbour put here
	if want := gen(left); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("PE %d from PE %d: got %v, want %v", me, left, head(got), head(want))
	}
	remote := make([]T, len(vals))
	if nbi {
		check(pgas.GetNBI(pe, remote, s, right))
		check(pe.Quiet())
	} else {
		check(pgas.Get(pe, remote, s, right))
	}
	if !reflect.DeepEqual(remote, vals) {
		return fmt.Errorf("Get from PE %d: got %v", right, head(remote))
	}
	return pe.Barrier(ctx)
}

func head[T any](s []T) []T { return s[:min(len(s), 4)] }

func seq[T any](n int, f func(i int) T) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = f(i)
	}
	return s
}

func (ck *kit) testPutGet(t *testing.T) {
	for _, size := range []int{1, 7, 4096, 1 << 18} {
		for _, nbi := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/nbi=%v", size, nbi), func(t *testing.T) {
				ck.run(t, 3, func(ctx context.Context, pe *pgas.PE) error {
					bytes := func(id int) []byte { return seq(size, func(i int) byte { return byte(i*7 + id) }) }
					if err := putGetRoundTrip(ctx, pe, bytes, nbi); err != nil {
						return fmt.Errorf("bytes: %w", err)
					}
					floats := func(id int) []float64 {
						return seq(size, func(i int) float64 { return float64(i) / 3 * float64(id+1) })
					}
					if err := putGetRoundTrip(ctx, pe, floats, nbi); err != nil {
						return fmt.Errorf("float64: %w", err)
					}
					points := func(id int) []point {
						return seq(size, func(i int) point { return point{float32(i), float32(-i), uint16(id)} })
					}
					return putGetRoundTrip(ctx, pe, points, nbi)
				})
			})
		}
	}
}

func (ck *kit) testPutIntoSlice(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		s := must(pgas.AllocZeroed[int32](ctx, pe, 10))
		if pe.ID() == 0 {
			check(pgas.Put(pe, s.Slice(3, 6), []int32{1, 2, 3}, 1))
			check(pgas.P(pe, s.Index(9), 9, 1))
		}
		check(pe.Barrier(ctx))
		if pe.ID() == 1 {
			got := make([]int32, 10)
			check(pgas.Get(pe, got, s, 1))
			if want := []int32{0, 0, 0, 1, 2, 3, 0, 0, 0, 9}; !reflect.DeepEqual(got, want) {
				return fmt.Errorf("got %v, want %v", got, want)
			}
			if v := must(pgas.G(pe, s.Index(4), 1)); v != 2 {
				return fmt.Errorf("G = %d", v)
			}
		}
		return nil
	})
}

// atomicSuite checks every AMO on one word type against its spec.
func atomicSuite[T pgas.Word](ck *kit, t *testing.T) {
	n := ck.perProcess(4) // one PE per process: the others' atomics cross processes
	const per = 200
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[T](ctx, pe, 4))
		ctr, bits, cas := w.Index(0), w.Index(1), w.Index(2)
		// Concurrent fetch-inc from all PEs: every old value is distinct.
		olds := make(map[T]bool)
		for range per {
			o := must(pgas.AtomicFetchInc(pe, ctr, 0))
			if olds[o] {
				return fmt.Errorf("fetch-inc returned %v twice", o)
			}
			olds[o] = true
			check(pgas.AtomicInc(pe, ctr, 0))
			check(pgas.AtomicAdd(pe, ctr, 3, 0))
			if _, err := pgas.AtomicFetchAdd(pe, ctr, 2, 0); err != nil {
				return err
			}
		}
		// Each PE sets its own bit, in three ways.
		mask := T(1) << (pe.ID() * 3)
		check(pgas.AtomicOr(pe, bits, mask, 0))
		check(pgas.AtomicXor(pe, bits, mask<<1, 0))
		_ = must(pgas.AtomicFetchOr(pe, bits, mask<<2, 0))
		check(pe.Barrier(ctx))
		if got, want := must(pgas.AtomicFetch(pe, ctr, 0)), T(n*per*7); got != want {
			return fmt.Errorf("counter %v, want %v", got, want)
		}
		if got, want := must(pgas.AtomicFetch(pe, bits, 0)), T(1<<(3*n))-1; got != want {
			return fmt.Errorf("bits %#x, want %#x", got, want)
		}
		check(pe.Barrier(ctx))
		// Each PE clears its low bit with and, its middle bit with xor.
		_ = must(pgas.AtomicFetchAnd(pe, bits, ^mask, 0))
		check(pgas.AtomicAnd(pe, bits, ^T(0), 0))
		_ = must(pgas.AtomicFetchXor(pe, bits, mask<<1, 0))
		check(pe.Barrier(ctx))
		var hi T
		for q := range n {
			hi |= T(4) << (q * 3)
		}
		if got := must(pgas.AtomicFetch(pe, bits, 0)); got != hi {
			return fmt.Errorf("bits after and/xor %#x, want %#x", got, hi)
		}
		// Compare-swap: exactly one PE wins each round.
		wins := 0
		for round := T(0); round < 50; round++ {
			if old := must(pgas.AtomicCompareSwap(pe, cas, round, round+1, 0)); old == round {
				wins++
			} else if old < round {
				return fmt.Errorf("compare-swap returned %v in round %v", old, round)
			}
		}
		check(pgas.AtomicAdd(pe, w.Index(3), T(wins), 0))
		check(pe.Barrier(ctx))
		if got := must(pgas.AtomicFetch(pe, cas, 0)); got != 50 {
			return fmt.Errorf("cas word %v, want 50", got)
		}
		if got := must(pgas.AtomicFetch(pe, w.Index(3), 0)); got != 50 {
			return fmt.Errorf("%v compare-swap wins in 50 rounds", got)
		}
		check(pe.Barrier(ctx))
		// Set and swap.
		if pe.ID() == 1 {
			check(pgas.AtomicSet(pe, w.Index(3), 42, 0))
			if old := must(pgas.AtomicSwap(pe, w.Index(3), 7, 0)); old != 42 {
				return fmt.Errorf("swap returned %v, want 42", old)
			}
			if v := must(pgas.AtomicFetch(pe, w.Index(3), 0)); v != 7 {
				return fmt.Errorf("after swap %v", v)
			}
		}
		return nil
	})
}

func (ck *kit) testAtomics(t *testing.T) {
	t.Run("int32", func(t *testing.T) { atomicSuite[int32](ck, t) })
	t.Run("uint32", func(t *testing.T) { atomicSuite[uint32](ck, t) })
	t.Run("int64", func(t *testing.T) { atomicSuite[int64](ck, t) })
	t.Run("uint64", func(t *testing.T) { atomicSuite[uint64](ck, t) })
}

func (ck *kit) testAtomicWraps(t *testing.T) {
	ck.run(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		s := must(pgas.AllocZeroed[int32](ctx, pe, 1))
		check(pgas.AtomicSet(pe, s, 1<<31-1, 0))
		check(pgas.AtomicInc(pe, s, 0))
		if v := must(pgas.AtomicFetch(pe, s, 0)); v != -1<<31 {
			return fmt.Errorf("int32 max + 1 = %d", v)
		}
		u := must(pgas.AllocZeroed[uint32](ctx, pe, 1))
		check(pgas.AtomicAdd(pe, u, ^uint32(0), 0))
		if v := must(pgas.AtomicFetch(pe, u, 0)); v != ^uint32(0) {
			return fmt.Errorf("0 + max uint32 = %d", v)
		}
		return nil
	})
}

// PutSym and GetSym copy between symmetric arrays; Lookup turns an offset
// back into a Sym.
func (ck *kit) testSymToSymAndLookup(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		a := must(pgas.AllocZeroed[int32](ctx, pe, 64))
		b := must(pgas.AllocZeroed[int32](ctx, pe, 64))
		me, other := pe.ID(), 1-pe.ID()
		check(pgas.Put(pe, a, seq(64, func(i int) int32 { return int32(me*1000 + i) }), me))
		check(pe.Barrier(ctx))
		check(pgas.PutSym(pe, b.Slice(0, 32), a.Slice(0, 32), other))  // my a[:32] → other's b[:32]
		check(pgas.GetSym(pe, a.Slice(32, 64), a.Slice(0, 32), other)) // other's a[:32] → my a[32:]
		check(pe.Barrier(ctx))
		got := make([]int32, 64)
		check(pgas.Get(pe, got, b, me))
		for i := range 32 {
			if got[i] != int32(other*1000+i) {
				return fmt.Errorf("PutSym: b[%d] = %d", i, got[i])
			}
		}
		check(pgas.Get(pe, got, a, me))
		for i := range 32 {
			if got[32+i] != int32(other*1000+i) {
				return fmt.Errorf("GetSym: a[%d] = %d", 32+i, got[32+i])
			}
		}
		if err := pgas.PutSym(pe, a.Slice(1, 33), a.Slice(0, 32), me); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("overlapping PutSym to self: %v", err)
		}
		if err := pgas.GetSym(pe, a, b.Slice(0, 8), other); !errors.Is(err, pgas.ErrBadSize) {
			return fmt.Errorf("GetSym of 64 from 8: %v", err)
		}
		l := must(pgas.Lookup[int32](pe, a.Offset()+8, 4))
		if l.Offset() != a.Offset()+8 || l.Len() != 4 {
			return fmt.Errorf("Lookup: %v", l)
		}
		if v := must(pgas.G(pe, l, me)); v != int32(me*1000+2) {
			return fmt.Errorf("Lookup view reads %d", v)
		}
		for name, err := range map[string]error{
			"past the allocation": func() error { _, err := pgas.Lookup[int32](pe, a.Offset()+8, 63); return err }(),
			"in no allocation":    func() error { _, err := pgas.Lookup[byte](pe, 8, 1); return err }(),
			"negative":            func() error { _, err := pgas.Lookup[byte](pe, a.Offset(), -1); return err }(),
		} {
			if err == nil {
				return fmt.Errorf("Lookup %s: no error", name)
			}
		}
		check(pgas.Free(ctx, pe, b))
		if _, err := pgas.Lookup[int32](pe, b.Offset(), 1); !errors.Is(err, pgas.ErrBadSym) {
			return fmt.Errorf("Lookup in a freed allocation: %v", err)
		}
		return nil
	})
}
