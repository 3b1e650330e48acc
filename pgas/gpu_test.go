package pgas

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/host"
)

// gpuBackend opens host transports that claim GPUs whose routines record
// that they ran: what PE.GPU's argument checks let through.
type gpuBackend struct{}

type gpuTransport struct{ driver.Transport }

type fakeGPU struct{ GPU } // only the routines below are called

var fakeCalls int

func (fakeGPU) Addr(pe int, off int64) device.Ptr { return device.Ptr(1<<40 + pe<<32 + int(off)) }
func (fakeGPU) PutSignalOnStream(*device.Stream, int, int64, device.Ptr, int64, int64, uint64, SigOp) error {
	fakeCalls++
	return nil
}
func (fakeGPU) SignalWaitOnStream(*device.Stream, int64, uint64) error { fakeCalls++; return nil }
func (fakeGPU) Context() *device.Context                               { return nil } // no device memory: no notice words

// errFakeLoad is what the fake GPU's Load answers, naming the program.
var errFakeLoad = errors.New("fake GPU: Load")

func (fakeGPU) Load(p kernels.Program) (*device.Module, error) {
	return nil, fmt.Errorf("%w of %s", errFakeLoad, p.Name)
}

func (gpuBackend) Open(ctx context.Context, cfg driver.Config) (driver.Transport, error) {
	tr, err := host.Backend{}.Open(ctx, cfg)
	return gpuTransport{tr}, err
}

var _ driver.GPUTransport = gpuTransport{}

func (gpuTransport) GPU(int) (driver.GPU, error) { return fakeGPU{}, nil }

func init() { Register("test-gpu", gpuBackend{}) }

