package conformance

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// Fetch, set and swap carry floating-point words bit for bit (the spec's
// extended AMO types), NaN payloads and negative zero included.
func (ck *kit) testFloatAtomics(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		f32 := must(pgas.AllocZeroed[float32](ctx, pe, 1))
		f64 := must(pgas.AllocZeroed[float64](ctx, pe, 1))
		other := 1 - pe.ID()
		check(pe.Barrier(ctx))
		if pe.ID() == 0 {
			check(pgas.AtomicSet(pe, f32, float32(-1.5), other))
			check(pgas.AtomicSet(pe, f64, math.Copysign(0, -1), other))
			if old := must(pgas.AtomicSwap(pe, f32, float32(math.Inf(1)), other)); old != -1.5 {
				return fmt.Errorf("float32 swap returned %v", old)
			}
			nan := math.Float64frombits(0x7ff8_0000_dead_beef)
			if old := must(pgas.AtomicSwap(pe, f64, nan, other)); math.Float64bits(old) != 1<<63 {
				return fmt.Errorf("float64 swap returned bits %#x, want -0", math.Float64bits(old))
			}
			if v := must(pgas.AtomicFetch(pe, f64, other)); math.Float64bits(v) != 0x7ff8_0000_dead_beef {
				return fmt.Errorf("float64 fetch: bits %#x", math.Float64bits(v))
			}
			var got32 float32
			check(pgas.AtomicFetchNBI(pe, &got32, f32, other))
			var old64 float64
			check(pgas.AtomicSwapNBI(pe, &old64, f64, 2.25, other))
			check(pe.Quiet())
			if !math.IsInf(float64(got32), 1) || math.Float64bits(old64) != 0x7ff8_0000_dead_beef {
				return fmt.Errorf("nbi fetch/swap: %v, %#x", got32, math.Float64bits(old64))
			}
		}
		check(pe.Barrier(ctx))
		if pe.ID() == 1 {
			if v := must(pgas.G(pe, f64, 1)); v != 2.25 {
				return fmt.Errorf("float64 word on PE 1 = %v", v)
			}
		}
		return nil
	})
}

// Every non-blocking fetching atomic returns the value a blocking one
// would have, in *fetch after Quiet, with many PEs hitting one word.
func (ck *kit) testNBIFetchingAtomics(t *testing.T) {
	for _, n := range []int{2, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) { ck.nbiFetchingAtomics(t, n) })
	}
}

func (ck *kit) nbiFetchingAtomics(t *testing.T, n int) {
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		ctr := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		bitsw := must(pgas.AllocZeroed[uint32](ctx, pe, 1))
		const rounds = 40
		olds := make([]uint64, rounds)
		for i := range olds {
			check(pgas.AtomicFetchAddNBI(pe, &olds[i], ctr, 1, 0))
		}
		var mask uint32
		check(pgas.AtomicFetchOrNBI(pe, &mask, bitsw, 1<<pe.ID(), 0))
		check(pe.Quiet())
		for i := 1; i < rounds; i++ {
			if olds[i] <= olds[i-1] {
				return fmt.Errorf("fetch-add values not increasing: %d then %d", olds[i-1], olds[i])
			}
		}
		if mask&(1<<pe.ID()) != 0 {
			return fmt.Errorf("fetch-or saw its own bit before setting it: %#x", mask)
		}
		check(pe.Barrier(ctx))
		if v := must(pgas.AtomicFetch(pe, ctr, 0)); v != uint64(n*rounds) {
			return fmt.Errorf("counter = %d, want %d", v, n*rounds)
		}
		if v := must(pgas.AtomicFetch(pe, bitsw, 0)); v != 1<<n-1 {
			return fmt.Errorf("or word = %#x", v)
		}
		check(pe.Barrier(ctx))
		if pe.ID() == 1 { // on PE 0's word, which holds 1<<n - 1
			cases := []struct {
				name string
				do   func(*uint32) error
				want uint32 // returned old value
				word uint32 // word afterwards
			}{
				{"cswap hit", func(f *uint32) error { return pgas.AtomicCompareSwapNBI(pe, f, bitsw, 1<<n-1, 7, 0) }, 1<<n - 1, 7},
				{"cswap miss", func(f *uint32) error { return pgas.AtomicCompareSwapNBI(pe, f, bitsw, 99, 8, 0) }, 7, 7},
				{"fetch-inc", func(f *uint32) error { return pgas.AtomicFetchIncNBI(pe, f, bitsw, 0) }, 7, 8},
				{"fetch-and", func(f *uint32) error { return pgas.AtomicFetchAndNBI(pe, f, bitsw, 0xc, 0) }, 8, 8},
				{"fetch-xor", func(f *uint32) error { return pgas.AtomicFetchXorNBI(pe, f, bitsw, 0xf, 0) }, 8, 7},
				{"swap", func(f *uint32) error { return pgas.AtomicSwapNBI(pe, f, bitsw, 42, 0) }, 7, 42},
				{"fetch", func(f *uint32) error { return pgas.AtomicFetchNBI(pe, f, bitsw, 0) }, 42, 42},
			}
			for _, c := range cases {
				var got uint32
				check(c.do(&got))
				check(pe.Quiet())
				if got != c.want {
					return fmt.Errorf("%s: fetched %d, want %d", c.name, got, c.want)
				}
				if w := must(pgas.AtomicFetch(pe, bitsw, 0)); w != c.word {
					return fmt.Errorf("%s: word = %d, want %d", c.name, w, c.word)
				}
			}
			if err := pgas.AtomicFetchAddNBI(pe, nil, ctr, 1, 0); !errors.Is(err, pgas.ErrBadArg) {
				return fmt.Errorf("nil fetch pointer: %v", err)
			}
			var x uint64
			if err := pgas.AtomicFetchAddNBI(pe, &x, ctr, 1, n); !errors.Is(err, pgas.ErrBadPE) {
				return fmt.Errorf("bad PE: %v", err)
			}
		}
		return pe.Barrier(ctx)
	})
}
