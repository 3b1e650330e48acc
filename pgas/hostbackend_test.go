package pgas

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/symchan/symchan/device"
)

// Tests of pgas on its built-in host backend: what a program sees of the
// backend's waits and sizes. The backend's own tests are in pgas/host.

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

// The host backend's waits do not allocate: a wait is the inner loop of
// every ping-pong and barrier, and an allocation there once cost 120 ns a
// round trip (the wait's request had escaped to the heap). The checks
// below return at once; escape analysis is per function, so they would see
// an allocation of the blocking path too.
func TestHostWaitDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation allocates")
	}
	err := Run(context.Background(), Config{Backend: "host", PEs: 1, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		w, err := AllocZeroed[uint64](ctx, pe, 16)
		if err != nil {
			return err
		}
		if err := SignalOp(pe, w.Index(5), 1, SignalSet, 0); err != nil {
			return err
		}
		status := make([]int, 16)
		status[0] = 1
		cases := []struct {
			name string
			wait func() error
		}{
			{"SignalWaitUntil", func() error {
				_, err := SignalWaitUntil(ctx, pe, w.Index(5), CmpEQ, 1)
				return err
			}},
			{"masked WaitAny", func() error {
				_, err := Wait(ctx, pe, WaitAny, WaitSet[uint64]{Ivars: w, Status: status, Cmp: CmpEQ, Value: 1})
				return err
			}},
		}
		for _, c := range cases {
			var werr error
			if n := testing.AllocsPerRun(100, func() { werr = c.wait() }); n != 0 || werr != nil {
				t.Errorf("%s: %v allocations per call (err %v), want 0", c.name, n, werr)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Sizes a world cannot have are errors from Run, before anything is
// allocated, not crashes.
func TestRunRejectsWhatCannotFit(t *testing.T) {
	for _, cfg := range []Config{
		{Backend: "host", PEs: 2, HeapSize: 1 << 50},
		{Backend: "host", PEs: MaxPEs + 1},
	} {
		err := Run(context.Background(), cfg, func(context.Context, *PE) error { return nil })
		if err == nil {
			t.Errorf("%+v: Run succeeded", cfg)
		}
	}
}

// The host backend has no remote path to force: ForceRemote (set, say,
// for a whole test run) changes nothing there.
func TestHostIgnoresForceRemote(t *testing.T) {
	err := Run(context.Background(), Config{PEs: 2, ForceRemote: true}, func(ctx context.Context, pe *PE) error {
		s, err := AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		if err := AtomicAdd(pe, s, 1, 0); err != nil {
			return err
		}
		return pe.Barrier(ctx)
	})
	if err != nil {
		t.Fatalf("Run with ForceRemote on the host backend: %v", err)
	}
}

// Launch needs a GPU: on the host backend it fails with ErrNotGPU before
// it looks at its arguments.
func TestLaunchOnHostIsNotGPU(t *testing.T) {
	err := Run(context.Background(), Config{Backend: "host", PEs: 1, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		a, err := AllocZeroed[uint64](ctx, pe, 4)
		if err != nil {
			return err
		}
		if err := Launch(pe, nil, "k", device.D1(1), device.D1(1), 0, a, 1); !errors.Is(err, ErrNotGPU) {
			return fmt.Errorf("Launch on the host backend: %v, want ErrNotGPU", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
