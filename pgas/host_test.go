package pgas

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
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

// The host's any-wait scans report, from Start round, the first word that
// satisfies the comparison as the word's own type orders it: checked
// against a plain typed scan for 64- and 32-bit, signed and unsigned
// words, every comparison and every start, with and without a mask.
func TestHostAnyScan(t *testing.T) {
	const n = 12
	tr, err := hostBackend{}.Open(Config{PEs: 1, HeapSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	h := tr.(*hostTransport)
	edges := []uint64{0, 1, 2, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1<<63 - 1, 1 << 63, ^uint64(0), ^uint64(1)}
	// holdsTyped is the spec's comparison on the words' own type.
	holdsTyped := func(k Kind, c Cmp, w, v uint64) bool {
		var d int
		switch k {
		case KindInt64:
			d = cmp.Compare(int64(w), int64(v))
		case KindUint64:
			d = cmp.Compare(w, v)
		case KindInt32:
			d = cmp.Compare(int32(w), int32(v))
		default:
			d = cmp.Compare(uint32(w), uint32(v))
		}
		return map[Cmp]bool{CmpEQ: d == 0, CmpNE: d != 0, CmpGT: d > 0, CmpGE: d >= 0, CmpLT: d < 0, CmpLE: d <= 0}[c]
	}
	rng := uint64(1)
	next := func() uint64 { rng = rng*6364136223846793005 + 1442695040888963407; return rng >> 33 }
	for _, k := range []Kind{KindInt64, KindUint64, KindInt32, KindUint32} {
		for c := CmpEQ; c <= CmpLE; c++ {
			for trial := range 20 {
				words := make([]uint64, n)
				for i := range words {
					words[i] = edges[next()%uint64(len(edges))]
					if k.Size() == 4 {
						words[i] = uint64(uint32(words[i]))
					}
				}
				v := edges[next()%uint64(len(edges))]
				var status []int
				if trial%2 == 1 {
					status = make([]int, n)
					status[next()%n] = 1
				}
				off := int64(ControlBytes)
				for i, w := range words {
					if k.Size() == 8 {
						*(*uint64)(unsafe.Pointer(&h.heaps[0][off+int64(i)*8])) = w
					} else {
						*(*uint32)(unsafe.Pointer(&h.heaps[0][off+int64(i)*4])) = uint32(w)
					}
				}
				for start := range n {
					want := NoIndex
					for j := range n {
						i := (start + j) % n
						if (status == nil || status[i] == 0) && holdsTyped(k, c, words[i], v) {
							want = i
							break
						}
					}
					req := WaitRequest{Mode: WaitAny, Test: true, Kind: k, Off: off, N: n, Status: status, Cmp: c, Value: v, Start: start}
					if k.Size() == 4 {
						req.Value = uint64(uint32(v))
					}
					r, err := h.Wait(context.Background(), 0, nil, req)
					if err != nil || r.N != want {
						t.Fatalf("%v words %v, %v %#x from %d (mask %v): index %d, %v; want %d", k, words, c, v, start, status, r.N, err, want)
					}
				}
			}
		}
	}
}

func TestCheckHostFits(t *testing.T) {
	cases := []struct {
		n        int
		size     int64
		mem      int64
		ok       bool
		mentions string
	}{
		{8, 128 << 20, 24 << 30, true, ""},
		{8, 128 << 20, 0, true, ""}, // memory unknown: only overflow is checked
		{8, 4 << 30, 24 << 30, false, "SYMCHAN_SYMMETRIC_SIZE"},
		{65536, 1 << 20, 24 << 30, false, "SYMCHAN_PES"},
		{3, math.MaxInt64 / 2, 0, false, "overflows"},
	}
	for _, c := range cases {
		err := checkHostFits(c.n, c.size, c.mem)
		if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), c.mentions)) {
			t.Errorf("checkHostFits(%d, %d, %d) = %v", c.n, c.size, c.mem, err)
		}
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

// The host backend's partitions lie outside the Go heap: a world of large
// heaps adds nothing to what the garbage collector manages, and pages never
// touched cost no memory.
func TestHostHeapOutsideGoHeap(t *testing.T) {
	if !heapOutsideGo {
		t.Skip("partitions are Go memory where mmap is not at hand")
	}
	var before, during runtime.MemStats
	runtime.ReadMemStats(&before)
	err := Run(context.Background(), Config{Backend: "host", PEs: 4, HeapSize: 1 << 30}, func(ctx context.Context, pe *PE) error {
		s, err := AllocZeroed[byte](ctx, pe, 1<<20)
		if err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() == 0 {
			runtime.ReadMemStats(&during)
		}
		return Free(ctx, pe, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	if grew := int64(during.HeapSys) - int64(before.HeapSys); grew > 256<<20 {
		t.Errorf("the Go heap grew by %s for 4 partitions of 1 GiB", FormatSize(grew))
	}
}
