//go:build cuda

package bench

// GPU benchmarks on the cuda backend, 2 PEs (GPU 0 → GPU 1). Each runs its
// own repetitions after warm-up and reports medians as metrics; run them
// with -test.benchtime=1x (scripts/gpu-run.sh does) beside the NVSHMEM
// anchors of bench/anchors (scripts/anchors.sh) in the same command.

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
	_ "github.com/symchan/symchan/pgas/cuda"
)

// gpuBackend runs the GPU benchmarks on the nvshmem backend instead of
// cuda: one process per PE under symrun or mpirun (PE 0 reports), with
// SYMCHAN_FORCE_REMOTE=1 on its remote paths.
var gpuBackend = flag.String("gpu.backend", "cuda", "backend of the GPU benchmarks: cuda (2 PEs in this process) or nvshmem (under symrun -n 2)")

func gpuWorld(b *testing.B, heap int64, fn func(ctx context.Context, pe *pgas.PE) error) {
	b.Helper()
	gpuWorldN(b, 2, heap, fn)
}

// gpuWorldN is gpuWorld with pes PEs on the cuda backend (under nvshmem,
// the launcher's processes).
func gpuWorldN(b *testing.B, pes int, heap int64, fn func(ctx context.Context, pe *pgas.PE) error) {
	b.Helper()
	cfg := pgas.Config{Backend: "cuda", PEs: pes, HeapSize: heap}
	if *gpuBackend == "nvshmem" {
		cfg.Backend, cfg.PEs = "nvshmem", 0
	}
	if err := pgas.Run(context.Background(), cfg, fn); err != nil {
		b.Fatal(err)
	}
}

var gpuSizes = []int{64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20}

// pairSizes runs, for each size, a world whose PE 0 calls fn with its GPU,
// PE 1's GPU and two zeroed symmetric buffers of size bytes (symPair); PE 1
// waits for it at a barrier. fn returns the bandwidth of each variant it
// measured (impl name → GB/s), reported as b/size=N/impl=name.
func pairSizes(b *testing.B, sizes []int, fn func(pe *pgas.PE, g, peer pgas.GPU, src, dst pgas.Sym[byte], size int) (map[string]float64, error)) {
	for _, size := range sizes {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			var gpus [2]pgas.GPU // the PEs share one process on the cuda backend
			var bw map[string]float64
			gpuWorld(b, 2*int64(size)+16<<20, func(ctx context.Context, pe *pgas.PE) error {
				src, dst, err := symPair[byte](ctx, pe, size)
				if err != nil {
					return err
				}
				if gpus[pe.ID()], err = pe.GPU(); err != nil {
					return err
				}
				if err := pe.Barrier(ctx); err != nil {
					return err
				}
				if pe.ID() == 0 {
					if bw, err = fn(pe, gpus[0], gpus[1], src, dst, size); err != nil {
						return err
					}
				}
				return pe.Barrier(ctx)
			})
			for _, impl := range slices.Sorted(maps.Keys(bw)) {
				reportImpl(b, impl, float64(size)/bw[impl], bw[impl], "GB/s")
			}
		})
	}
}

// reportImpl reports a figure measured in a world's PEs (by repetitions of
// their own, after warm-up) as the sub-benchmark b/impl=name, so that
// benchstat -col /impl sets ours beside the anchors: impl=symchan beside
// impl=memcpypeer here and the NVSHMEM programs' impl=nvshmem… lines
// (bench/anchors). nsOp is the time of one operation.
func reportImpl(b *testing.B, impl string, nsOp, value float64, unit string) {
	b.Run("impl="+impl, func(b *testing.B) {
		b.ReportMetric(nsOp, "ns/op")
		b.ReportMetric(value, unit)
	})
}

// gbps is the bandwidth of moving size bytes with run, timed by the host
// clock until run returns.
func gbps(size int, run func() error) (float64, error) {
	t0 := time.Now()
	err := run()
	return float64(size) / time.Since(t0).Seconds() / 1e9, err
}

