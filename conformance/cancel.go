package conformance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

// collArgs is what a call of collectives is given besides its team.
type collArgs struct {
	a, b  pgas.Sym[int64] // 8·n elements each
	freed pgas.Sym[int64] // an allocation Free may take
	n     int             // team size
}

// collectives are every collective call, each on a team of all PEs, so
// that the cancellation tests can run every one of them.
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
		return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, x.a, x.b, 8)
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
func (ck *kit) testCollectiveCancelledOnOneMember(t *testing.T) {
	n := ck.perProcess(4)
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
				ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
					team := must(pe.TeamWorld().Split(ctx, 0, 1, n))
					x := collArgs{n: n,
						a:     must(pgas.AllocZeroed[int64](ctx, pe, 8*n)),
						b:     must(pgas.AllocZeroed[int64](ctx, pe, 8*n)),
						freed: must(pgas.AllocZeroed[int64](ctx, pe, 8)),
					}
					box := must(pgas.AllocZeroed[uint64](ctx, pe, n))
					check(pe.Barrier(ctx))
					callCtx := ctx
					if pe.ID() == quitter {
						qctx, cancel := tm.quit()
						defer cancel()
						callCtx = qctx
					} else {
						time.Sleep(tm.others)
					}
					err := c.call(callCtx, pe, team, x)
					// The next call on the same team: an allocation for the
					// world team (its offset must agree), a barrier else.
					var next error
					off := int64(-1)
					if c.world {
						var s pgas.Sym[int64]
						s, next = pgas.Alloc[int64](ctx, pe, 4)
						off = s.Offset()
					}
					if !c.world {
						next = team.Barrier(ctx)
					}
					return outcomeAgrees(ctx, pe, box, quitter, tm.fails, err, next, off)
				})
			})
		}
	}
}

// outcomeAgrees checks this PE's collective call (err) and the call after
// it (next, and the offset of an allocation), and that every PE's call
// ended the same way: the PEs swap codes of their outcomes through box
// with one-sided puts and a point-to-point wait, no collective (the team
// may be broken), so that it works with one PE per process too.
func outcomeAgrees(ctx context.Context, pe *pgas.PE, box pgas.Sym[uint64], quitter int, mustFail bool, err, next error, off int64) error {
	code := uint64(off) + 2 // completed: where the next allocation went
	if err != nil {
		code = errCode(err)
	}
	if q, xerr := differingPE(ctx, pe, box, code); xerr != nil || q >= 0 {
		return cmp.Or(xerr, fmt.Errorf("PE %d ended differently from PE %d (this PE: %v)", q, pe.ID(), err))
	}
	if err == nil {
		if mustFail {
			return errors.New("the collective completed; want it to fail on every member")
		}
		if next != nil {
			return fmt.Errorf("the next call after a completed collective: %w", next)
		}
		return nil
	}
	var ce *pgas.CollectiveError
	switch {
	case !errors.As(err, &ce):
		return fmt.Errorf("%v: want a *pgas.CollectiveError", err)
	case !errors.Is(err, pgas.ErrTeamBroken):
		return fmt.Errorf("%v does not wrap ErrTeamBroken", err)
	case ce.PE != quitter:
		return fmt.Errorf("%v names PE %d, want %d", err, ce.PE, quitter)
	case pe.ID() == quitter && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("the quitting PE's error %v does not wrap its context's error", err)
	case !errors.Is(next, pgas.ErrTeamBroken):
		return fmt.Errorf("the next call on the broken team returned %v, want ErrTeamBroken", next)
	}
	return nil
}

// errCode is err's code for swapCodes: nonzero, and the same for the same
// message.
func errCode(err error) uint64 { return uint64(crc32.ChecksumIEEE([]byte(err.Error()))) | 1<<40 }

// differingPE swaps code through box (swapCodes) and returns the first PE
// whose code differs from this PE's, or -1 when all agree.
func differingPE(ctx context.Context, pe *pgas.PE, box pgas.Sym[uint64], code uint64) (int, error) {
	codes, err := swapCodes(ctx, pe, box, code)
	if err != nil {
		return -1, err
	}
	for q, c := range codes {
		if c != code {
			return q, nil
		}
	}
	return -1, nil
}

// swapCodes gives every PE every PE's nonzero code, through box (one word
// per PE, zero before).
func swapCodes(ctx context.Context, pe *pgas.PE, box pgas.Sym[uint64], code uint64) ([]uint64, error) {
	for q := range pe.NumPEs() {
		if err := pgas.P(pe, box.Index(pe.ID()), code, q); err != nil {
			return nil, err
		}
	}
	if err := signals.WaitUntilAll(ctx, pe, box, nil, pgas.CmpNE, 0); err != nil {
		return nil, err
	}
	codes := make([]uint64, pe.NumPEs())
	return codes, pgas.Get(pe, codes, box, pe.ID())
}

