package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// Strided puts and gets move exactly the elements the strides name, to
// and from every PE, and leave the elements between untouched.
func (ck *kit) testStridedRMA(t *testing.T) {
	cases := []struct {
		name          string
		tst, sst, n   int
		srcLen, dstN  int
		nbi, fromSelf bool
	}{
		{"contiguous", 1, 1, 16, 16, 16, false, false},
		{"dst stride 3", 3, 1, 10, 10, 28, false, false},
		{"src stride 4", 1, 4, 10, 37, 10, false, false},
		{"both strided", 5, 2, 7, 13, 31, false, false},
		{"stride larger than an element run", 64, 1, 4, 4, 193, false, false},
		{"one element", 7, 9, 1, 1, 1, false, false},
		{"zero elements", 2, 2, 0, 0, 1, false, false},
		{"nbi both strided", 3, 2, 9, 17, 25, true, false},
		{"to itself", 2, 3, 6, 16, 11, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
				me, n := pe.ID(), pe.NumPEs()
				target := (me + 1) % n
				if c.fromSelf {
					target = me
				}
				const fill = -1
				dst := must(pgas.Alloc[int64](ctx, pe, c.dstN))
				check(pgas.Put(pe, dst, seq(c.dstN, func(int) int64 { return fill }), me))
				check(pe.Barrier(ctx))
				src := seq(c.srcLen, func(i int) int64 { return int64(me*1000 + i) })
				put := pgas.IPut[int64]
				if c.nbi {
					put = pgas.IPutNBI[int64]
				}
				check(put(pe, dst, src, c.tst, c.sst, c.n, target))
				check(pe.Quiet())
				check(pe.Barrier(ctx))
				// What landed here, from the PE that targets this one.
				from := (me + n - 1) % n
				if c.fromSelf {
					from = me
				}
				got := make([]int64, c.dstN)
				check(pgas.Get(pe, got, dst, me))
				for i, v := range got {
					want := int64(fill)
					if i%c.tst == 0 && i/c.tst < c.n {
						want = int64(from*1000 + i/c.tst*c.sst)
					}
					if v != want {
						return fmt.Errorf("IPut from PE %d: dst[%d] = %d, want %d", from, i, v, want)
					}
				}
				// Read back the target's copy with the strides swapped: the
				// elements this PE put, packed at stride c.sst again.
				back := seq(c.srcLen, func(int) int64 { return fill })
				get := pgas.IGet[int64]
				if c.nbi {
					get = pgas.IGetNBI[int64]
				}
				check(get(pe, back, dst, c.sst, c.tst, c.n, target))
				check(pe.Quiet())
				for i, v := range back {
					want := int64(fill)
					if i%c.sst == 0 && i/c.sst < c.n {
						want = src[i]
					}
					if v != want {
						return fmt.Errorf("IGet from PE %d: back[%d] = %d, want %d", target, i, v, want)
					}
				}
				return pe.Barrier(ctx)
			})
		})
	}
}

// Strided routines reject bad strides, counts and bounds, naming them,
// and write nothing.
func (ck *kit) testStridedBadInput(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		dst := must(pgas.AllocZeroed[int32](ctx, pe, 10))
		if pe.ID() == 1 {
			return pe.Barrier(ctx)
		}
		src := seq(10, func(i int) int32 { return int32(i + 1) })
		cases := []struct {
			name string
			err  error
			want error
			text string
		}{
			{"zero dst stride", pgas.IPut(pe, dst, src, 0, 1, 2, 1), pgas.ErrBadArg, "destination stride"},
			{"negative src stride", pgas.IPut(pe, dst, src, 1, -2, 2, 1), pgas.ErrBadArg, "source stride"},
			{"negative count", pgas.IPut(pe, dst, src, 1, 1, -1, 1), pgas.ErrBadSize, "nelems"},
			{"past the Sym's end", pgas.IPut(pe, dst, src, 3, 1, 5, 1), pgas.ErrBadSize, "destination has 10"},
			{"past the slice's end", pgas.IPut(pe, dst, src, 1, 3, 5, 1), pgas.ErrBadSize, "source has 10"},
			{"overflowing stride", pgas.IPut(pe, dst, src, 1<<62, 1, 3, 1), pgas.ErrBadSize, "more than MaxInt"},
			{"get past the Sym's end", pgas.IGet(pe, src, dst, 1, 4, 4, 1), pgas.ErrBadSize, "source has 10"},
			{"get zero stride", pgas.IGet(pe, src, dst, 0, 1, 1, 1), pgas.ErrBadArg, "destination stride"},
			{"bad PE", pgas.IPut(pe, dst, src, 1, 1, 1, 2), pgas.ErrBadPE, "PE 2"},
			{"zero Sym", pgas.IPut(pe, pgas.Sym[int32]{}, src, 1, 1, 1, 1), pgas.ErrBadSym, "zero Sym"},
		}
		for _, c := range cases {
			if !errors.Is(c.err, c.want) || !contains(c.err, c.text) {
				return fmt.Errorf("%s: got %v, want %v naming %q", c.name, c.err, c.want, c.text)
			}
		}
		check(pe.Barrier(ctx))
		got := make([]int32, 10)
		check(pgas.Get(pe, got, dst, 1))
		for i, v := range got {
			if v != 0 {
				return fmt.Errorf("a rejected call wrote element %d on PE 1: %d", i, v)
			}
		}
		return nil
	})
}

// Ptr gives direct access exactly where the backend's memory is host
// memory of this process; PEAccessible and AddrAccessible say what the
// RMA routines reach.
func (ck *kit) testPeerPointers(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		s := must(pgas.AllocZeroed[uint32](ctx, pe, 4))
		me, n := pe.ID(), pe.NumPEs()
		right := (me + 1) % n
		view := must(pgas.Ptr(pe, s, right))
		if pe.HostMemory() {
			if len(view) != 4 {
				return fmt.Errorf("Ptr to PE %d on a host-memory backend: %v", right, view)
			}
			view[me%4] = uint32(100 + me) // a plain store into the neighbour's copy
		} else if view != nil {
			return fmt.Errorf("Ptr into device memory returned a slice")
		}
		check(pe.Barrier(ctx))
		if pe.HostMemory() {
			left := (me + n - 1) % n
			if v := must(pgas.G(pe, s.Index(left%4), me)); v != uint32(100+left) {
				return fmt.Errorf("store through Ptr from PE %d: read %d", left, v)
			}
		}
		if _, err := pgas.Ptr(pe, s, n); !errors.Is(err, pgas.ErrBadPE) {
			return fmt.Errorf("Ptr to PE %d: %v", n, err)
		}
		for q := range n {
			if !pe.PEAccessible(q) || !pgas.AddrAccessible(pe, s, q) {
				return fmt.Errorf("PE %d or s on it reported not accessible", q)
			}
		}
		if pe.PEAccessible(n) || pe.PEAccessible(-1) || pgas.AddrAccessible(pe, s, n) || pgas.AddrAccessible(pe, pgas.Sym[uint32]{}, 0) {
			return fmt.Errorf("an invalid PE or Sym reported accessible")
		}
		check(pe.Barrier(ctx))
		check(pgas.Free(ctx, pe, s))
		if pgas.AddrAccessible(pe, s, 0) {
			return fmt.Errorf("a freed Sym reported accessible")
		}
		return nil
	})
}
