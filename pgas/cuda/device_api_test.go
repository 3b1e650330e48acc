//go:build cuda

package cuda_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/symchan/symchan/conformance"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/cuda"
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
			fn, err := conformanceKernel(g, "test_waits")
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
			fn, err := conformanceKernel(g, "test_put_signal_variants")
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
			if err := signals.WaitUntilAllVector(ctx, pe, sig, nil, pgas.CmpGE, []uint64{1, 1, 3}); err != nil {
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

// The routines symchan.cuh adds for issue 19 (strided put and get, fetching
// atomics, peer pointers, fcollect and alltoall), on 2 PEs whose kernels run
// at once (sharing one GPU when the machine has one).
func TestDeviceRoutines(t *testing.T) {
	if gpus(t) < 2 {
		t.Setenv(cuda.EnvShareGPUs, "1")
	}
	const npes = 2
	err := pgas.Run(context.Background(), pgas.Config{Backend: "cuda", PEs: npes, HeapSize: 16 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		w, err := pgas.AllocZeroed[uint64](ctx, pe, 256)
		if err != nil {
			return err
		}
		me := pe.ID()
		src := make([]uint64, 32)
		for i := range src {
			src[i] = uint64(me*1000 + i)
		}
		if err := pgas.Put(pe, w, src, me); err != nil {
			return err
		}
		g, st, err := gpuStream(pe)
		if err != nil {
			return err
		}
		defer st.Destroy()
		fn, err := conformanceKernel(g, "test_routines")
		if err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if err := st.Launch(fn, device.D1(1), device.D1(64), 0, uint64(g.HeapDescriptor()), uint64(w.Offset())); err != nil {
			return err
		}
		if err := st.Sync(); err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		got := make([]uint64, 256)
		if err := pgas.Get(pe, got, w, me); err != nil {
			return err
		}
		left, right := (me+npes-1)%npes, (me+1)%npes
		want := map[int]uint64{}
		for k := range 10 {
			want[32+3*k] = uint64(left*1000 + 2*k)
			want[200+k] = uint64(right*1000 + 3*k)
			want[230+k] = uint64(right*1000 + 2*k)
		}
		for q := range npes {
			for i := range 4 {
				want[64+4*q+i] = uint64(q*1000 + i)
			}
			for i := range 2 {
				want[128+2*q+i] = uint64(q*1000 + 2*me + i)
			}
		}
		want[194] = math.Float64bits(2.5)
		want[195] = 7
		want[221], want[222], want[223] = 0, 7, 1
		for i, v := range want {
			if got[i] != v {
				return fmt.Errorf("PE %d word %d = %d, want %d", me, i, got[i], v)
			}
		}
		if got[220] >= npes {
			return fmt.Errorf("fetch-add returned %d", got[220])
		}
		if me == 0 && got[193] != npes {
			return fmt.Errorf("counter = %d, want %d", got[193], npes)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// conformanceKernel is kernel name of the conformance kit's program
// (conformance.cu), loaded on g.
func conformanceKernel(g pgas.GPU, name string) (*device.Function, error) {
	prog, err := conformance.Kernels()
	if err != nil {
		return nil, err
	}
	mod, err := g.Load(prog)
	if err != nil {
		return nil, err
	}
	return mod.Function(name)
}
