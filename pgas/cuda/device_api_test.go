//go:build cuda

package cuda_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

// The device API of symchan.cuh on 2 GPUs: PE 0's kernel (a cooperative
// launch) puts with the warp, block and thread forms of put-with-signal;
// PE 1's kernel waits for them on the device with wait_until_all, _any
// and _some; the host checks the data and what the waits reported.
func TestDeviceAPI(t *testing.T) {
	if gpus(t) < 2 {
		t.Skip("needs 2 GPUs")
	}
	const n = 3000 // bytes per form: not a multiple of 16
	err := pgas.Run(context.Background(), pgas.Config{Backend: "cuda", PEs: 2, HeapSize: 64 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		src, err := pgas.AllocZeroed[byte](ctx, pe, 3*n)
		if err != nil {
			return err
		}
		dst, err := pgas.AllocZeroed[byte](ctx, pe, 3*n)
		if err != nil {
			return err
		}
		sig, err := pgas.AllocZeroed[uint64](ctx, pe, 3)
		if err != nil {
			return err
		}
		g, st, err := gpuStream(pe)
		if err != nil {
			return err
		}
		defer st.Destroy()
		data := make([]byte, 3*n)
		for i := range data {
			data[i] = byte(i*13 + 5)
		}
		if pe.ID() == 0 {
			if err := pgas.Put(pe, src, data, 0); err != nil {
				return err
			}
		}
		out, err := g.Context().Alloc(8 * 5)
		if err != nil {
			return err
		}
		defer g.Context().Free(out)
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() == 1 {
			fn, err := g.Module().Function(kernels.TestWaits)
			if err != nil {
				return err
			}
			if err := st.Launch(fn, device.D1(1), device.D1(1), 0, uint64(g.HeapDescriptor()), uint64(sig.Offset()), uint64(out)); err != nil {
				return err
			}
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() == 0 {
			fn, err := g.Module().Function(kernels.TestPutSignalVariants)
			if err != nil {
				return err
			}
			if err := st.LaunchCooperative(fn, device.D1(1), device.D1(64), 0, uint64(g.HeapDescriptor()), 1,
				uint64(src.Offset()), uint64(dst.Offset()), n, uint64(sig.Offset())); err != nil {
				return err
			}
		}
		if err := st.Sync(); err != nil {
			return err
		}
		if pe.ID() == 1 {
			// The host sees the same signals, then the data.
			if err := signals.WaitUntilAllVector(ctx, pe, sig, nil, signals.GE, []uint64{1, 1, 3}); err != nil {
				return err
			}
			got := make([]byte, 3*n)
			if err := pgas.Get(pe, got, dst, 1); err != nil {
				return err
			}
			for i := range got {
				if got[i] != data[i] {
					return fmt.Errorf("byte %d (form %d): %d, want %d", i, i/n, got[i], data[i])
				}
			}
			b := make([]byte, 40)
			if err := st.CopyOut(b, out); err != nil {
				return err
			}
			r := make([]uint64, 5)
			for i := range r {
				r[i] = binary.LittleEndian.Uint64(b[8*i:])
			}
			// all: done; any EQ 3 from 1: word 2; some GE 1 with word 1
			// masked: words 0 and 2.
			if r[0] != 1 || r[1] != 2 || r[2] != 2 || r[3] != 0 || r[4] != 2 {
				return fmt.Errorf("device waits reported %v, want [1 2 2 0 2]", r)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
