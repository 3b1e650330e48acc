//go:build cuda

package cuda_test

import (
	"context"
	"encoding/binary"
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
		_, err = signals.TestAny(pe, w, nil, signals.EQ, 1)
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

// Stream-ordered put-with-signal and wait, queued behind other work: PE 0
// puts a device buffer to PE 1 and signals; PE 1's stream waits for the
// signal, then copies what arrived, and the host checks it.
func TestOnStream(t *testing.T) {
	if gpus(t) < 2 {
		t.Skip("needs 2 GPUs")
	}
	err := pgas.Run(context.Background(), pgas.Config{Backend: "cuda", PEs: 2, HeapSize: 64 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		src, err := pgas.AllocZeroed[uint64](ctx, pe, 512)
		if err != nil {
			return err
		}
		dst, err := pgas.AllocZeroed[uint64](ctx, pe, 512)
		if err != nil {
			return err
		}
		out, err := pgas.AllocZeroed[uint64](ctx, pe, 512)
		if err != nil {
			return err
		}
		sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		g, st, err := gpuStream(pe)
		if err != nil {
			return err
		}
		defer st.Destroy()
		if pe.ID() == 1 {
			// Queue the wait and the copy behind it before PE 0 sends.
			if err := g.SignalWaitOnStream(st, sig.Offset(), 7); err != nil {
				return err
			}
			if err := st.CopyPeer(g.Addr(1, out.Offset()), g.Context(), g.Addr(1, dst.Offset()), g.Context(), dst.Bytes()); err != nil {
				return err
			}
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() == 0 {
			vals := make([]uint64, 512)
			for i := range vals {
				vals[i] = uint64(i) * 3
			}
			if err := pgas.Put(pe, src, vals, 0); err != nil {
				return err
			}
			if err := pe.Quiet(); err != nil {
				return err
			}
			if err := g.PutSignalOnStream(st, 1, dst.Offset(), g.Addr(0, src.Offset()), src.Bytes(), sig.Offset(), 7, pgas.SignalSet); err != nil {
				return err
			}
		}
		if err := st.Sync(); err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() == 1 {
			got := make([]byte, out.Bytes())
			if err := st.CopyOut(got, g.Addr(1, out.Offset())); err != nil {
				return err
			}
			for i := range 512 {
				if v := binary.LittleEndian.Uint64(got[8*i:]); v != uint64(i)*3 {
					t.Errorf("word %d after the stream wait: %d, want %d", i, v, i*3)
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
