//go:build cuda

package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/bootstrap"
	"github.com/symchan/symchan/pgas/cuda"
)

// The collectives on GPUs against NVSHMEM's (bench/anchors/nvshmem_coll.cu
// prints the same names with impl=nvshmem), on the world team, at each
// world size of collWorlds (pes=N in the name; under nvshmem, the
// launcher's N processes):
// BenchmarkGPUCollectiveOnStream enqueues k of one collective on a
// pgas.Stream (BarrierOnStream, BroadcastOnStream, ReduceAllOnStream of
// float32 and float64 sums, FCollectOnStream, AllToAllOnStream) and syncs;
// BenchmarkGPUCollectiveDevice launches a user's kernel, compiled at run
// time, that runs k of symchan.cuh's block collectives (one block of
// collThreads threads); BenchmarkGPUCollectiveBlocking calls k of the
// blocking collectives from Go (Barrier, Broadcast, ReduceAll, FCollect,
// AllToAll), each returning before the next (on the GPU backends each
// one launch on the device), and BenchmarkGPUCollectiveOnStreamSync
// syncs after each *OnStream call. size is the bytes each
// member contributes (a reduction's or a broadcast's array, an fcollect's
// block, an alltoall's block for each member); a figure is the median over
// repetitions 3 to 7 of the time of k collectives over k.

var collSizes = []int{8, 64, 512, 4 << 10, 32 << 10, 256 << 10, 2 << 20, 16 << 20, 64 << 20}

// collThreads is the device benchmark's block (nvshmem_coll.cu: collThreads).
const collThreads = 256

var collOps = []string{"barrier", "broadcast", "reduce-f32", "reduce-f64", "fcollect", "alltoall"}

// collMax bounds the sizes the collective benchmarks run (an A/B of small
// collectives need not wait for the 64 MiB ones).
var collMax = flag.Int("coll.max", 0, "largest size in bytes of the collective benchmarks (0: all)")

// collIters is k for a size (nvshmem_coll.cu: collIters).
func collIters(size int) int {
	if size < 1 {
		size = 1
	}
	return min(200, max(4, (32<<20)/size))
}

// collSource is the device benchmark's kernels: iters of collective op
// by a group, one kernel a scope (coll_loop_thread: thread 0,
// coll_loop_warp: the first warp, coll_loop_block: the block). One kernel
// holding every scope's forms behind a switch spilled registers (496
// bytes of stack, 2.5 KiB of spill loads where a scope alone has none),
// which slowed the block forms it measured.
const collSource = `#include "symchan.cuh"
#define COLL_LOOP(scope, form, in)                                                                                                  \
	extern "C" __global__ void coll_loop_##scope(const symchan_heap *h, symchan_team *t, int op, void *dst, void *src,             \
	                                             unsigned long long size, int iters) {                                            \
		if (!(in))                                                                                                                \
			return;                                                                                                               \
		for (int i = 0; i < iters; i++) {                                                                                         \
			switch (op) {                                                                                                         \
			case 0: symchan_barrier##form(h, t); break;                                                                           \
			case 1: symchan_broadcastmem##form(h, t, dst, src, size, 0); break;                                                   \
			case 2: symchan_float_sum_reduce##form(h, t, (float *)dst, (const float *)src, size / 4); break;                      \
			case 3: symchan_double_sum_reduce##form(h, t, (double *)dst, (const double *)src, size / 8); break;                   \
			case 4: symchan_fcollectmem##form(h, t, dst, src, size); break;                                                       \
			case 5: symchan_alltoallmem##form(h, t, dst, src, size); break;                                                       \
			}                                                                                                                     \
		}                                                                                                                         \
	}
COLL_LOOP(thread, , threadIdx.x == 0)
COLL_LOOP(warp, _warp, threadIdx.x < 32)
COLL_LOOP(block, _block, true)
`

// collScope is the group of the device benchmark's collectives; other
// than block, the names say it (scope=warp, scope=thread), as NVIDIA's
// perftests' rows do.
var collScope = flag.String("coll.scope", "block", "group of BenchmarkGPUCollectiveDevice's collectives: block, warp or thread")

func BenchmarkGPUCollectiveOnStream(b *testing.B) { collectiveBench(b, collOnStream) }
func BenchmarkGPUCollectiveDevice(b *testing.B)   { collectiveBench(b, collInKernel) }
func BenchmarkGPUCollectiveBlocking(b *testing.B) { collectiveBench(b, collBlocking) }

// BenchmarkGPUCollectiveOnStreamSync is the blocking form's yardstick: each
// *OnStream call followed by its Stream.Sync.
func BenchmarkGPUCollectiveOnStreamSync(b *testing.B) { collectiveBench(b, collOnStreamSync) }

// How a collective benchmark calls its collectives.
type collForm int

const (
	collOnStream     collForm = iota // k *OnStream calls, then a Sync
	collInKernel                     // a kernel of k block collectives
	collBlocking                     // k blocking calls from Go
	collOnStreamSync                 // k times an *OnStream call and a Sync
)

// collWorlds are the world sizes of the collective benchmarks: 2 and 4
// PEs and every GPU of the machine (sizes past the GPUs' number only
// where SYMCHAN_CUDA_SHARE_GPUS=1 shares them); under nvshmem, the
// launcher's process count alone.
func collWorlds() ([]int, error) {
	if *gpuBackend == "nvshmem" {
		info, err := bootstrap.FromEnv()
		if err != nil {
			return nil, fmt.Errorf("the nvshmem collectives run under symrun: %w", err)
		}
		return []int{info.Size}, nil
	}
	ngpu, err := device.Count()
	if err != nil {
		return nil, err
	}
	var ws []int
	for _, n := range []int{2, 4, ngpu} {
		if n < 2 || slices.Contains(ws, n) || (n > ngpu && os.Getenv(cuda.EnvShareGPUs) != "1") {
			continue
		}
		ws = append(ws, n)
	}
	return ws, nil
}

