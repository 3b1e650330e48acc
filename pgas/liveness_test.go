package pgas

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// Interrupted answers as a wait with From would end: not while the
// writers run (its channel closes when one finishes), ErrNoWriters once
// they all have, the context's error once it ends, ErrWorldEnded after the
// world.
func TestInterrupted(t *testing.T) {
	var kept *PE
	err := Run(context.Background(), Config{Backend: "host", PEs: 3, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		if pe.ID() != 0 {
			return pe.Barrier(ctx) // PEs 1 and 2 finish after the first look
		}
		kept = pe
		ch, err := pe.Interrupted(ctx, []int{1, 2})
		if err != nil || ch == nil {
			return errors.New("while the writers run: want a channel and no error")
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			return errors.New("the channel did not close when a writer finished")
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err = pe.Interrupted(ctx, []int{1, 2})
			if err != nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		if !errors.Is(err, ErrNoWriters) {
			return fmt.Errorf("after the writers finished: %v, want ErrNoWriters", err)
		}
		if _, err := pe.Interrupted(ctx, nil); err != nil {
			return fmt.Errorf("no writers named: %v", err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := pe.Interrupted(cctx, nil); !errors.Is(err, context.Canceled) {
			return fmt.Errorf("an ended context: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kept.Interrupted(context.Background(), nil); !errors.Is(err, ErrWorldEnded) {
		t.Errorf("after the world ended: %v, want ErrWorldEnded", err)
	}
}

// A PE's failure ends the others' waits: Interrupted names it.
func TestInterruptedByFailure(t *testing.T) {
	boom := errors.New("boom")
	err := Run(context.Background(), Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		if pe.ID() == 1 {
			return boom
		}
		<-ctx.Done()
		_, err := pe.Interrupted(context.Background(), []int{1})
		var pe1 *PEError
		if !errors.As(err, &pe1) || pe1.PE != 1 || !errors.Is(err, boom) {
			t.Errorf("after PE 1 failed: %v, want its *PEError", err)
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Run: %v", err)
	}
}
