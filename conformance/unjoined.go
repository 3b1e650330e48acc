package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

// A barrier, collective or collective allocation that a member of the team
// will never join (it returned from its function, or destroyed the team)
// ends with ErrCollectiveMismatch instead of waiting forever, whether the
// late PE arrives after the member left or was already waiting.
func (ck *kit) testCollectiveNeverJoined(t *testing.T) {
	if ck.procs() > 1 {
		t.Skip("a member in another process is not seen to leave (the wait ends with its context)")
	}
	type step func(ctx context.Context, pe *pgas.PE, tm *pgas.Team) error
	sums := make([]pgas.Sym[int64], 3) // each PE's handle of a symmetric word
	cases := []struct {
		name   string
		late   step // PE 1's extra call
		others step // what the other PEs do instead, before they return
	}{
		{"allocation", func(ctx context.Context, pe *pgas.PE, _ *pgas.Team) error {
			_, err := pgas.Alloc[int64](ctx, pe, 8)
			return err
		}, nil},
		{"barrier", func(ctx context.Context, pe *pgas.PE, _ *pgas.Team) error {
			return pe.Barrier(ctx)
		}, nil},
		{"reduction", func(ctx context.Context, pe *pgas.PE, tm *pgas.Team) error {
			return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, sums[pe.ID()], sums[pe.ID()], 1)
		}, nil},
		{"barrier of a destroyed team", func(ctx context.Context, _ *pgas.PE, tm *pgas.Team) error {
			return tm.Barrier(ctx)
		}, func(_ context.Context, _ *pgas.PE, tm *pgas.Team) error {
			tm.Destroy()
			return nil
		}},
	}
	for _, c := range cases {
		for _, order := range []string{"late PE arrives last", "late PE waits first"} {
			t.Run(c.name+"/"+order, func(t *testing.T) {
				var lateErr error
				err := ck.runErr(t, 3, func(ctx context.Context, pe *pgas.PE) error {
					tm := must(pe.TeamWorld().Split(ctx, 0, 1, 3))
					sums[pe.ID()] = must(pgas.AllocZeroed[int64](ctx, pe, 1))
					if pe.ID() == 1 {
						if order == "late PE arrives last" {
							time.Sleep(20 * time.Millisecond)
						}
						lateErr = c.late(ctx, pe, tm)
						return nil
					}
					if order == "late PE waits first" {
						time.Sleep(20 * time.Millisecond)
					}
					if c.others != nil {
						return c.others(ctx, pe, tm)
					}
					return nil
				})
				if !errors.Is(lateErr, pgas.ErrCollectiveMismatch) {
					t.Fatalf("the late PE's call returned %v, want ErrCollectiveMismatch", lateErr)
				}
				if err != nil && !errors.Is(err, pgas.ErrCollectiveMismatch) {
					t.Fatalf("Run returned %v", err)
				}
			})
		}
	}
}

// Matched collectives raise no alarm, however late the PEs return or
// destroy their teams, and point-to-point waits are not collectives.
func (ck *kit) testCollectivesJoinedNoAlarm(t *testing.T) {
	ck.run(t, 3, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		flag := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		tm := must(pe.TeamWorld().Split(ctx, 0, 1, 3))
		for range 20 {
			check(tm.Barrier(ctx))
		}
		check(pgas.ReduceAll(ctx, tm, pgas.ReduceMax, w, w, 1))
		switch pe.ID() {
		case 2:
			tm.Destroy()
			return nil // leaves first
		case 0:
			time.Sleep(20 * time.Millisecond)
			check(pgas.SignalOp(pe, flag, 7, pgas.SignalSet, 1))
		case 1:
			if err := signals.WaitUntil(ctx, pe, flag, pgas.CmpEQ, 7); err != nil {
				return fmt.Errorf("point-to-point wait after PE 2 left: %w", err)
			}
		}
		time.Sleep(10 * time.Millisecond)
		tm.Destroy()
		return nil
	})
}
