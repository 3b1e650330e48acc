//go:build cuda

package bench

// The nvshmem backend against plain NVSHMEM: run under symrun, one process
// per PE, beside bench/anchors (scripts/gpu-run.sh does):
//
//	symrun -n 2 ./bench.test -test.run '^$' -test.bench NVSHMEM -test.benchtime 1x
//
// Every process runs the same benchmarks in the same order; PE 0 reports.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/bootstrap"
	_ "github.com/symchan/symchan/pgas/nvshmem"
)

func nvshmemWorld(b *testing.B, heap int64, fn func(ctx context.Context, pe *pgas.PE) error) {
	b.Helper()
	if _, err := bootstrap.FromEnv(); errors.Is(err, bootstrap.ErrNoLauncher) {
		b.Skip("run under symrun")
	}
	if err := pgas.Run(context.Background(), pgas.Config{Backend: "nvshmem", HeapSize: heap}, fn); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkNVSHMEMPut: PE 0 puts a symmetric buffer to PE 1 (PutSym:
// nvshmemx_putmem_on_stream, then quiet and a stream synchronisation),
// timed by the host clock as the anchor's put_on_stream_wall.
func BenchmarkNVSHMEMPut(b *testing.B) {
	for _, size := range gpuSizes {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			var result float64 // PE 0's; other processes report nothing
			nvshmemWorld(b, 2*int64(size)+16<<20, func(ctx context.Context, pe *pgas.PE) error {
				src, dst, err := symPair[byte](ctx, pe, size)
				if err != nil {
					return err
				}
				if pe.ID() == 0 {
					var bw []float64
					for rep := range 25 {
						t0 := time.Now()
						if err := pgas.PutSym(pe, dst, src, 1); err != nil {
							return err
						}
						if rep >= 5 {
							bw = append(bw, float64(size)/time.Since(t0).Seconds()/1e9)
						}
					}
					result = medianOf(bw)
				}
				return pe.Barrier(ctx)
			})
			if result > 0 {
				reportImpl(b, "symchan", float64(size)/result, result, "GB/s")
			}
		})
	}
}

// BenchmarkNVSHMEMPingPong: 8-byte PutSignal + SignalWaitUntil between PE
// 0 and PE 1 through the Go API, half round trip; the anchor is
// pingpong_host_blocking (putmem_signal_on_stream, then
// signal_wait_until_on_stream and a stream synchronisation each step).
func BenchmarkNVSHMEMPingPong(b *testing.B) {
	var half latencies
	nvshmemWorld(b, 16<<20, func(ctx context.Context, pe *pgas.PE) error {
		l, err := putSignalPingPong(ctx, pe)
		if pe.ID() == 0 {
			half = l
		}
		return err
	})
	if len(half) > 0 {
		half.reportImpl(b, "symchan", "us/half-RT")
	}
}
