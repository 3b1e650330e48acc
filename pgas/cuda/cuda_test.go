//go:build cuda

package cuda_test

import (
	"context"
	"strings"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
	_ "github.com/symchan/symchan/pgas/cuda"
	"github.com/symchan/symchan/signals"
)

func gpus(t *testing.T) int {
	n, err := device.Count()
	if err != nil || n == 0 {
		t.Skipf("no GPU: %v", err)
	}
	return n
}

func freeMem(t *testing.T, n int) []int64 {
	t.Helper()
	free := make([]int64, n)
	for i := range n {
		c, err := device.NewContext(i)
		if err != nil {
			t.Fatal(err)
		}
		if free[i], _, err = c.MemInfo(); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	return free
}

// Everything a world allocates on the GPUs is freed when Run returns.
func TestMemoryFreedAfterRun(t *testing.T) {
	n := gpus(t)
	before := freeMem(t, n)
	err := pgas.Run(context.Background(), pgas.Config{Backend: "cuda", HeapSize: 1 << 30}, func(ctx context.Context, pe *pgas.PE) error {
		w, err := pgas.AllocZeroed[uint64](ctx, pe, 1024)
		if err != nil {
			return err
		}
		// Waits allocate their pinned slots lazily: make some.
		_, err = signals.TestAny(pe, w, nil, pgas.CmpEQ, 1)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	after := freeMem(t, n)
	for i := range n {
		// The driver's own bookkeeping may move by a few MiB.
		if d := before[i] - after[i]; d > 8<<20 || d < -(8<<20) {
			t.Errorf("GPU %d: %d bytes free before the world, %d after", i, before[i], after[i])
		}
	}
}

func TestOpenErrors(t *testing.T) {
	n := gpus(t)
	for _, tc := range []struct {
		cfg  pgas.Config
		want string
	}{
		{pgas.Config{Backend: "cuda", PEs: n + 1}, "GPUs are visible"},
		{pgas.Config{Backend: "cuda", HeapSize: 1 << 50}, "does not fit"},
	} {
		err := pgas.Run(context.Background(), tc.cfg, func(context.Context, *pgas.PE) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error containing %q", tc.cfg, err, tc.want)
		}
	}
}

// gpuStream returns pe's GPU and a new stream on it (the caller destroys
// it).
func gpuStream(pe *pgas.PE) (pgas.GPU, *device.Stream, error) {
	g, err := pe.GPU()
	if err != nil {
		return nil, nil, err
	}
	st, err := g.Context().NewStream()
	return g, st, err
}
