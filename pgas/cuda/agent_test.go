//go:build cuda

package cuda_test

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// run1 runs fn on a one-PE cuda world.
func run1(t *testing.T, fn func(ctx context.Context, pe *pgas.PE) error) {
	t.Helper()
	gpus(t)
	if err := pgas.Run(context.Background(), pgas.Config{Backend: "cuda", PEs: 1, HeapSize: 64 << 20}, fn); err != nil {
		t.Fatal(err)
	}
}

// A wait outlives several launches of the agent (5 ms each): it is handed
// from one launch to the next and still sees the update.
func TestAgentWaitAcrossLaunches(t *testing.T) {
	run1(t, func(ctx context.Context, pe *pgas.PE) error {
		w, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		errc := make(chan error, 1)
		go func() {
			time.Sleep(40 * time.Millisecond)
			errc <- pgas.SignalOp(pe, w, 7, pgas.SignalSet, 0)
		}()
		got, err := pgas.SignalWaitUntil(ctx, pe, w, pgas.CmpEQ, 7)
		if err != nil {
			return err
		}
		if got != 7 {
			return fmt.Errorf("wait returned %d, want 7", got)
		}
		return <-errc
	})
}

// More waits at once than the agent has slots: the rest run on the
// Waiter's kernels, and every one ends.
func TestAgentMoreWaitsThanSlots(t *testing.T) {
	run1(t, func(ctx context.Context, pe *pgas.PE) error {
		const n = 40
		w, err := pgas.AllocZeroed[uint64](ctx, pe, n)
		if err != nil {
			return err
		}
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = pgas.SignalWaitUntil(ctx, pe, w.Index(i), pgas.CmpGE, 1)
			}()
		}
		time.Sleep(20 * time.Millisecond)
		for i := range n {
			if err := pgas.SignalOp(pe, w.Index(i), 1, pgas.SignalAdd, 0); err != nil {
				return err
			}
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return fmt.Errorf("wait %d: %w", i, err)
			}
		}
		return nil
	})
}

// Puts and gets of every size the lane carries (and one more, which takes
// the copy engines), at an odd offset, in program order with each other;
// many signals in a row wrap the lane's ring.
func TestAgentLaneRoutines(t *testing.T) {
	run1(t, func(ctx context.Context, pe *pgas.PE) error {
		buf, err := pgas.AllocZeroed[byte](ctx, pe, 1024)
		if err != nil {
			return err
		}
		sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		for _, n := range []int{1, 3, 8, 13, 64, 191, 192, 193, 500} {
			want := make([]byte, n)
			for i := range want {
				want[i] = byte(n*7 + i)
			}
			if err := pgas.Put(pe, buf.Slice(5, 5+n), want, 0); err != nil {
				return err
			}
			got := make([]byte, n)
			if err := pgas.Get(pe, got, buf.Slice(5, 5+n), 0); err != nil {
				return err
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("%d bytes at offset 5: got %x, want %x", n, got, want)
			}
		}
		const adds = 3 * 32
		for range adds {
			if err := pgas.PutSignal(pe, buf.Slice(0, 8), []byte{1, 2, 3, 4, 5, 6, 7, 8}, sig, 1, pgas.SignalAdd, 0); err != nil {
				return err
			}
		}
		if err := pe.Quiet(); err != nil {
			return err
		}
		v, err := pgas.SignalFetch(pe, sig)
		if err != nil {
			return err
		}
		if v != adds {
			return fmt.Errorf("signal after %d adds: %d", adds, v)
		}
		return nil
	})
}
