package conformance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// Members that disagree on a collective's arguments (count, root,
// operator, element type, strides; a data-moving collective's bytes) all
// fail with ErrCollectiveMismatch,
// the same error on every member, naming the argument and who passed what;
// the team stays usable. OpenSHMEM leaves this undefined.
func (ck *kit) testCollectiveArgumentsDiffer(t *testing.T) {
	n := ck.perProcess(3)
	cases := []struct {
		name  string
		field string // the argument the error must name
		call  func(ctx context.Context, pe *pgas.PE, tm *pgas.Team, a, b pgas.Sym[int64], f pgas.Sym[float64]) error
	}{
		{"reduce count", "count", func(ctx context.Context, pe *pgas.PE, tm *pgas.Team, a, b pgas.Sym[int64], _ pgas.Sym[float64]) error {
			cnt := 8
			if pe.ID() == 1 {
				cnt = 4
			}
			return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, b, a, cnt)
		}},
		{"reduce operator", "operator", func(ctx context.Context, pe *pgas.PE, tm *pgas.Team, a, b pgas.Sym[int64], _ pgas.Sym[float64]) error {
			op := pgas.ReduceSum
			if pe.ID() == n-1 {
				op = pgas.ReduceMax
			}
			return pgas.ReduceAll(ctx, tm, op, b, a, 8)
		}},
		{"reduce element type", "element type", func(ctx context.Context, pe *pgas.PE, tm *pgas.Team, a, b pgas.Sym[int64], f pgas.Sym[float64]) error {
			if pe.ID() == 0 {
				return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, f, f, 8)
			}
			return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, b, a, 8)
		}},
		{"broadcast root", "root", func(ctx context.Context, pe *pgas.PE, tm *pgas.Team, a, b pgas.Sym[int64], _ pgas.Sym[float64]) error {
			return pgas.Broadcast(ctx, tm, b, a, 8, pe.ID()) // each its own root
		}},
		{"fcollect bytes", "bytes", func(ctx context.Context, pe *pgas.PE, tm *pgas.Team, a, b pgas.Sym[int64], _ pgas.Sym[float64]) error {
			return pgas.FCollect(ctx, tm, b, a, 1+pe.ID()%2)
		}},
		{"alltoalls strides", "source stride", func(ctx context.Context, pe *pgas.PE, tm *pgas.Team, a, b pgas.Sym[int64], _ pgas.Sym[float64]) error {
			sst := 1
			if pe.ID() == 0 {
				sst = 2
			}
			return pgas.AllToAlls(ctx, tm, b, a, 2, sst, 2) // strided: elements and their type agree
		}},
	}
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		tm := pe.TeamWorld()
		a := must(pgas.AllocZeroed[int64](ctx, pe, 64))
		b := must(pgas.AllocZeroed[int64](ctx, pe, 64))
		f := must(pgas.AllocZeroed[float64](ctx, pe, 64))
		boxes := must(pgas.AllocZeroed[uint64](ctx, pe, n*len(cases))) // one fresh box per case (swapCodes)
		for i, c := range cases {
			box := boxes.Slice(i*n, (i+1)*n)
			err := c.call(ctx, pe, tm, a, b, f)
			if !errors.Is(err, pgas.ErrCollectiveMismatch) || errors.Is(err, pgas.ErrTeamBroken) {
				return fmt.Errorf("%s: %v, want ErrCollectiveMismatch and a usable team", c.name, err)
			}
			if !strings.Contains(err.Error(), "differ: "+c.field+": ") {
				return fmt.Errorf("%s: %v: does not name the %s", c.name, err, c.field)
			}
			if pe.ID() == 0 {
				t.Logf("%s: %v", c.name, err)
			}
			if q, xerr := differingPE(ctx, pe, box, errCode(err)); xerr != nil || q >= 0 {
				return cmp.Or(xerr, fmt.Errorf("%s: PE %d's error differs from this one's: %v", c.name, q, err))
			}
		}
		// The team works on: the same reduction with the same arguments.
		check(pgas.Put(pe, a, seq(8, func(i int) int64 { return int64(i) }), pe.ID()))
		check(pgas.ReduceAll(ctx, tm, pgas.ReduceSum, b, a, 8))
		if err := sumAfterMismatches(pe, b, n); err != nil {
			return err
		}
		return pe.Barrier(ctx)
	})
}

