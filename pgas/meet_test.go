package pgas

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/pgas/driver"
)

// meetOnHost, the meeting of a blocking device collective's members where
// PEs share a GPU's context, run on the host backend's team words: a
// member returns only once every other member has entered the collective
// on the host or begun it on the device (its add to the arrivals word),
// and abandons it, for every member, when its context ends first.
func TestMeetOnHost(t *testing.T) {
	const late = 30 * time.Millisecond
	for _, tc := range []struct {
		name     string
		pes      int
		onDevice bool // the last PE, late, arrives on the device (else on the host)
	}{
		{"on the host", 3, false},
		{"on the device", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var early atomic.Int32
			err := Run(context.Background(), Config{Backend: "host", PEs: tc.pes, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
				tm := pe.world
				last := pe.ID() == tc.pes-1
				if last {
					time.Sleep(late)
					if tc.onDevice { // its kernel's opening phase adds to every member's arrivals word
						for _, m := range tm.members {
							if _, err := pe.w.tr.Atomic(pe.id, m, tm.deviceOff()+abi.OffsetofTeamArrivals+8, driver.KindUint64, driver.OpFetchAdd, 1, 0); err != nil {
								return err
							}
						}
						return pe.Barrier(ctx) // its part ends after PE 0's meeting
					}
				}
				seq := tm.devSeq.Add(1)
				start := time.Now()
				if err := tm.meetOnHost(ctx, syncBarrier, seq); err != nil {
					return err
				}
				if !last && time.Since(start) < late*2/3 {
					early.Add(1)
				}
				tm.devLeft.Store(seq)
				tm.devDone.Store(seq)
				return pe.Barrier(ctx)
			})
			if err != nil {
				t.Fatal(err)
			}
			if n := early.Load(); n > 0 {
				t.Errorf("%d members left the meeting before the last one arrived", n)
			}
		})
	}
	t.Run("context ends", func(t *testing.T) {
		err := Run(context.Background(), Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
			tm := pe.world
			if pe.ID() == 1 {
				return nil // never arrives
			}
			seq := tm.devSeq.Add(1)
			defer tm.devLeft.Store(seq)
			cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
			defer cancel()
			err := tm.meetOnHost(cctx, syncBarrier, seq)
			var ce *CollectiveError
			if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) && ce.PE != 1 {
				t.Errorf("meetOnHost when its context ends: %v, want a *CollectiveError for the deadline or PE 1's end", err)
			}
			if tm.broken.Load() == nil {
				t.Error("the team is not broken after a member abandoned its collective")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
