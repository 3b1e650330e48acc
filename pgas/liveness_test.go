package pgas

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// Park returns once a write into its words makes ready true, with the
// context's error once it ends, ErrNoWriters once every PE it names has
// finished (after a last look), at once for an empty from, and
// ErrWorldEnded after the world.
func TestPark(t *testing.T) {
	var kept *PE
	var keptWords Sym[uint64]
	err := Run(context.Background(), Config{Backend: "host", PEs: 3, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		words, err := AllocZeroed[uint64](ctx, pe, 4)
		if err != nil {
			return err
		}
		if pe.ID() != 0 {
			if pe.ID() == 1 {
				// Woken by a write: PE 0 parks until word 2 holds 7.
				if err := pe.Barrier(ctx); err != nil {
					return err
				}
				time.Sleep(5 * time.Millisecond)
				if err := SignalOp(pe, words.Index(2), 7, SignalSet, 0); err != nil {
					return err
				}
			} else if err := pe.Barrier(ctx); err != nil {
				return err
			}
			return pe.Barrier(ctx) // PEs 1 and 2 finish after this
		}
		kept, keptWords = pe, words
		local, err := Local(pe, words)
		if err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		err = Park(ctx, pe, words, []int{1}, func() bool { return atomic.LoadUint64(&local[2]) == 7 })
		if err != nil {
			return fmt.Errorf("parked for PE 1's write: %v", err)
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		// PEs 1 and 2 finish: a Park for them ends, a last look first.
		deadline := time.Now().Add(10 * time.Second)
		for {
			err = Park(ctx, pe, words, []int{1, 2}, func() bool { return false })
			if err != nil || time.Now().After(deadline) {
				break
			}
		}
		if !errors.Is(err, ErrNoWriters) {
			return fmt.Errorf("after the writers finished: %v, want ErrNoWriters", err)
		}
		if err := Park(ctx, pe, words, []int{1, 2}, func() bool { return true }); err != nil {
			return fmt.Errorf("ready at the last look: %v, want nil", err)
		}
		if err := Park(ctx, pe, words, []int{}, func() bool { return false }); !errors.Is(err, ErrNoWriters) {
			return fmt.Errorf("an empty from: %v, want ErrNoWriters", err)
		}
		// Once PEs have finished Park looks at from, and refuses an id
		// outside the world there.
		if err := Park(ctx, pe, words, []int{1, 3}, func() bool { return false }); !errors.Is(err, ErrBadPE) {
			return fmt.Errorf("from naming PE 3 of 3: %v, want ErrBadPE", err)
		}
		cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		if err := Park(cctx, pe, words, nil, func() bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("a context that ends: %v, want its error", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := Park(context.Background(), kept, keptWords, nil, func() bool { return true }); !errors.Is(err, ErrWorldEnded) {
		t.Errorf("after the world ended: %v, want ErrWorldEnded", err)
	}
}

// A PE's failure ends the others' Parks: the error names it.
func TestParkEndedByFailure(t *testing.T) {
	boom := errors.New("boom")
	err := Run(context.Background(), Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		words, err := AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		if pe.ID() == 1 {
			return boom
		}
		err = Park(context.Background(), pe, words, nil, func() bool { return false })
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

// Park's refusal path never reports success: called where Park's quick
// checks would have passed (the two checks forced apart), it still
// returns an error, so Park cannot return nil without its condition.
func TestParkRefusedNeverNil(t *testing.T) {
	err := Run(context.Background(), Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		words, err := AllocZeroed[uint64](ctx, pe, 4)
		if err != nil {
			return err
		}
		for _, from := range [][]int{nil, {0, 1}} {
			if err := parkRefused(pe, words, from); !errors.Is(err, ErrBadArg) {
				return fmt.Errorf("parkRefused with valid arguments (from %v) = %v, want an error wrapping ErrBadArg", from, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Errors name PE lists as ranges where they increase.
func TestIDList(t *testing.T) {
	for _, tc := range []struct {
		pes  []int
		want string
	}{
		{nil, "[]"},
		{[]int{4}, "[4]"},
		{[]int{0, 1, 2, 3, 5}, "[0-3, 5]"},
		{[]int{3, 1}, "[3 1]"},
		{[]int{1, 1}, "[1 1]"},
	} {
		if got := idList(tc.pes); got != tc.want {
			t.Errorf("idList(%v) = %q, want %q", tc.pes, got, tc.want)
		}
	}
}