func collectiveBench(b *testing.B, form collForm) {
	worlds, err := collWorlds()
	if err != nil {
		b.Fatal(err)
	}
	for _, npes := range worlds {
		b.Run(fmt.Sprintf("pes=%d", npes), func(b *testing.B) { collectiveWorld(b, form, npes) })
	}
}

// collectiveWorld is collectiveBench in a world of npes PEs, its heap
// sized for npes: every member's source and destination of the largest
// size for each member, and the reductions' float arrays.
func collectiveWorld(b *testing.B, form collForm, npes int) {
	inKernel := form == collInKernel
	if !slices.Contains([]string{"block", "warp", "thread"}, *collScope) {
		b.Fatalf("-coll.scope %q: want block, warp or thread", *collScope)
	}
	loop := "coll_loop_" + *collScope
	var prog kernels.Program
	if inKernel {
		var err error
		if prog, err = kernels.Compile("coll.cu", collSource, kernels.CompileOptions{CacheDir: b.TempDir()}); err != nil {
			b.Fatal(err)
		}
	}
	maxSize := collSizes[len(collSizes)-1]
	if *collMax > 0 {
		maxSize = min(maxSize, max(*collMax, 8))
	}
	type key struct {
		op   string
		size int
	}
	ns := map[key]float64{}
	var order []key
	heap := (2*int64(npes)+4)*int64(maxSize) + 64<<20
	gpuWorldN(b, npes, heap, func(ctx context.Context, pe *pgas.PE) error {
		world := pe.TeamWorld()
		src, dst, err := symPair[byte](ctx, pe, npes*maxSize)
		if err != nil {
			return err
		}
		f32src, f32dst, err := symPair[float32](ctx, pe, maxSize/4)
		if err != nil {
			return err
		}
		f64src, f64dst, err := symPair[float64](ctx, pe, maxSize/8)
		if err != nil {
			return err
		}
		st, err := pgas.NewStream(pe)
		if err != nil {
			return err
		}
		var mod *device.Module
		var g pgas.GPU
		if inKernel {
			if g, err = pe.GPU(); err != nil {
				return err
			}
			if mod, err = g.Load(prog); err != nil {
				return err
			}
		}
		blocking := func(op, size int) error {
			switch op {
			case 0:
				return world.Barrier(ctx)
			case 1:
				return pgas.Broadcast(ctx, world, dst, src, size, 0)
			case 2:
				return pgas.ReduceAll(ctx, world, pgas.ReduceSum, f32dst, f32src, size/4)
			case 3:
				return pgas.ReduceAll(ctx, world, pgas.ReduceSum, f64dst, f64src, size/8)
			case 4:
				return pgas.FCollect(ctx, world, dst, src, size)
			default:
				return pgas.AllToAll(ctx, world, dst, src, size)
			}
		}
		enqueue := func(op, size int) error {
			if form == collBlocking {
				return blocking(op, size)
			}
			switch op {
			case 0:
				return pgas.BarrierOnStream(st, world)
			case 1:
				return pgas.BroadcastOnStream(st, world, dst, src, size, 0)
			case 2:
				return pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, f32dst, f32src, size/4)
			case 3:
				return pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, f64dst, f64src, size/8)
			case 4:
				return pgas.FCollectOnStream(st, world, dst, src, size)
			default:
				return pgas.AllToAllOnStream(st, world, dst, src, size)
			}
		}
		for op, name := range collOps {
			for _, size := range collSizes {
				if op == 0 {
					if size != collSizes[0] {
						continue
					}
					size = 0
				}
				if *collMax > 0 && size > *collMax {
					continue
				}
				k := collIters(size)
				var runs []float64
				for rep := range 7 {
					if err := pe.Barrier(ctx); err != nil {
						return err
					}
					t0 := time.Now()
					if inKernel {
						var s, d any = src, dst
						switch op {
						case 2:
							s, d = f32src, f32dst
						case 3:
							s, d = f64src, f64dst
						}
						err = pgas.LaunchOnStream(st, mod, loop, device.D1(1), device.D1(collThreads), 0,
							g.HeapDescriptor(), world, op, d, s, uint64(size), k)
					} else {
						for range k {
							if err = enqueue(op, size); err != nil {
								break
							}
							if form == collOnStreamSync {
								if err = st.Sync(ctx); err != nil {
									break
								}
							}
						}
					}
					if err != nil {
						return fmt.Errorf("%s size %d: %w", name, size, err)
					}
					if err := st.Sync(ctx); err != nil {
						return fmt.Errorf("%s size %d: %w", name, size, err)
					}
					if rep >= 2 {
						runs = append(runs, float64(time.Since(t0).Nanoseconds())/float64(k))
					}
				}
				if pe.ID() == 0 {
					ns[key{name, size}] = medianOf(runs)
					order = append(order, key{name, size})
				}
			}
		}
		return st.Close(ctx)
	})
	sc := ""
	if inKernel && *collScope != "block" {
		sc = "/scope=" + *collScope
	}
	for _, k := range order {
		b.Run(fmt.Sprintf("op=%s/size=%d%s", k.op, k.size, sc), func(b *testing.B) {
			reportImpl(b, "symchan", ns[k], ns[k]/1e3, "us/op")
		})
	}
}