// The same on a stream: members that enqueue a collective with different
// arguments all fail at Stream.Sync with ErrCollectiveMismatch, the same
// error on every member, naming the argument (on a GPU stream the device
// phase that opens the collective finds it); the team stays usable. The
// cases cover the one-kernel and the split (open, data, close) forms, and
// a member in a different collective, which breaks the team on the host
// (CollectiveKindsMismatch) and not on a GPU, so it runs last, on a team
// of its own.
func (ck *kit) testStreamCollectiveArgumentsDiffer(t *testing.T) {
	n := ck.perProcess(3)
	const big = 40 << 10 // float64s: 320 KiB, past a GPU stream's one-kernel form
	type syms struct {
		a, b pgas.Sym[int64]
		f    pgas.Sym[float64]
	}
	cases := []struct {
		name  string
		field string // the argument the error must name; "" for a different collective
		call  func(st *pgas.Stream, pe *pgas.PE, tm *pgas.Team, s syms) error
	}{
		{"reduce count", "count", func(st *pgas.Stream, pe *pgas.PE, tm *pgas.Team, s syms) error {
			cnt := 8
			if pe.ID() == 1 {
				cnt = 4
			}
			return pgas.ReduceAllOnStream(st, tm, pgas.ReduceSum, s.b, s.a, cnt)
		}},
		{"reduce operator", "operator", func(st *pgas.Stream, pe *pgas.PE, tm *pgas.Team, s syms) error {
			op := pgas.ReduceSum
			if pe.ID() == n-1 {
				op = pgas.ReduceMax
			}
			return pgas.ReduceAllOnStream(st, tm, op, s.b, s.a, 8)
		}},
		{"reduce element type", "element type", func(st *pgas.Stream, pe *pgas.PE, tm *pgas.Team, s syms) error {
			if pe.ID() == 0 {
				return pgas.ReduceAllOnStream(st, tm, pgas.ReduceSum, s.f, s.f, 8)
			}
			return pgas.ReduceAllOnStream(st, tm, pgas.ReduceSum, s.b, s.a, 8)
		}},
		{"broadcast root", "root", func(st *pgas.Stream, pe *pgas.PE, tm *pgas.Team, s syms) error {
			return pgas.BroadcastOnStream(st, tm, s.b, s.a, 8, pe.ID()) // each its own root
		}},
		{"fcollect bytes", "bytes", func(st *pgas.Stream, pe *pgas.PE, tm *pgas.Team, s syms) error {
			return pgas.FCollectOnStream(st, tm, s.b, s.a, 1+pe.ID()%2)
		}},
		{"split and one-kernel reduce", "count", func(st *pgas.Stream, pe *pgas.PE, tm *pgas.Team, s syms) error {
			cnt := big
			if pe.ID() == 0 {
				cnt = 8
			}
			return pgas.ReduceAllOnStream(st, tm, pgas.ReduceSum, s.f, s.f, cnt)
		}},
		{"barrier against broadcast", "", func(st *pgas.Stream, pe *pgas.PE, tm *pgas.Team, s syms) error {
			if pe.ID() == 0 {
				return pgas.BarrierOnStream(st, tm)
			}
			return pgas.BroadcastOnStream(st, tm, s.b, s.a, 8, 0)
		}},
	}
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		world := pe.TeamWorld()
		s := syms{must(pgas.AllocZeroed[int64](ctx, pe, 64)), must(pgas.AllocZeroed[int64](ctx, pe, 64)), must(pgas.AllocZeroed[float64](ctx, pe, big))}
		boxes := must(pgas.AllocZeroed[uint64](ctx, pe, n*len(cases)))
		own := must(world.Split(ctx, 0, 1, n)) // the last case's
		for i, c := range cases {
			tm := world
			if c.field == "" {
				tm = own
			}
			st := must(pgas.NewStream(pe))
			check(c.call(st, pe, tm, s))
			err := st.Sync(ctx)
			if again := st.Sync(ctx); !errors.Is(again, pgas.ErrCollectiveMismatch) {
				return fmt.Errorf("%s: a second Sync returned %v, want the stream failed", c.name, again)
			}
			_ = st.Close(ctx) // its error is err
			if !errors.Is(err, pgas.ErrCollectiveMismatch) {
				return fmt.Errorf("%s: Sync returned %v, want ErrCollectiveMismatch", c.name, err)
			}
			_, notGPU := pe.GPU()
			if c.field != "" && !strings.Contains(err.Error(), "differ: "+c.field+": ") ||
				c.field == "" && notGPU == nil && !strings.Contains(err.Error(), "differ: collective: ") {
				return fmt.Errorf("%s: %v: does not name the %s", c.name, err, cmp.Or(c.field, "collective"))
			}
			if pe.ID() == 0 {
				t.Logf("%s: %v", c.name, err)
			}
			if q, xerr := differingPE(ctx, pe, boxes.Slice(i*n, (i+1)*n), errCode(err)); xerr != nil || q >= 0 {
				return cmp.Or(xerr, fmt.Errorf("%s: PE %d's error differs from this one's: %v", c.name, q, err))
			}
		}
		// The world works on: the same reduction with the same arguments,
		// on a new stream.
		check(pgas.Put(pe, s.a, seq(8, func(i int) int64 { return int64(i) }), pe.ID()))
		check(pe.Barrier(ctx))
		st := must(pgas.NewStream(pe))
		check(pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, s.b, s.a, 8))
		check(st.Close(ctx))
		if err := sumAfterMismatches(pe, s.b, n); err != nil {
			return err
		}
		return pe.Barrier(ctx)
	})
}

