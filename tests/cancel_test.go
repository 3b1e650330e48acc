package tests

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// collectives are the team's collective calls, each given a team of all
// PEs, with Syms from prepare, so that the cancellation tests can run
// every one of them.
type collArgs struct {
	a, b  pgas.Sym[int64] // 8·n elements each
	freed pgas.Sym[int64] // an allocation Free may take
	n     int             // team size
}

var collectives = []struct {
	name  string
	world bool // runs on the world team (allocation), not the split team
	call  func(ctx context.Context, pe *pgas.PE, tm *pgas.Team, x collArgs) error
}{
	{"alloc", true, func(ctx context.Context, pe *pgas.PE, _ *pgas.Team, _ collArgs) error {
		_, err := pgas.Alloc[int64](ctx, pe, 16)
		return err
	}},
	{"free", true, func(ctx context.Context, pe *pgas.PE, _ *pgas.Team, x collArgs) error {
		return pgas.Free(ctx, pe, x.freed)
	}},
	{"barrier", false, func(ctx context.Context, _ *pgas.PE, tm *pgas.Team, _ collArgs) error { return tm.Barrier(ctx) }},
	{"sync", false, func(ctx context.Context, _ *pgas.PE, tm *pgas.Team, _ collArgs) error { return tm.Sync(ctx) }},
	{"broadcast", false, func(ctx context.Context, _ *pgas.PE, tm *pgas.Team, x collArgs) error {
		return pgas.Broadcast(ctx, tm, x.a, x.b, 8, 0)
	}},
	{"reduce", false, func(ctx context.Context, _ *pgas.PE, tm *pgas.Team, x collArgs) error {
		return pgas.ReduceAll(ctx, tm, pgas.Sum, x.a, x.b, 8)
	}},
	{"fcollect", false, func(ctx context.Context, _ *pgas.PE, tm *pgas.Team, x collArgs) error {
		return pgas.FCollect(ctx, tm, x.a, x.b, 8)
	}},
	{"alltoall", false, func(ctx context.Context, _ *pgas.PE, tm *pgas.Team, x collArgs) error {
		return pgas.AllToAll(ctx, tm, x.a, x.b, 8)
	}},
	{"split", false, func(ctx context.Context, _ *pgas.PE, tm *pgas.Team, x collArgs) error {
		nt, err := tm.Split(ctx, 0, 1, x.n)
		nt.Destroy()
		return err
	}},
}

// A collective that one member abandons (its context ends before, while
// or after the others arrive) completes on every member or fails on every
// member with the same *CollectiveError; a failed one leaves the team
// broken, so that later calls fail rather than return early or hand out
// different offsets; one that completed leaves it fully usable.
func TestCollectiveCancelledOnOneMember(t *testing.T) {
	n := 4
	if p := procs(t); p > 1 {
		n = p
	}
	const quitter = 1
	timings := []struct {
		name string
		// quit is the quitter's context for the call; others is how
		// long the other members wait before they call.
		quit   func() (context.Context, context.CancelFunc)
		others time.Duration
		fails  bool // must fail (else: completes or fails, consistently)
	}{
		{"before", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, 20 * time.Millisecond, true},
		{"while", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 10*time.Millisecond)
		}, 60 * time.Millisecond, true},
		{"after", func() (context.Context, context.CancelFunc) {
			time.Sleep(20 * time.Millisecond) // the others are waiting
			return context.WithTimeout(context.Background(), 50*time.Microsecond)
		}, 0, false},
	}
	for _, c := range collectives {
		for _, tm := range timings {
			t.Run(c.name+"/"+tm.name, func(t *testing.T) {
				errs := make([]error, n)
				next := make([]error, n)
				offs := make([]int64, n)
				err := runErr(t, n, func(ctx context.Context, pe *pgas.PE) error {
					team := must(pe.TeamWorld().Split(ctx, 0, 1, n))
					x := collArgs{n: n,
						a:     must(pgas.AllocZeroed[int64](ctx, pe, 8*n)),
						b:     must(pgas.AllocZeroed[int64](ctx, pe, 8*n)),
						freed: must(pgas.AllocZeroed[int64](ctx, pe, 8)),
					}
					check(pe.Barrier(ctx))
					callCtx := ctx
					if pe.ID() == quitter {
						qctx, cancel := tm.quit()
						defer cancel()
						callCtx = qctx
					} else {
						time.Sleep(tm.others)
					}
					errs[pe.ID()] = c.call(callCtx, pe, team, x)
					// The next call on the same team: an allocation for the
					// world team (its offset must agree), a barrier else.
					if c.world {
						s, err := pgas.Alloc[int64](ctx, pe, 4)
						next[pe.ID()], offs[pe.ID()] = err, s.Offset()
					} else {
						next[pe.ID()] = team.Barrier(ctx)
					}
					return nil
				})
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				checkConsistent(t, errs, next, offs, quitter, tm.fails)
			})
		}
	}
}

