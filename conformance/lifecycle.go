package conformance

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas"
)

// A process starts and stops worlds one after the other for as long as it
// lives (pgas.Start, Handle.Stop): 100 cycles (20 with testing.Short) leave
// no goroutine behind, and on GPU backends no device memory.
func (ck *kit) testStartStopCycles(t *testing.T) {
	const n = 2
	ck.needPEs(t, n)
	cycles := 100
	if testing.Short() {
		cycles = 20
	}
	var mu sync.Mutex
	var free []int64 // PE 0's GPU's free memory at the start of each cycle
	cycle := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		h, err := pgas.Start(ctx, pgas.Config{Backend: ck.backend(), PEs: n, HeapSize: testHeap}, func(ctx context.Context, pe *pgas.PE) error {
			if _, err := pgas.AllocZeroed[uint64](ctx, pe, 1024); err != nil {
				return err
			}
			if g, err := pe.GPU(); err == nil && pe.ID() == 0 {
				f, _, err := g.Context().MemInfo()
				if err != nil {
					return err
				}
				mu.Lock()
				free = append(free, f)
				mu.Unlock()
			}
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			<-ctx.Done()
			return ctx.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	cycle() // warm-up: pools, and what a backend starts once per process
	goroutines := runtime.NumGoroutine()
	for range cycles {
		cycle()
	}
	testhelp.NoGoroutineLeak(t, goroutines)
	if len(free) > 2 {
		// The first world's start may still be settling the device's
		// allocations; from the second on, free memory must not shrink.
		if lost := free[1] - free[len(free)-1]; lost > 64<<20 {
			t.Errorf("%d bytes of device memory lost over %d start/stop cycles", lost, cycles)
		}
	}
}
