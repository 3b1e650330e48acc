package tmpchk

import (
	"context"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

func TestExtraCollective(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	t0 := time.Now()
	err := pgas.Run(ctx, pgas.Config{PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		if pe.ID() == 0 {
			return pe.Barrier(ctx)
		}
		return nil
	})
	t.Logf("barrier with a returned peer: %v after %v", err, time.Since(t0))
	t0 = time.Now()
	err = pgas.Run(ctx, pgas.Config{PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		w, _ := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if pe.ID() == 0 {
			return signals.WaitUntil(ctx, pe, w, signals.EQ, 1)
		}
		return nil
	})
	t.Logf("wait on a word nobody will write: %v after %v", err, time.Since(t0))
}
