package pgas

import (
	"context"
	"syscall"
	"testing"
	"time"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// An idle wait parks: waiting half a second costs far less than half a
// second of CPU, and it still wakes on the update.
func TestHostIdleWaitParks(t *testing.T) {
	const idle = 500 * time.Millisecond
	err := Run(context.Background(), Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		w, err := AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		if pe.ID() == 1 {
			time.Sleep(idle)
			return SignalOp(pe, w, 1, SignalSet, 0)
		}
		before, start := cpuTime(), time.Now()
		if _, err := SignalWaitUntil(ctx, pe, w, CmpEQ, 1); err != nil {
			return err
		}
		used, waited := cpuTime()-before, time.Since(start)
		if waited < idle/2 {
			t.Errorf("wait returned after %v, before the update", waited)
		}
		// Generous bound: a spinning wait would use about `waited`.
		if used > waited/4 {
			t.Errorf("an idle wait of %v used %v of CPU", waited, used)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