// checkConsistent asserts that every member's call ended the same way.
func checkConsistent(t *testing.T, errs, next []error, offs []int64, quitter int, mustFail bool) {
	t.Helper()
	if errs[0] == nil {
		if mustFail {
			t.Fatalf("the collective completed; want it to fail on every member")
		}
		for pe, err := range errs {
			if err != nil {
				t.Errorf("PE %d: %v, while PE 0's call completed", pe, err)
			}
			if next[pe] != nil {
				t.Errorf("PE %d: the next call after a completed collective: %v", pe, next[pe])
			}
			if offs[pe] != offs[0] {
				t.Errorf("PE %d's next allocation is at offset %d, PE 0's at %d", pe, offs[pe], offs[0])
			}
		}
		return
	}
	var ce0 *pgas.CollectiveError
	if !errors.As(errs[0], &ce0) {
		t.Fatalf("PE 0: %v, want a *pgas.CollectiveError", errs[0])
	}
	for pe, err := range errs {
		var ce *pgas.CollectiveError
		switch {
		case !errors.As(err, &ce):
			t.Errorf("PE %d: %v, want a *pgas.CollectiveError", pe, err)
			continue
		case err.Error() != errs[0].Error():
			t.Errorf("PE %d: %q\n       PE 0: %q", pe, err, errs[0])
		case !errors.Is(err, pgas.ErrTeamBroken):
			t.Errorf("PE %d: %v does not wrap ErrTeamBroken", pe, err)
		case ce.PE != quitter:
			t.Errorf("PE %d: the error names PE %d, want %d", pe, ce.PE, quitter)
		}
		if pe == quitter && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the quitting PE's error %v does not wrap its context's error", err)
		}
		if !errors.Is(next[pe], pgas.ErrTeamBroken) {
			t.Errorf("PE %d: the next call on the broken team returned %v, want ErrTeamBroken", pe, next[pe])
		}
	}
}

// A member that calls another collective than the others (an allocation
// against a barrier) fails there, and so do the others, with the same
// error; the team is broken.
func TestCollectiveKindsMismatch(t *testing.T) {
	n := 3
	if p := procs(t); p > 1 {
		n = p
	}
	var mu sync.Mutex
	errs := make([]error, n)
	next := make([]error, n)
	err := runErr(t, n, func(ctx context.Context, pe *pgas.PE) error {
		var err error
		if pe.ID() == n-1 {
			err = pe.Barrier(ctx)
		} else {
			_, err = pgas.Alloc[int64](ctx, pe, 8)
		}
		_, nerr := pgas.Alloc[int64](ctx, pe, 8)
		mu.Lock()
		errs[pe.ID()], next[pe.ID()] = err, nerr
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pe, err := range errs {
		if !errors.Is(err, pgas.ErrCollectiveMismatch) || !errors.Is(err, pgas.ErrTeamBroken) {
			t.Errorf("PE %d: %v, want ErrCollectiveMismatch and ErrTeamBroken", pe, err)
		} else if err.Error() != errs[0].Error() {
			t.Errorf("PE %d: %q, PE 0: %q", pe, err, errs[0])
		}
		if !errors.Is(next[pe], pgas.ErrTeamBroken) {
			t.Errorf("PE %d: allocation after the mismatch: %v, want ErrTeamBroken", pe, next[pe])
		}
	}
}

// Invalid arguments on one member only: every member's call fails (that
// member with its own error), no one waits forever, and the team stays
// usable.
func TestCollectiveBadArgumentOnOneMember(t *testing.T) {
	n := 3
	if p := procs(t); p > 1 {
		n = p
	}
	run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		tm := pe.TeamWorld()
		s := must(pgas.AllocZeroed[int64](ctx, pe, 4))
		root := 0
		if pe.ID() == 1 {
			root = n // out of range, on this member only
		}
		err := pgas.Broadcast(ctx, tm, s, s.Slice(0, 0).Slice(0, 0), 0, root)
		switch {
		case pe.ID() == 1 && !errors.Is(err, pgas.ErrBadPE):
			return fmt.Errorf("the bad member got %v, want ErrBadPE", err)
		case pe.ID() != 1 && !errors.Is(err, pgas.ErrBadArg):
			return fmt.Errorf("a good member got %v, want ErrBadArg", err)
		}
		return pgas.ReduceAll(ctx, tm, pgas.Sum, s, s, 4)
	})
}