// PE.GPU is ErrNotGPU on the host backend; on a GPU backend its routines'
// arguments are checked as pgas's own are, before the backend sees them.
func TestGPUArguments(t *testing.T) {
	const heap = 1 << 20
	err := Run(context.Background(), Config{Backend: "host", PEs: 1, HeapSize: heap}, func(ctx context.Context, pe *PE) error {
		if _, err := pe.GPU(); !errors.Is(err, ErrNotGPU) {
			t.Errorf("PE.GPU on the host backend: %v, want ErrNotGPU", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = Run(context.Background(), Config{Backend: "test-gpu", PEs: 2, HeapSize: heap}, func(ctx context.Context, pe *PE) error {
		g, err := pe.GPU()
		if err != nil {
			return err
		}
		if pe.ID() != 0 {
			return nil
		}
		st := new(device.Stream)
		fakeCalls = 0 // -count > 1 runs this again
		cases := []struct {
			name string
			err  error
			want error
		}{
			{"a good put", g.PutSignalOnStream(st, 1, 0, 1, 64, 64, 1, SignalSet), nil},
			{"PE 2 of 2", g.PutSignalOnStream(st, 2, 0, 1, 64, 64, 1, SignalSet), ErrBadPE},
			{"PE -1", g.PutSignalOnStream(st, -1, 0, 1, 64, 64, 1, SignalSet), ErrBadPE},
			{"beyond the heap", g.PutSignalOnStream(st, 1, heap-32, 1, 64, 0, 1, SignalSet), ErrBadSize},
			{"no bytes", g.PutSignalOnStream(st, 1, 0, 1, 0, 64, 1, SignalSet), ErrBadSize},
			{"a misaligned signal", g.PutSignalOnStream(st, 1, 0, 1, 64, 68, 1, SignalSet), ErrBadArg},
			{"a signal in the data", g.PutSignalOnStream(st, 1, 0, 1, 64, 56, 1, SignalSet), ErrBadArg},
			{"a nil stream", g.PutSignalOnStream(nil, 1, 0, 1, 64, 64, 1, SignalSet), ErrBadArg},
			{"no source", g.PutSignalOnStream(st, 1, 0, 0, 64, 64, 1, SignalSet), ErrBadArg},
			{"signal op 0", g.PutSignalOnStream(st, 1, 0, 1, 64, 64, 1, 0), ErrBadArg},
			{"a good wait", g.SignalWaitOnStream(st, 64, 1), nil},
			{"a wait beyond the heap", g.SignalWaitOnStream(st, heap, 1), ErrBadSize},
			{"a misaligned wait", g.SignalWaitOnStream(st, 4, 1), ErrBadArg},
		}
		for _, c := range cases {
			if (c.want == nil) != (c.err == nil) || !errors.Is(c.err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
			}
		}
		if fakeCalls != 2 {
			t.Errorf("the backend ran %d routines, want the 2 good ones", fakeCalls)
		}
		for _, a := range []struct {
			pe  int
			off int64
		}{{2, 0}, {-1, 0}, {0, -8}, {0, heap}} {
			if got := g.Addr(a.pe, a.off); got != 0 {
				t.Errorf("Addr(%d, %d) = %#x, want 0", a.pe, a.off, got)
			}
		}
		if g.Addr(1, 8) == 0 {
			t.Error("Addr(1, 8) = 0")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Launch's arguments against the byte sizes of a kernel's parameters.
func TestLaunchArgsFit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
		args  []any
		ok    bool
	}{
		{"none", []int{}, nil, true},
		{"too few", []int{8, 8}, []any{1}, false},
		{"too many", []int{8}, []any{1, 2}, false},
		{"pointer and words", []int{8, 8, 4}, []any{device.Ptr(64), uint64(1 << 40), int32(-1)}, true},
		{"int in a 4-byte int", []int{4}, []any{-5}, true},
		{"int too large for 4 bytes", []int{4}, []any{1 << 40}, false},
		{"negative int too small for 4 bytes", []int{4}, []any{int64(-1) << 40}, false},
		{"unsigned 4-byte range", []int{4}, []any{uint(1<<32 - 1)}, true},
		{"unsigned past 4 bytes", []int{4}, []any{uint64(1 << 32)}, false},
		{"one byte", []int{1, 1}, []any{255, -128}, true},
		{"one byte too large", []int{1}, []any{256}, false},
		{"pointer in 4 bytes", []int{4}, []any{device.Ptr(64)}, false},
		{"float64 in 8", []int{8}, []any{1.5}, true},
		{"float64 in 4", []int{4}, []any{1.5}, false},
		{"float32 in 4", []int{4}, []any{float32(1.5)}, true},
		{"float32 in 8", []int{8}, []any{float32(1.5)}, false},
		{"bool in a byte", []int{1}, []any{true}, true},
		{"struct by value", []int{24}, []any{1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := argsFit("k", tc.sizes, tc.args)
			if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrBadArg) {
				t.Errorf("argsFit(%v, %v) = %v, want ok %v (else ErrBadArg)", tc.sizes, tc.args, err, tc.ok)
			}
		})
	}
}

// LoadSource fails with ErrNotGPU on the host backend, before compiling;
// on a GPU backend it compiles the program and hands it to the GPU's Load
// (without NVRTC here, Compile's error comes back instead).
func TestLoadSource(t *testing.T) {
	const src = `#include "symchan.cuh"
extern "C" __global__ void k() {}
`
	for _, backend := range []string{"host", "test-gpu"} {
		err := Run(context.Background(), Config{Backend: backend, PEs: 1, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
			_, err := LoadSource(pe, "k.cu", src, kernels.CompileOptions{CacheDir: "-"})
			switch {
			case backend == "host" && !errors.Is(err, ErrNotGPU):
				t.Errorf("host: %v, want ErrNotGPU", err)
			case backend == "test-gpu" && !errors.Is(err, errFakeLoad) && !strings.Contains(fmt.Sprint(err), "kernels: Compile k.cu"):
				t.Errorf("test-gpu: %v, want the fake Load's error for k, or Compile's", err)
			case backend == "test-gpu" && errors.Is(err, errFakeLoad) && !strings.HasSuffix(err.Error(), "of k"):
				t.Errorf("test-gpu: %v: Load got another program than k", err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