// BenchmarkGPUPut: host-initiated put GPU0 → GPU1 of a symmetric buffer
// (PutSym), one shot per repetition, against cuMemcpyPeer (the copy
// engines) and symchan's copy kernel launched directly: the cuda backend
// copies with whichever of the two is faster, as measured here (the
// engines, at every size on H200s).
func BenchmarkGPUPut(b *testing.B) {
	pairSizes(b, append([]int{4 << 10, 16 << 10}, gpuSizes...), func(pe *pgas.PE, g, peer pgas.GPU, src, dst pgas.Sym[byte], size int) (map[string]float64, error) {
		// The runtime's copy kernel (symchan.cu: symchan_copy; its name's
		// Go constant is internal to the core module).
		copyFn, err := g.Module().Function("symchan_copy")
		if err != nil {
			return nil, err
		}
		info, err := device.Describe(g.Context().Ordinal())
		if err != nil {
			return nil, err
		}
		blocks := max(1, min(info.SMs, (size+32<<10-1)/(32<<10)))
		to, from := g.Addr(1, dst.Offset()), g.Addr(0, src.Offset())
		st := g.Stream()
		ways := []func() error{
			func() error { return pgas.PutSym(pe, dst, src, 1) },
			func() error {
				if err := st.CopyPeer(to, peer.Context(), from, g.Context(), int64(size)); err != nil {
					return err
				}
				return st.Sync()
			},
			func() error {
				if err := st.Launch(copyFn, device.D1(blocks), device.D1(1024), 0, uint64(to), uint64(from), uint64(size)); err != nil {
					return err
				}
				return st.Sync()
			},
		}
		bw := make([][]float64, len(ways))
		for rep := range 25 {
			for i, way := range ways {
				v, err := gbps(size, way)
				if err != nil {
					return nil, err
				}
				if rep >= 5 {
					bw[i] = append(bw[i], v)
				}
			}
		}
		return map[string]float64{"symchan": medianOf(bw[0]), "memcpypeer": medianOf(bw[1]), "copykernel": medianOf(bw[2])}, nil
	})
}

// BenchmarkGPUDevicePutBlock: device-initiated block puts (symchan.cuh's
// copy, 132 blocks × 1024 threads), back to back, GPU0 → GPU1, timed by
// events around the launch as the NVSHMEM anchor is (the host clock would
// add the launch and synchronisation, 1-2% at 16 MiB × 10).
func BenchmarkGPUDevicePutBlock(b *testing.B) {
	pairSizes(b, gpuSizes, func(_ *pgas.PE, g, _ pgas.GPU, src, dst pgas.Sym[byte], size int) (map[string]float64, error) {
		fn, err := benchKernel(g, kernelPutBlock)
		if err != nil {
			return nil, err
		}
		reps := 10
		if size < 16<<20 {
			reps = 100
		}
		e0, err := g.Context().NewEvent()
		if err != nil {
			return nil, err
		}
		defer e0.Destroy()
		e1, err := g.Context().NewEvent()
		if err != nil {
			return nil, err
		}
		defer e1.Destroy()
		var bw []float64
		time.Sleep(6 * time.Millisecond) // the agent's launch (allocation's barrier) ends first
		st := g.Stream()
		for rep := range 7 {
			if err := e0.Record(st); err != nil {
				return nil, err
			}
			if err := st.Launch(fn, device.D1(132), device.D1(1024), 0, uint64(g.HeapDescriptor()), 1,
				uint64(dst.Offset()), uint64(src.Offset()), uint64(size), uint64(reps)); err != nil {
				return nil, err
			}
			if err := e1.Record(st); err != nil {
				return nil, err
			}
			if err := e1.Sync(); err != nil {
				return nil, err
			}
			ms, err := device.Elapsed(e0, e1)
			if err != nil {
				return nil, err
			}
			if rep >= 2 {
				bw = append(bw, float64(size)*float64(reps)/(float64(ms)*1e6))
			}
		}
		return map[string]float64{"symchan": medianOf(bw)}, nil
	})
}