// Nil handles are errors, not nil dereferences.
func TestNilHandles(t *testing.T) {
	var pe *pgas.PE
	var tm *pgas.Team
	ctx := context.Background()
	calls := map[string]error{
		"Alloc":      func() error { _, err := pgas.Alloc[int64](ctx, pe, 1); return err }(),
		"Barrier":    pe.Barrier(ctx),
		"Quiet":      pe.Quiet(),
		"Fence":      pe.Fence(),
		"Team.Sync":  tm.Sync(ctx),
		"Broadcast":  pgas.Broadcast(ctx, tm, pgas.Sym[int64]{}, pgas.Sym[int64]{}, 1, 0),
		"ReduceAll":  pgas.ReduceAll(ctx, tm, pgas.Sum, pgas.Sym[int64]{}, pgas.Sym[int64]{}, 1),
		"Put":        pgas.Put(pe, pgas.Sym[int64]{}, []int64{1}, 0),
		"PutSignal":  pgas.PutSignal(pe, pgas.Sym[int64]{}, []int64{1}, pgas.Sym[uint64]{}, 1, pgas.SignalSet, 0),
		"SignalOp":   pgas.SignalOp(pe, pgas.Sym[uint64]{}, 1, pgas.SignalSet, 0),
		"Team.Split": func() error { _, err := tm.Split(ctx, 0, 1, 1); return err }(),
		"WorldPE":    func() error { _, err := tm.WorldPE(0); return err }(),
		"Wait": func() error {
			_, err := pgas.Wait(ctx, pe, pgas.WaitAll, pgas.WaitSet[uint64]{Cmp: pgas.CmpEQ})
			return err
		}(),
	}
	for name, err := range calls {
		if !errors.Is(err, pgas.ErrBadArg) {
			t.Errorf("%s with a nil handle: %v, want ErrBadArg", name, err)
		}
	}
	if pe.ID() != -1 || pe.NumPEs() != 0 || tm.MyPE() != -1 || tm.NumPEs() != 0 || tm.TeamPE(0) != -1 || tm.TranslatePE(0, nil) != -1 {
		t.Error("the accessors of nil handles do not report an invalid PE")
	}
	tm.Destroy() // no panic
}

// Deadlines that end just as the last member arrives, many times over:
// whichever way each race goes, every member's barrier ends the same way.
func TestCollectiveCancelRace(t *testing.T) {
	n := 3
	if p := procs(t); p > 1 {
		n = p
	}
	const rounds = 200
	outcome := make([][]error, rounds)
	for i := range outcome {
		outcome[i] = make([]error, n)
	}
	run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		for i := range rounds {
			tm := must(pe.TeamWorld().Split(ctx, 0, 1, n))
			callCtx, cancel := ctx, context.CancelFunc(func() {})
			delay := time.Duration(i%20) * 10 * time.Microsecond
			if pe.ID() == 0 {
				callCtx, cancel = context.WithTimeout(ctx, 100*time.Microsecond)
			} else {
				time.Sleep(delay)
			}
			outcome[i][pe.ID()] = tm.Barrier(callCtx)
			cancel()
			tm.Destroy()
		}
		return nil
	})
	failed := 0
	for i, errs := range outcome {
		for pe, err := range errs {
			if (err == nil) != (errs[0] == nil) || (err != nil && err.Error() != errs[0].Error()) {
				t.Fatalf("round %d: PE %d: %v; PE 0: %v", i, pe, err, errs[0])
			}
		}
		if errs[0] != nil {
			failed++
		}
	}
	t.Logf("%d of %d barriers failed on every member, the others completed on every member", failed, rounds)
}
