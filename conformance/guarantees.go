package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// Regression tests of the promises in pgas's "Guarantees" section, each
// from a program that once broke one (issue 34). The randomized test
// (faults.go) looks for the same class of defect in random programs.

// A Put from another PE racing Free never lands in the next allocation
// of the same bytes: Free returns on no member before every member's
// operations on the allocation are over, so the next AllocZeroed's zeroes
// stay.
func testPutFromPeerRacingFree(t *testing.T) {
	run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		peer := 1 - pe.ID()
		ones := make([]int64, 512)
		for i := range ones {
			ones[i] = -1
		}
		got := make([]int64, 512)
		for round := range 100 {
			old := must(pgas.AllocZeroed[int64](ctx, pe, 512))
			check(pe.Barrier(ctx))
			done := make(chan error, 1)
			go func() {
				for {
					if err := pgas.Put(pe, old, ones, peer); err != nil {
						done <- err
						return
					}
				}
			}()
			// PE 1 frees at once; PE 0 a little later, so that PE 1's
			// Free and next allocation overlap PE 0's puts into PE 1.
			check(pgas.Free(ctx, pe, old))
			fresh := must(pgas.AllocZeroed[int64](ctx, pe, 512))
			if err := <-done; !errors.Is(err, pgas.ErrBadSym) {
				return fmt.Errorf("round %d: the racing Put ended with %v, want ErrBadSym", round, err)
			}
			check(pe.Barrier(ctx))
			check(pgas.Get(pe, got, fresh, pe.ID()))
			for i, v := range got {
				if v != 0 {
					return fmt.Errorf("round %d: the new allocation (offset %d, the old one's %d) holds %d at %d: PE %d's Put after Free landed in it", round, fresh.Offset(), old.Offset(), v, i, peer)
				}
			}
			check(pgas.Free(ctx, pe, fresh))
		}
		return nil
	})
}

// A collective allocation that one member enters with a context already
// ended fails on every member, and that member's next collective cannot
// disturb a member still finishing the allocation before: every member got
// the same outcome from each call.
func testAllocCancelledThenNextCall(t *testing.T) {
	oneProcess(t)
	const n = 4
	for round := range 50 {
		var results [n][3]error
		_ = runErr(t, n, func(ctx context.Context, pe *pgas.PE) error {
			me := pe.ID()
			_, results[me][0] = pgas.Alloc[int64](ctx, pe, 8)
			actx := ctx
			if me == 0 {
				c, cancel := context.WithCancel(ctx)
				cancel()
				actx = c
			}
			_, results[me][1] = pgas.Alloc[int64](actx, pe, 8)
			_, results[me][2] = pgas.Alloc[int64](ctx, pe, 8)
			return nil
		})
		for call := range 3 {
			for me := 1; me < n; me++ {
				if (results[me][call] == nil) != (results[0][call] == nil) {
					t.Fatalf("round %d, call %d: PE 0 got %v, PE %d got %v", round, call+1, results[0][call], me, results[me][call])
				}
			}
		}
		if results[0][0] != nil || results[0][1] == nil {
			t.Fatalf("round %d: calls 1 and 2 on PE 0: %v, %v; want success, then failure", round, results[0][0], results[0][1])
		}
	}
}

// A PE that fails in the middle of a loop of collectives gives every other
// member the same error: a *CollectiveError naming it and wrapping its
// *PEError, from whichever synchronisation they were in or entered next.
func testFailureMidLoopSameError(t *testing.T) {
	oneProcess(t)
	const n, failer, at = 8, 3, 50
	loops := []struct {
		name string
		step func(ctx context.Context, pe *pgas.PE) error
	}{
		{"barrier", func(ctx context.Context, pe *pgas.PE) error { return pe.Barrier(ctx) }},
		{"alloc+free", func(ctx context.Context, pe *pgas.PE) error {
			s, err := pgas.Alloc[int64](ctx, pe, 4)
			if err != nil {
				return err
			}
			return pgas.Free(ctx, pe, s)
		}},
	}
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			for round := range 20 {
				var errs [n]error
				_ = runErr(t, n, func(ctx context.Context, pe *pgas.PE) error {
					for i := 0; ; i++ {
						if pe.ID() == failer && i == at {
							panic("failing on purpose")
						}
						if err := l.step(ctx, pe); err != nil {
							errs[pe.ID()] = err
							return err
						}
					}
				})
				var first *pgas.CollectiveError
				for me, err := range errs {
					if me == failer {
						continue
					}
					var ce *pgas.CollectiveError
					var pe *pgas.PEError
					if !errors.As(err, &ce) || !errors.As(err, &pe) || pe.PE != failer {
						t.Fatalf("round %d: PE %d got %v; want a *CollectiveError wrapping PE %d's *PEError", round, me, err, failer)
					}
					if first == nil {
						first = ce
					} else if ce.Error() != first.Error() {
						t.Fatalf("round %d: members got different errors:\n%v\n%v", round, first, ce)
					}
				}
			}
		})
	}
}

// An argument invalid on one member only (a destination too short on
// it) fails every member's call, and the team stays usable.
func testArgumentInvalidOnOneMember(t *testing.T) {
	n := 3
	if p := procs(); p > 1 {
		n = p
	}
	const k = 4
	calls := []struct {
		name string
		// call is the collective with dst cut to dstLen elements.
		call func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], dstLen int) error
		full int // the dst length the call needs
	}{
		{"collect", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			_, err := pgas.Collect(ctx, tm, dst.Slice(0, l), src, k)
			return err
		}, k * n},
		{"fcollect", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			return pgas.FCollect(ctx, tm, dst.Slice(0, l), src, k)
		}, k * n},
		{"broadcast", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			return pgas.Broadcast(ctx, tm, dst.Slice(0, l), src, k, 0)
		}, k},
		{"reduce", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			return pgas.ReduceAll(ctx, tm, pgas.Sum, dst.Slice(0, l), src, k)
		}, k},
		{"alltoall", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			return pgas.AllToAll(ctx, tm, dst.Slice(0, l), src, 1)
		}, n},
		{"alltoalls", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			return pgas.AllToAlls(ctx, tm, dst.Slice(0, l), src, 2, 1, 1)
		}, 2*n - 1},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			run(t, n, func(ctx context.Context, pe *pgas.PE) error {
				tm := pe.TeamWorld()
				dst := must(pgas.AllocZeroed[int64](ctx, pe, 4*k*n))
				src := must(pgas.AllocZeroed[int64](ctx, pe, 4*k*n))
				l := c.full
				if pe.ID() == 1 {
					l-- // too short, on this member only
				}
				err := c.call(ctx, tm, dst, src, l)
				if err == nil || !(errors.Is(err, pgas.ErrBadArg) || errors.Is(err, pgas.ErrBadSize)) {
					return fmt.Errorf("%s with dst too short on PE 1: PE %d got %v, want an argument error", c.name, pe.ID(), err)
				}
				if err := c.call(ctx, tm, dst, src, c.full); err != nil {
					return fmt.Errorf("%s with good arguments afterwards: %w", c.name, err)
				}
				return nil
			})
		})
	}
}
