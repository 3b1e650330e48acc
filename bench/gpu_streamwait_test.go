//go:build cuda

package bench

import (
	"context"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// BenchmarkGPUStreamPingPong: two PEs pass a token on their streams
// alone, k rounds queued at once: PE 0 puts 8 bytes with a signal of
// round i to PE 1 and its stream waits for PE 1's signal of i
// (PutSignalOnStream, SignalWaitUntilOnStream), PE 1 the mirror; then
// both Sync. A figure is the round trip, the median over repetitions
// after two of warm-up of the time of k rounds over k: what a stream's
// wait costs on the GPU (the wait kernel, which also watches the world's
// abort word; before it, a stream memory operation for ≥).
func BenchmarkGPUStreamPingPong(b *testing.B) {
	const k, reps = 500, 9
	gpuWorld(b, 16<<20, func(ctx context.Context, pe *pgas.PE) error {
		buf, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		st, err := pgas.NewStream(pe)
		if err != nil {
			return err
		}
		defer st.Close(ctx)
		peer := 1 - pe.ID()
		var times []float64
		base := uint64(0)
		for rep := range reps + 2 {
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			t0 := time.Now()
			for i := base + 1; i <= base+k; i++ {
				if pe.ID() == 1 {
					if err := pgas.SignalWaitUntilOnStream(st, sig, pgas.CmpGE, i); err != nil {
						return err
					}
				}
				if err := pgas.PutSignalOnStream(st, buf, buf, sig, i, pgas.SignalSet, peer); err != nil {
					return err
				}
				if pe.ID() == 0 {
					if err := pgas.SignalWaitUntilOnStream(st, sig, pgas.CmpGE, i); err != nil {
						return err
					}
				}
			}
			if err := st.Sync(ctx); err != nil {
				return err
			}
			base += k
			if rep >= 2 {
				times = append(times, float64(time.Since(t0))/k)
			}
		}
		if pe.ID() == 0 {
			b.ReportMetric(medianOf(times), "ns/op")
		}
		return nil
	})
}