// BenchmarkGPUDevicePingPong: device-initiated ping-pong, one thread per
// GPU, half round trip: put-with-signal of 8 B, signal only, and the
// payload in the signal word (one 8-byte store, polled directly).
func BenchmarkGPUDevicePingPong(b *testing.B) {
	// mode | variant bits of bench_pingpong's flags (see bench.cu): the
	// device API's way first, then the others measured beside it.
	// Reported as kind=…/impl=symchan[-variant], beside the anchor's
	// kind=…/impl=nvshmem.
	cases := []struct {
		kind, impl string
		flags      uint64
		user       bool // the user's kernel (userPingPong), not bench_pingpong
	}{
		{"put-signal-8B", "symchan", 0 << 8, false},
		{"put-signal-8B", "symchan-user-kernel", 0, true},
		{"signal", "symchan", 1 << 8, false},
		{"payload-in-signal", "symchan", 2 << 8, false},
		{"put-signal-8B", "symchan-volatile-poll", 0<<8 | 1<<16, false},
		{"put-signal-8B", "symchan-volatile-poll+fenced-signal", 0<<8 | 3<<16, false},
		{"put-signal-8B", "symchan-fenced-signal", 0<<8 | 2<<16, false},
		{"signal", "symchan-volatile-poll", 1<<8 | 1<<16, false},
		{"put-signal-8B", "symchan-volatile-poll+acquire-load", 0<<8 | 1<<18, false},
		{"signal", "symchan-volatile-poll+acquire-load", 1<<8 | 1<<18, false},
	}
	for _, kind := range []string{"put-signal-8B", "signal", "payload-in-signal"} {
		b.Run("kind="+kind, func(b *testing.B) {
			for _, c := range cases {
				if c.kind != kind {
					continue
				}
				var result float64
				gpuWorld(b, 16<<20, func(ctx context.Context, pe *pgas.PE) error {
					data, err := pgas.AllocZeroed[byte](ctx, pe, 64)
					if err != nil {
						return err
					}
					sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
					if err != nil {
						return err
					}
					g, err := pe.GPU()
					if err != nil {
						return err
					}
					fn, err := benchKernel(g, kernelPingPong)
					if err != nil {
						return err
					}
					var user *device.Module
					if c.user {
						prog, err := userPingPongProgram()
						if err != nil {
							return err
						}
						if user, err = g.Load(prog); err != nil {
							return err
						}
					}
					const iters = 20000
					var half []float64
					for rep := range 7 {
						if err := pe.Barrier(ctx); err != nil {
							return err
						}
						// Past the agent's lifetime (5 ms): the barrier's agent
						// launch has ended and does not share the GPUs.
						time.Sleep(6 * time.Millisecond)
						t0 := time.Now()
						flags := c.flags
						if pe.ID() == 0 {
							flags |= 1
						}
						if c.user {
							err = pgas.Launch(pe, user, "user_pingpong", device.D1(1), device.D1(1), 0, g.HeapDescriptor(), data, sig, 1-pe.ID(), uint64(iters), flags&1, uint64(rep*iters))
						} else {
							err = g.Stream().Launch(fn, device.D1(1), device.D1(1), 0, uint64(g.HeapDescriptor()), uint64(1-pe.ID()),
								iters, 8, uint64(data.Offset()), uint64(sig.Offset()), flags, uint64(rep*iters))
						}
						if err != nil {
							return err
						}
						if err := g.Stream().Sync(); err != nil {
							return err
						}
						if rep >= 2 {
							half = append(half, float64(time.Since(t0).Nanoseconds())/1e3/iters/2)
						}
					}
					if pe.ID() == 0 {
						result = medianOf(half)
					}
					return nil
				})
				reportImpl(b, c.impl, result*1e3, result, "us/half-RT")
			}
		})
	}
}

// userPingPong is bench_pingpong's put-with-signal ping-pong as a user
// writes it, in NVSHMEM's terms, compiled at run time: the user's path
// against symchan's own kernels (issue 36's target: 1.0×).
const userPingPong = `#include "symchan.cuh"
extern "C" __global__ void user_pingpong(const symchan_heap *h, unsigned long long *data, unsigned long long *sig, int peer,
                                         unsigned long long iters, unsigned long long initiator, unsigned long long base) {
	for (unsigned long long i = 1; i <= iters; i++) {
		const unsigned long long v = base + i;
		if (!initiator)
			symchan_wait_until(sig, SYMCHAN_CMP_GE, v);
		symchan_putmem_signal(h, data, data, 8, sig, v, SYMCHAN_SIGNAL_SET, peer);
		if (initiator)
			symchan_wait_until(sig, SYMCHAN_CMP_GE, v);
	}
}
`

// userPingPongProgram compiles userPingPong once per process.
var userPingPongProgram = sync.OnceValues(func() (kernels.Program, error) {
	return kernels.Compile("user_pingpong.cu", userPingPong, kernels.CompileOptions{})
})

