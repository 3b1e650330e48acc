package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

// A call that only a PE which has returned could complete ends with
// ErrNoWriters, naming what it waited for, instead of waiting forever; a
// message such a PE sent before it returned is still delivered.
func (ck *kit) testFinishedPeerEndsBlockedCalls(t *testing.T) {
	ck.oneProcess(t) // a PE is seen to return only in its own process
	cases := []struct {
		name string
		// wait is PE 0's blocked call; PE 1 returns nil at once after prep.
		prep func(ctx context.Context, pe *pgas.PE, ch *actors.Chan[int64], sys *actors.System) error
		wait func(ctx context.Context, pe *pgas.PE, ch *actors.Chan[int64], sys *actors.System) error
	}{
		{"recv", nil, func(ctx context.Context, _ *pgas.PE, ch *actors.Chan[int64], _ *actors.System) error {
			_, err := ch.Recv(ctx)
			return err
		}},
		{"send to a full inbox", nil, func(ctx context.Context, _ *pgas.PE, ch *actors.Chan[int64], _ *actors.System) error {
			for i := range 1000 {
				if err := ch.Send(ctx, 1, int64(i)); err != nil {
					return err
				}
			}
			return errors.New("1000 sends to a PE that returned all succeeded")
		}},
		{"future", nil, func(ctx context.Context, _ *pgas.PE, _ *actors.Chan[int64], sys *actors.System) error {
			f, err := actors.NewFuture[int64](sys)
			if err != nil {
				return err
			}
			_, err = f.Await(ctx)
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got error
			ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
				sys := must(actors.NewSystem(ctx, pe))
				ch := must(actors.NewChan[int64](ctx, pe, actors.Slots(4)))
				check(pe.Barrier(ctx))
				if pe.ID() == 1 {
					return nil
				}
				got = c.wait(ctx, pe, ch, sys)
				return nil
			})
			if !errors.Is(got, pgas.ErrNoWriters) {
				t.Fatalf("the blocked call returned %v, want ErrNoWriters", got)
			}
			if !strings.Contains(got.Error(), "[1]") {
				t.Errorf("the error does not name PE 1: %v", got)
			}
		})
	}
	t.Run("message sent before returning", func(t *testing.T) {
		ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
			ch := must(actors.NewChan[int64](ctx, pe))
			check(pe.Barrier(ctx))
			if pe.ID() == 1 {
				return ch.Send(ctx, 0, 42)
			}
			v, err := ch.Recv(ctx)
			if err != nil || v != 42 {
				return fmt.Errorf("Recv = %d, %v; want 42", v, err)
			}
			if _, err := ch.Recv(ctx); !errors.Is(err, pgas.ErrNoWriters) {
				return fmt.Errorf("the second Recv returned %v, want ErrNoWriters", err)
			}
			return nil
		})
	})
	// A PE that has sent to itself is one of its own writers: after
	// that, its Recv waits for another goroutine's later self-send,
	// although every other PE has returned.
	t.Run("a PE that sent to itself is waited for", func(t *testing.T) {
		ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
			ch := must(actors.NewChan[int64](ctx, pe))
			check(pe.Barrier(ctx))
			if pe.ID() == 1 {
				return nil
			}
			check(ch.Send(ctx, 0, 1))
			if v, err := ch.Recv(ctx); err != nil || v != 1 {
				return fmt.Errorf("Recv = %d, %v; want 1", v, err)
			}
			pe.Go(func(ctx context.Context) {
				time.Sleep(20 * time.Millisecond) // PE 1 has returned by then
				_ = ch.Send(ctx, 0, 2)
			})
			if v, err := ch.Recv(ctx); err != nil || v != 2 {
				return fmt.Errorf("Recv after a later self-send = %d, %v; want 2", v, err)
			}
			return nil
		})
	})
	t.Run("a peer still running is waited for", func(t *testing.T) {
		ck.run(t, 3, func(ctx context.Context, pe *pgas.PE) error {
			ch := must(actors.NewChan[int64](ctx, pe))
			pair := must(pe.TeamWorld().Split(ctx, 0, 2, 2)) // PEs 0 and 2
			check(pe.Barrier(ctx))
			if pe.ID() == 1 {
				return nil // returns at once
			}
			// PE 2 sends only after PE 1 has surely returned.
			for range 3 {
				check(pair.Barrier(ctx))
			}
			if pe.ID() == 2 {
				return ch.Send(ctx, 0, 7)
			}
			if v, err := ch.Recv(ctx); err != nil || v != 7 {
				return fmt.Errorf("Recv = %d, %v; want 7", v, err)
			}
			return nil
		})
	})
}

// A pgas wait that names its writers: the set, not the PE, decides.
func (ck *kit) testWaitFromFinishedPEs(t *testing.T) {
	ck.oneProcess(t)
	ck.run(t, 3, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		check(pe.Barrier(ctx))
		if pe.ID() != 0 {
			return nil
		}
		ws := pgas.WaitSet[uint64]{Ivars: w, Cmp: pgas.CmpEQ, Value: 1, From: []int{1, 2}}
		if _, err := pgas.Wait(ctx, pe, pgas.WaitAll, ws); !errors.Is(err, pgas.ErrNoWriters) {
			return fmt.Errorf("wait for PEs 1 and 2: %v, want ErrNoWriters", err)
		}
		ws.From = []int{1, 5}
		if _, err := pgas.Wait(ctx, pe, pgas.WaitAll, ws); !errors.Is(err, pgas.ErrBadPE) {
			return fmt.Errorf("From with PE 5 of 3: %v, want ErrBadPE", err)
		}
		return nil
	})
}