// sumAfterMismatches checks b, the sum over n members of 0 … 7 that the
// tests above reduce once the mismatches are behind them: the team works.
func sumAfterMismatches(pe *pgas.PE, b pgas.Sym[int64], n int) error {
	for i, v := range read(pe, b)[:8] {
		if v != int64(i*n) {
			return fmt.Errorf("the reduction after the mismatches: b[%d] = %d, want %d", i, v, i*n)
		}
	}
	return nil
}

// One call meets one verdict on every path: collectives that only move
// data agree on bytes, on the blocking form as on a stream (and in a
// kernel, whose *mem routines take bytes), so an int64 broadcast of 4 and
// an int32 one of 8 agree and move the bytes; a reduction agrees on its
// elements and their type, so an int64 sum of 4 and an int32 one of 8
// fail on both paths, naming the element type.
func (ck *kit) testCollectiveUnitsAgree(t *testing.T) {
	n := ck.perProcess(2)
	ck.needPEs(t, 2)
	for _, form := range []string{"blocking", "stream"} {
		t.Run(form, func(t *testing.T) {
			ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
				tm := pe.TeamWorld()
				// One allocation each, seen as int64s and as int32s: members
				// name the same symmetric bytes in other elements.
				src64, dst64 := must(pgas.AllocZeroed[int64](ctx, pe, 8)), must(pgas.AllocZeroed[int64](ctx, pe, 8))
				src32, dst32 := must(pgas.Lookup[int32](pe, src64.Offset(), 16)), must(pgas.Lookup[int32](pe, dst64.Offset(), 16))
				check(pgas.Put(pe, src64, seq(4, func(i int) int64 { return int64(i+1) << 32 }), pe.ID()))
				check(pe.Barrier(ctx))
				wide := pe.ID()%2 == 0
				run := func(blocking func() error, onStream func(st *pgas.Stream) error) error {
					if form == "blocking" {
						return blocking()
					}
					st := must(pgas.NewStream(pe))
					check(onStream(st))
					err := st.Sync(ctx)
					_ = st.Close(ctx)
					return err
				}
				// The same 32 bytes from root 0 (an even PE: int64s).
				err := run(func() error {
					if wide {
						return pgas.Broadcast(ctx, tm, dst64, src64, 4, 0)
					}
					return pgas.Broadcast(ctx, tm, dst32, src32, 8, 0)
				}, func(st *pgas.Stream) error {
					if wide {
						return pgas.BroadcastOnStream(st, tm, dst64, src64, 4, 0)
					}
					return pgas.BroadcastOnStream(st, tm, dst32, src32, 8, 0)
				})
				if err != nil {
					return fmt.Errorf("%s: a broadcast of the same bytes in other elements: %v, want it to agree", form, err)
				}
				if !wide {
					got := read(pe, dst32)[:8]
					for i := range 4 { // root 0's int64s i+1 << 32, little endian
						if got[2*i] != 0 || got[2*i+1] != int32(i+1) {
							return fmt.Errorf("%s: the broadcast's bytes: %v", form, got)
						}
					}
				}
				check(pe.Barrier(ctx))
				err = run(func() error {
					if wide {
						return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, dst64, src64, 4)
					}
					return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, dst32, src32, 8)
				}, func(st *pgas.Stream) error {
					if wide {
						return pgas.ReduceAllOnStream(st, tm, pgas.ReduceSum, dst64, src64, 4)
					}
					return pgas.ReduceAllOnStream(st, tm, pgas.ReduceSum, dst32, src32, 8)
				})
				if !errors.Is(err, pgas.ErrCollectiveMismatch) || !strings.Contains(err.Error(), "element type: ") {
					return fmt.Errorf("%s: a sum of other elements over the same bytes: %v, want ErrCollectiveMismatch naming the element type", form, err)
				}
				return pe.Barrier(ctx)
			})
		})
	}
}

// A reduction whose dst and src overlap without being the same elements
// is refused alike on the blocking path and on a stream (ErrBadArg on
// every member, the team usable); the same elements are allowed.
func (ck *kit) testReduceOverlapRefused(t *testing.T) {
	n := ck.perProcess(2)
	ck.needPEs(t, 2)
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		tm := pe.TeamWorld()
		a := must(pgas.AllocZeroed[int64](ctx, pe, 16))
		dst, src := a.Slice(4, 12), a.Slice(0, 8) // overlapping by 4
		if err := pgas.ReduceAll(ctx, tm, pgas.ReduceSum, dst, src, 8); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("ReduceAll with overlapping dst and src: %v, want ErrBadArg", err)
		}
		st := must(pgas.NewStream(pe))
		err := pgas.ReduceAllOnStream(st, tm, pgas.ReduceSum, dst, src, 8)
		_ = st.Close(ctx)
		if !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("ReduceAllOnStream with overlapping dst and src: %v, want ErrBadArg", err)
		}
		return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, src, src, 8) // in place: allowed, and the team works
	})
}