// BenchmarkGPUHostPingPong: host-initiated 8-byte put-with-signal through
// the Go API (PutSignal + SignalWaitUntil), half round trip; and
// impl=symchan-onstream, the same queued on a pgas.Stream
// (PutSignalOnStream + SignalWaitUntilOnStream), the host only enqueuing
// and syncing once per 2000 round trips, as NVSHMEM's on-stream anchor
// (impl=nvshmem-onstream) does: the median of 5 such runs after 2.
func BenchmarkGPUHostPingPong(b *testing.B) {
	var half latencies
	var onStream float64
	gpuWorld(b, 16<<20, func(ctx context.Context, pe *pgas.PE) error {
		l, err := putSignalPingPong(ctx, pe)
		if err != nil {
			return err
		}
		us, err := streamPingPong(ctx, pe, 2000, 7)
		if pe.ID() == 0 {
			half, onStream = l, us
		}
		return err
	})
	half.reportImpl(b, "symchan", "us/half-RT")
	if onStream > 0 {
		reportImpl(b, "symchan-onstream", onStream*1e3, onStream, "us/half-RT")
	}
}

// streamPingPong bounces an 8-byte put-with-signal between PEs 0 and 1 on
// a pgas.Stream each, n round trips per run, and returns the median half
// round trip in µs of runs 3 to reps.
func streamPingPong(ctx context.Context, pe *pgas.PE, n, reps int) (float64, error) {
	st, err := pgas.NewStream(pe)
	if err != nil {
		return 0, err
	}
	buf, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
	if err != nil {
		return 0, err
	}
	sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
	if err != nil {
		return 0, err
	}
	me := pe.ID()
	var runs []float64
	base := uint64(0)
	for rep := range reps {
		if err := pe.Barrier(ctx); err != nil {
			return 0, err
		}
		t0 := time.Now()
		for i := 1; i <= n && me < 2; i++ {
			v := base + uint64(i)
			if me == 1 {
				if err := pgas.SignalWaitUntilOnStream(st, sig, pgas.CmpGE, v); err != nil {
					return 0, err
				}
			}
			if err := pgas.PutSignalOnStream(st, buf, buf, sig, v, pgas.SignalSet, 1-me); err != nil {
				return 0, err
			}
			if me == 0 {
				if err := pgas.SignalWaitUntilOnStream(st, sig, pgas.CmpGE, v); err != nil {
					return 0, err
				}
			}
		}
		if err := st.Sync(ctx); err != nil {
			return 0, err
		}
		base += uint64(n)
		if rep >= 2 {
			runs = append(runs, float64(time.Since(t0).Nanoseconds())/1e3/float64(n)/2)
		}
	}
	if err := st.Close(ctx); err != nil {
		return 0, err
	}
	return medianOf(runs), nil
}

// symPair allocates two zeroed symmetric arrays of n elements.
func symPair[T any](ctx context.Context, pe *pgas.PE, n int) (src, dst pgas.Sym[T], err error) {
	if src, err = pgas.AllocZeroed[T](ctx, pe, n); err != nil {
		return src, dst, err
	}
	dst, err = pgas.AllocZeroed[T](ctx, pe, n)
	return src, dst, err
}

// putSignalPingPong bounces an 8-byte PutSignal between PEs 0 and 1 (each
// waiting with SignalWaitUntil) and returns PE 0's half round trips in µs,
// one per round trip, after 200 of warm-up. Other PEs return at once.
func putSignalPingPong(ctx context.Context, pe *pgas.PE) (latencies, error) {
	buf, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
	if err != nil {
		return nil, err
	}
	sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
	if err != nil {
		return nil, err
	}
	me := pe.ID()
	if me > 1 {
		return nil, nil
	}
	if err := pe.Barrier(ctx); err != nil {
		return nil, err
	}
	msg := []uint64{0}
	var half latencies
	for v := uint64(1); v <= warmup+rounds; v++ {
		t0 := time.Now()
		if me == 1 {
			if _, err := pgas.SignalWaitUntil(ctx, pe, sig, pgas.CmpGE, v); err != nil {
				return nil, err
			}
		}
		if err := pgas.PutSignal(pe, buf, msg, sig, v, pgas.SignalSet, 1-me); err != nil {
			return nil, err
		}
		if me == 0 {
			if _, err := pgas.SignalWaitUntil(ctx, pe, sig, pgas.CmpGE, v); err != nil {
				return nil, err
			}
		}
		if v > warmup {
			half.add(time.Since(t0), 2)
		}
	}
	return half, nil
}

// The GPU messaging benchmarks time every operation: warmup of them
// first, then rounds, whose percentiles they report (latencies): enough
// that p99.9 is the 20th slowest.
const warmup, rounds = 200, 20000

// timeline keeps each timed operation's time (its latencies, in µs) and
// when it started, to tell what makes the tail: a histogram of the times
// (power-of-two µs buckets) and the spacing of the slow ones (over 3× the
// median). Slow operations one agent lifetime apart (5 ms) point at its
// relaunch; spaced at random, at the scheduler or the GC.
type timeline struct {
	start time.Time
	at    []time.Duration // since start
	us    []float64
}