// A member that calls another collective than the others (an allocation
// against a barrier) fails there, and so do the others, with the same
// error; the team is broken.
func (ck *kit) testCollectiveKindsMismatch(t *testing.T) {
	n := ck.perProcess(3)
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		box := must(pgas.AllocZeroed[uint64](ctx, pe, n))
		check(pe.Barrier(ctx))
		var err error
		if pe.ID() == n-1 {
			err = pe.Barrier(ctx)
		} else {
			_, err = pgas.Alloc[int64](ctx, pe, 8)
		}
		_, next := pgas.Alloc[int64](ctx, pe, 8)
		if !errors.Is(err, pgas.ErrCollectiveMismatch) || !errors.Is(err, pgas.ErrTeamBroken) {
			return fmt.Errorf("%v, want ErrCollectiveMismatch and ErrTeamBroken", err)
		}
		if !errors.Is(next, pgas.ErrTeamBroken) {
			return fmt.Errorf("allocation after the mismatch: %v, want ErrTeamBroken", next)
		}
		if q, xerr := differingPE(ctx, pe, box, errCode(err)); xerr != nil || q >= 0 {
			return cmp.Or(xerr, fmt.Errorf("PE %d's error differs from this one's: %v", q, err))
		}
		return nil
	})
}

// Invalid arguments on one member only: every member's call fails (that
// member with its own error), no one waits forever, and the team stays
// usable.
func (ck *kit) testCollectiveBadArgumentOnOneMember(t *testing.T) {
	n := ck.perProcess(3)
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
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
		return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, s, s, 4)
	})
}

// Nil handles are errors, not nil dereferences.
func (ck *kit) testNilHandles(t *testing.T) {
	var pe *pgas.PE
	var tm *pgas.Team
	ctx := context.Background()
	calls := map[string]error{
		"Alloc":     func() error { _, err := pgas.Alloc[int64](ctx, pe, 1); return err }(),
		"Barrier":   pe.Barrier(ctx),
		"Quiet":     pe.Quiet(),
		"Fence":     pe.Fence(),
		"Team.Sync": tm.Sync(ctx),
		"Broadcast": pgas.Broadcast(ctx, tm, pgas.Sym[int64]{}, pgas.Sym[int64]{}, 1, 0),
		"ReduceAll": pgas.ReduceAll(ctx, tm, pgas.ReduceSum, pgas.Sym[int64]{}, pgas.Sym[int64]{}, 1),
		"Put":       pgas.Put(pe, pgas.Sym[int64]{}, []int64{1}, 0),
		"PutSignal": pgas.PutSignal(pe, pgas.Sym[int64]{}, []int64{1}, pgas.Sym[uint64]{}, 1, pgas.SignalSet, 0),
		"SignalOp":  pgas.SignalOp(pe, pgas.Sym[uint64]{}, 1, pgas.SignalSet, 0),
		"PutSignalIf": func() error {
			_, err := pgas.PutSignalIf(pe, pgas.Sym[int64]{}, []int64{1}, pgas.Sym[uint64]{}, 0, 1, 2, 0)
			return err
		}(),
		"Team.Split": func() error { _, err := tm.Split(ctx, 0, 1, 1); return err }(),
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
	if pe.ID() != -1 || pe.NumPEs() != 0 || tm.ID() != -1 || tm.NumPEs() != 0 || tm.WorldPE(0) != -1 || tm.TeamPE(0) != -1 || tm.TranslatePE(0, nil) != -1 {
		t.Error("the accessors of nil handles do not report an invalid PE")
	}
	tm.Destroy() // no panic
}

// Deadlines that end just as the last member arrives, many times over:
// whichever way each race goes, every member's barrier ends the same way.
func (ck *kit) testCollectiveCancelRace(t *testing.T) {
	n := ck.perProcess(3)
	const rounds = 200
	var failed atomic.Int32
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		box := must(pgas.AllocZeroed[uint64](ctx, pe, n*rounds))
		check(pe.Barrier(ctx))
		for i := range rounds {
			tm := must(pe.TeamWorld().Split(ctx, 0, 1, n))
			callCtx, cancel := ctx, context.CancelFunc(func() {})
			if pe.ID() == 0 {
				callCtx, cancel = context.WithTimeout(ctx, 100*time.Microsecond)
			} else {
				time.Sleep(time.Duration(i%20) * 10 * time.Microsecond)
			}
			err := tm.Barrier(callCtx)
			cancel()
			tm.Destroy()
			code := uint64(1)
			if err != nil {
				code = errCode(err)
				if pe.ID() == 0 {
					failed.Add(1)
				}
			}
			if q, xerr := differingPE(ctx, pe, box.Slice(i*n, (i+1)*n), code); xerr != nil || q >= 0 {
				return cmp.Or(xerr, fmt.Errorf("round %d: PE %d ended differently from PE %d (%v)", i, q, pe.ID(), err))
			}
		}
		return nil
	})
	t.Logf("PE 0 saw %d of %d barriers fail on every member, the others complete on every member", failed.Load(), rounds)
}
