package bench

// Benchmarks of the routines with a performance story (issue 19): a
// strided put against a loop of puts, lock hand-over under contention
// against sync.Mutex, and strided against contiguous alltoall. They run on
// the backend pgas.Config resolves (SYMCHAN_BACKEND; host by default), so
// the GPU script runs the same benchmarks on the cuda and nvshmem
// backends; bench/anchors/nvshmem_routines.cu prints NVSHMEM's figures
// under the same names (NVSHMEM has no host strided put, no lock and no
// alltoalls: its anchors are what an NVSHMEM program does instead).

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// runDefault runs fn on n PEs of the configured backend.
func runDefault(b *testing.B, n int, fn func(ctx context.Context, pe *pgas.PE) error) {
	b.Helper()
	b.StopTimer()
	if err := pgas.Run(context.Background(), pgas.Config{PEs: n, HeapSize: 8 << 20}, fn); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStridedPut: n int64 elements, 4 apart at the target, from PE 0
// to PE 1: one IPut (impl=iput) against a P per element (impl=loop).
func BenchmarkStridedPut(b *testing.B) {
	for _, n := range []int{16, 1024} {
		for _, impl := range []string{"iput", "loop"} {
			b.Run(fmt.Sprintf("impl=%s/n=%d", impl, n), func(b *testing.B) {
				runDefault(b, 2, func(ctx context.Context, pe *pgas.PE) error {
					dst, err := pgas.AllocZeroed[int64](ctx, pe, 4*n)
					if err != nil {
						return err
					}
					if pe.ID() == 0 {
						src := make([]int64, n)
						b.StartTimer()
						for range b.N {
							if impl == "iput" {
								err = pgas.IPut(pe, dst, src, 4, 1, n, 1)
							} else {
								for i, v := range src {
									if err = pgas.P(pe, dst.Index(4*i), v, 1); err != nil {
										break
									}
								}
							}
							if err == nil {
								err = pe.Quiet()
							}
							if err != nil {
								return err
							}
						}
						b.StopTimer()
					}
					return pe.Barrier(ctx)
				})
			})
		}
	}
}

// BenchmarkLockHandover: every PE takes and releases one lock b.N times;
// an op is one acquire-release, whichever PE made it. impl=mutex is the
// anchor: goroutines sharing a sync.Mutex.
func BenchmarkLockHandover(b *testing.B) {
	for _, pes := range []int{2, 4} {
		b.Run(fmt.Sprintf("impl=lock/pes=%d", pes), func(b *testing.B) {
			runDefault(b, pes, func(ctx context.Context, pe *pgas.PE) error {
				lk, err := pgas.NewLock(ctx, pe)
				if err != nil {
					return err
				}
				per := (b.N + pes - 1) / pes
				if err := pe.Barrier(ctx); err != nil {
					return err
				}
				if pe.ID() == 0 {
					b.StartTimer()
				}
				for range per {
					if err := lk.Lock(ctx); err != nil {
						return err
					}
					if err := lk.Unlock(); err != nil {
						return err
					}
				}
				if err := pe.Barrier(ctx); err != nil {
					return err
				}
				if pe.ID() == 0 {
					b.StopTimer()
				}
				return lk.Free(ctx)
			})
		})
		b.Run(fmt.Sprintf("impl=mutex/pes=%d", pes), func(b *testing.B) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			per := (b.N + pes - 1) / pes
			for range pes {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range per {
						mu.Lock()
						//lint:ignore SA2001 the hand-over is what is measured
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
		})
	}
}

// BenchmarkAllToAll: each of 2 PEs exchanges n int64 per peer, contiguous
// (impl=alltoall), 2 apart at both ends (impl=alltoalls), or laid out by
// count and offset arrays (impl=alltoallv, n for every pair: the cost of
// its layout exchange against impl=alltoall).
func BenchmarkAllToAll(b *testing.B) {
	const pes = 2
	for _, n := range []int{8, 4096} {
		for _, impl := range []string{"alltoall", "alltoalls", "alltoallv"} {
			b.Run(fmt.Sprintf("impl=%s/n=%d", impl, n), func(b *testing.B) {
				runDefault(b, pes, func(ctx context.Context, pe *pgas.PE) error {
					src, err := pgas.AllocZeroed[int64](ctx, pe, 2*pes*n)
					if err != nil {
						return err
					}
					dst, err := pgas.AllocZeroed[int64](ctx, pe, 2*pes*n)
					if err != nil {
						return err
					}
					tm := pe.TeamWorld()
					var layout [4]pgas.Sym[int64] // send counts, offsets; receive counts, offsets
					for i := range layout {
						if layout[i], err = pgas.Alloc[int64](ctx, pe, pes); err != nil {
							return err
						}
						v := []int64{int64(n), int64(n)}
						if i%2 == 1 {
							v = []int64{0, int64(n)}
						}
						if err := pgas.Put(pe, layout[i], v, pe.ID()); err != nil {
							return err
						}
					}
					if err := pe.Barrier(ctx); err != nil {
						return err
					}
					if pe.ID() == 0 {
						b.StartTimer()
					}
					for range b.N {
						switch impl {
						case "alltoall":
							err = pgas.AllToAll(ctx, tm, dst, src, n)
						case "alltoalls":
							err = pgas.AllToAlls(ctx, tm, dst, src, 2, 2, n)
						default:
							err = pgas.AllToAllV(ctx, tm, dst, src, layout[0], layout[1], layout[2], layout[3])
						}
						if err != nil {
							return err
						}
					}
					if pe.ID() == 0 {
						b.StopTimer()
					}
					return nil
				})
			})
		}
	}
}

// BenchmarkWorldBarrier: a barrier of 2 PEs on the configured backend, one
// round of symchan's dissemination barrier (docs/scale.md multiplies it
// by the rounds of larger worlds).
func BenchmarkWorldBarrier(b *testing.B) {
	runDefault(b, 2, func(ctx context.Context, pe *pgas.PE) error {
		return timedOnPE0(ctx, b, pe, func() error { return pe.Barrier(ctx) })
	})
}

// BenchmarkReduceAll: a to-all sum of 8 int64 over a world of 2 and of 8
// host PEs, the smallest reduction (issue 36 compares its arguments across
// the members in its first synchronisation).
func BenchmarkReduceAll(b *testing.B) {
	for _, pes := range []int{2, 8} {
		b.Run(fmt.Sprintf("pes=%d", pes), func(b *testing.B) {
			runWorld(b, pes, 4<<20, func(ctx context.Context, pe *pgas.PE) error {
				src, err := pgas.AllocZeroed[int64](ctx, pe, 8)
				if err != nil {
					return err
				}
				dst, err := pgas.AllocZeroed[int64](ctx, pe, 8)
				if err != nil {
					return err
				}
				return timedOnPE0(ctx, b, pe, func() error { return pgas.ReduceAll(ctx, pe.TeamWorld(), pgas.ReduceSum, dst, src, 8) })
			})
		})
	}
}