func (tl *timeline) add(t0 time.Time, d time.Duration) {
	if tl.start.IsZero() {
		tl.start = t0
	}
	tl.at = append(tl.at, t0.Sub(tl.start))
	tl.us = append(tl.us, float64(d.Nanoseconds())/1e3)
}

// log writes tl's histogram and its slow operations' spacing to b's log
// (a benchmark's log is always printed).
func (tl *timeline) log(b *testing.B) {
	if len(tl.us) == 0 {
		return
	}
	med := medianOf(slices.Clone(tl.us))
	var hist [16]int // [0,1), [1,2), [2,4) … µs
	var slow []time.Duration
	for i, u := range tl.us {
		k := 0
		for v := u; v >= 1 && k < len(hist)-1; v /= 2 {
			k++
		}
		hist[k]++
		if u > 3*med {
			slow = append(slow, tl.at[i])
		}
	}
	var s strings.Builder
	s.WriteString("histogram (µs):")
	for k, n := range hist {
		if n > 0 {
			lo := 0
			if k > 0 {
				lo = 1 << (k - 1)
			}
			fmt.Fprintf(&s, " [%d,%d):%d", lo, max(1, 2*lo), n)
		}
	}
	gap := 0.0
	if len(slow) > 1 {
		gaps := make([]float64, len(slow)-1)
		for i := range gaps {
			gaps[i] = float64(slow[i+1]-slow[i]) / 1e6
		}
		gap = medianOf(gaps)
	}
	fmt.Fprintf(&s, "; %d slow (over 3× the median, %.2f µs) in %.0f ms, median gap between them %.2f ms", len(slow), med, float64(tl.at[len(tl.at)-1])/1e6, gap)
	b.Log(s.String())
}

// latencies are per-operation times in µs.
type latencies []float64

// add records d as n operations' worth (a round trip as two halves).
func (l *latencies) add(d time.Duration, n int) {
	*l = append(*l, float64(d.Nanoseconds())/1e3/float64(n))
}

// at returns the q-quantile (0 … 1) of l, l sorted.
func (l latencies) at(q float64) float64 {
	return l[min(len(l)-1, int(q*float64(len(l))))]
}

// report sets b's metrics: the median in unit, then p99 and p99.9 in
// unit-p99 and unit-p99.9 (issue 17 asks for distributions, not medians).
func (l latencies) report(b *testing.B, unit string) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	b.ReportMetric(l.at(0.5), unit)
	b.ReportMetric(l.at(0.99), unit+"-p99")
	b.ReportMetric(l.at(0.999), unit+"-p99.9")
}

// reportImpl reports l as the sub-benchmark b/impl=name, its median also
// as ns/op, beside the anchors' impl= lines (see reportImpl).
func (l latencies) reportImpl(b *testing.B, impl, unit string) {
	b.Run("impl="+impl, func(b *testing.B) {
		if len(l) == 0 {
			return // a process that does not run PE 0 (gpu.backend nvshmem)
		}
		l.report(b, unit)
		b.ReportMetric(l.at(0.5)*1e3, "ns/op")
	})
}

// BenchmarkGPUChanRoundTrip: Chan[uint64] send → recv → send back between
// the two GPU PEs, driven from Go; mailboxes in GPU memory.
func BenchmarkGPUChanRoundTrip(b *testing.B) {
	gpuWorld(b, 64<<20, func(ctx context.Context, pe *pgas.PE) error {
		ch, err := actors.NewChan[uint64](ctx, pe, actors.KeepStats())
		if err != nil {
			return err
		}
		defer ch.Close(ctx)
		me, peer := pe.ID(), 1-pe.ID()
		var tl timeline
		for i := range warmup + rounds {
			t0 := time.Now()
			if me == 0 {
				if err := ch.Send(ctx, peer, uint64(i)); err != nil {
					return err
				}
			}
			v, err := ch.Recv(ctx)
			if err != nil {
				return err
			}
			if me == 1 {
				if err := ch.Send(ctx, peer, v); err != nil {
					return err
				}
			}
			if i >= warmup {
				tl.add(t0, time.Since(t0))
			}
		}
		if me == 0 {
			tl.log(b)
			latencies(tl.us).report(b, "us/RT") // sorts tl.us: after log
			reportTorn(b, ch.Mailbox())
		}
		return pe.Barrier(ctx)
	})
}

