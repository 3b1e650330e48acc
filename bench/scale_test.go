package bench

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

// scaleMax bounds the world sizes of BenchmarkScale (0: all of them).
var (
	scaleMax     = flag.Int("scale.max", 0, "largest world of BenchmarkScale (0: all)")
	scaleBackend = flag.String("scale.backend", "host", "backend of BenchmarkScale: host (P up to 4096) or cuda (P up to 1024, PEs sharing the GPUs under SYMCHAN_CUDA_SHARE_GPUS=1)")
)

// scaleChanMem bounds the memory one Chan may take over the whole world
// (every PE's partition share and receive side) for BenchmarkScale to make
// it: past it the Chan is not made and its row says what it would need.
const scaleChanMem = 8 << 30

// BenchmarkScale measures, on the host backend in worlds of P = 2, 8, 64,
// 512 and 4096 PEs, and with -scale.backend cuda in worlds of 2, 8, 64,
// 512 and 1024 PEs sharing the GPUs (issue 47's scaling benchmark),
// every PE parking when it waits (pgas.BlockPark, what a host world of
// more PEs than processors does by default; GPU backends ignore it): a
// world's start and
// stop (Run of a function that returns at once; median of 3), the memory
// per PE of one Chan with the default options (its symmetric bytes, from
// the offsets around it, and its Go memory, the heap's growth over the
// world divided by P), a Chan round trip between PEs 0 and 1 while the
// others wait on a Go channel, a world barrier, and an AllToAll of 8 int64 per
// peer (medians over 5 repetitions of k calls each, over k, on PE 0).
// Each P is a sub-benchmark pes=P reporting custom units; run it with
// -test.benchtime 1x. A Chan that would need more than scaleChanMem over
// the world is not made: its row reports the symmetric bytes it would
// need per PE (chan-sym-needed-KiB/PE) and no round trip.
func BenchmarkScale(b *testing.B) {
	sizes := []int{2, 8, 64, 512, 4096}
	if *scaleBackend != "host" {
		sizes[len(sizes)-1] = 1024
	}
	for _, p := range sizes {
		if *scaleMax > 0 && p > *scaleMax {
			continue
		}
		b.Run(fmt.Sprintf("pes=%d", p), func(b *testing.B) { scaleWorld(b, p) })
	}
}

func scaleWorld(b *testing.B, p int) {
	b.StopTimer()
	const a2a = 8 // int64 per peer
	chanSym := int64(min(p, actors.DefaultLanes)) * actors.DefaultSlots * actors.DefaultSlotSize
	makeChan := p >= 2 && chanSym*int64(p) <= scaleChanMem
	heap := int64(pgas.ControlBytes) + 2*int64(p*a2a*8) + 64<<10
	if makeChan {
		heap += chanSym + chanSym/4 + 1<<20 // the mailbox's other words
	}
	cfg := pgas.Config{Backend: *scaleBackend, PEs: p, HeapSize: heap, Blocking: pgas.BlockPark}

	// Start and stop.
	var ss []float64
	for range 3 {
		t0 := time.Now()
		if err := pgas.Run(context.Background(), cfg, func(context.Context, *pgas.PE) error { return nil }); err != nil {
			b.Fatal(err)
		}
		ss = append(ss, float64(time.Since(t0).Microseconds()))
	}
	b.ReportMetric(medianOf(ss), "us/start-stop")

	reps := func(k int, pe *pgas.PE, ctx context.Context, op func() error) (float64, error) {
		var runs []float64
		for rep := range 7 {
			if err := pe.Barrier(ctx); err != nil {
				return 0, err
			}
			t0 := time.Now()
			for range k {
				if err := op(); err != nil {
					return 0, err
				}
			}
			if rep >= 2 {
				runs = append(runs, float64(time.Since(t0).Nanoseconds())/float64(k)/1e3)
			}
		}
		return medianOf(runs), nil
	}
	k := max(4, 2000/p)
	var barrierUS, a2aUS, rtUS, symKiB, goKiB atomic.Value
	rtDone := make(chan struct{})
	err := pgas.Run(context.Background(), cfg, func(ctx context.Context, pe *pgas.PE) error {
		src, err := pgas.AllocZeroed[int64](ctx, pe, p*a2a)
		if err != nil {
			return err
		}
		dst, err := pgas.AllocZeroed[int64](ctx, pe, p*a2a)
		if err != nil {
			return err
		}
		world := pe.TeamWorld()
		us, err := reps(k, pe, ctx, func() error { return pe.Barrier(ctx) })
		if err != nil {
			return err
		}
		if pe.ID() == 0 {
			barrierUS.Store(us)
		}
		us, err = reps(k, pe, ctx, func() error { return pgas.AllToAll(ctx, world, dst, src, a2a) })
		if err != nil {
			return err
		}
		if pe.ID() == 0 {
			a2aUS.Store(us)
		}
		if !makeChan {
			return nil
		}
		// The Chan's memory: the symmetric heap it takes, and the world's
		// Go heap growth over P.
		var ms runtime.MemStats
		free0, _ := pe.HeapFree()
		if pe.ID() == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
		}
		heap0 := ms.HeapAlloc
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		ch, err := actors.NewChan[uint64](ctx, pe)
		if err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			free1, _ := pe.HeapFree()
			symKiB.Store(float64(free0-free1) / 1024)
			goKiB.Store(float64(int64(ms.HeapAlloc)-int64(heap0)) / float64(p) / 1024)
		}
		// A round trip between PEs 0 and 1; the others wait on a Go
		// channel (the PEs are goroutines of this process on both
		// backends), so that their waiting costs neither processors nor
		// the GPUs' agents.
		if pe.ID() > 1 {
			select {
			case <-rtDone:
			case <-ctx.Done():
				return ctx.Err()
			}
			runtime.KeepAlive(ch) // its Go memory was counted until now
			return pe.Barrier(ctx)
		}
		peer := 1 - pe.ID()
		var runs []float64
		for rep := range 7 {
			const n = 200
			t0 := time.Now()
			if err := chanRoundTrips(ctx, pe, ch, peer, n); err != nil {
				return err
			}
			if rep >= 2 {
				runs = append(runs, float64(time.Since(t0).Nanoseconds())/n/1e3)
			}
		}
		if pe.ID() == 0 {
			rtUS.Store(medianOf(runs))
			close(rtDone)
		}
		return pe.Barrier(ctx)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(barrierUS.Load().(float64), "us/barrier")
	b.ReportMetric(a2aUS.Load().(float64), "us/alltoall-8")
	if makeChan {
		b.ReportMetric(symKiB.Load().(float64), "chan-sym-KiB/PE")
		b.ReportMetric(goKiB.Load().(float64), "chan-go-KiB/PE")
		b.ReportMetric(rtUS.Load().(float64), "us/chan-RT")
	} else {
		b.ReportMetric(float64(chanSym)/1024, "chan-sym-needed-KiB/PE")
	}
}