// reportTorn reports the share of m's received messages whose sealed slot
// was read torn (its word seen before all of its data) and read again.
func reportTorn(b *testing.B, m *actors.Mailbox) {
	if st := m.Stats(); st.Received > 0 {
		b.ReportMetric(float64(st.TornReads)/float64(st.Received), "torn-reads/msg")
	}
}

// BenchmarkGPUChanStream: PE 0 sends 8-byte Chan messages to PE 1's
// mailbox in GPU memory as fast as its sending goroutines can (one, then
// eight, sharing the Chan), and PE 1 receives them from Go: messages per
// second from the first send to the last receive, the median of reps
// after warm-up. The anchor is NVSHMEM's host-initiated put-with-signal
// stream (bench/anchors/nvshmem_bench.cu, impl=nvshmem-onstream).
func BenchmarkGPUChanStream(b *testing.B) {
	const msgs, reps = 20000, 7
	for _, senders := range []int{1, 8} {
		b.Run(fmt.Sprintf("senders=%d", senders), func(b *testing.B) {
			gpuWorld(b, 64<<20, func(ctx context.Context, pe *pgas.PE) error {
				ch, err := actors.NewChan[uint64](ctx, pe, actors.KeepStats())
				if err != nil {
					return err
				}
				defer ch.Close(ctx)
				var rates []float64
				for rep := range reps {
					if err := pe.Barrier(ctx); err != nil {
						return err
					}
					t0 := time.Now()
					if pe.ID() == 0 {
						errs := make(chan error, senders)
						for g := range senders {
							go func() {
								for i := g; i < msgs; i += senders {
									if err := ch.Send(ctx, 1, uint64(i)); err != nil {
										errs <- err
										return
									}
								}
								errs <- nil
							}()
						}
						for range senders {
							if err := <-errs; err != nil {
								return err
							}
						}
					} else {
						for range msgs {
							if _, err := ch.Recv(ctx); err != nil {
								return err
							}
						}
					}
					if err := pe.Barrier(ctx); err != nil { // the last receive is done
						return err
					}
					if rep >= 2 {
						rates = append(rates, msgs/time.Since(t0).Seconds())
					}
				}
				if pe.ID() == 1 {
					return nil
				}
				r := medianOf(rates)
				b.ReportMetric(1e9/r, "ns/op")
				b.ReportMetric(r/1e6, "Mmsg/s")
				return nil
			})
		})
	}
}

// BenchmarkGPUFutureRoundTrip: PE 0 sends a request carrying a future's
// ReplyTo to PE 1 over a Chan and awaits the reply (8 bytes), driven from
// Go; mailboxes and reply slots in GPU memory.
func BenchmarkGPUFutureRoundTrip(b *testing.B) {
	gpuWorld(b, 64<<20, func(ctx context.Context, pe *pgas.PE) error {
		sys, reqs, err := futureEnds(ctx, pe)
		if err != nil {
			return err
		}
		defer reqs.Close(ctx)
		if pe.ID() == 1 {
			if err := serve(ctx, sys, reqs, warmup+rounds); err != nil {
				return err
			}
			return pe.Barrier(ctx)
		}
		var tl timeline
		for i := range uint64(warmup + rounds) {
			t0 := time.Now()
			if err := ask(ctx, sys, reqs, i); err != nil {
				return err
			}
			if i >= warmup {
				tl.add(t0, time.Since(t0))
			}
		}
		tl.log(b)
		latencies(tl.us).report(b, "us/RT") // sorts tl.us: after log
		return pe.Barrier(ctx)
	})
}

// BenchmarkGPUWaitAnyWakeup: wakeRound over 1024 GPU-resident words: PE 1
// waits with WaitUntilAny, PE 0 sets one (a different one each time) and
// waits for the echo on its own word: the round trip over two.
func BenchmarkGPUWaitAnyWakeup(b *testing.B) {
	gpuWorld(b, 16<<20, func(ctx context.Context, pe *pgas.PE) error {
		var words, echo pgas.Sym[uint64]
		if err := pgas.AllocAll(ctx, pe, pgas.ArrayOf(&words, 1024), pgas.ArrayOf(&echo, 1)); err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		var half latencies
		for v := uint64(1); v <= warmup+rounds; v++ {
			t0 := time.Now()
			if err := wakeRound(ctx, pe, words, echo, v); err != nil {
				return err
			}
			if v > warmup {
				half.add(time.Since(t0), 2)
			}
		}
		if pe.ID() == 0 {
			half.report(b, "us/half-RT")
		}
		return nil
	})
}
