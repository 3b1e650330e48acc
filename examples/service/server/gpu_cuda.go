//go:build cuda

package server

import (
	"context"
	"encoding/binary"
	"math"
	"time"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/examples/jacobi/jacobicu"
	"github.com/symchan/symchan/pgas"
	_ "github.com/symchan/symchan/pgas/cuda"    // the GPU backends
	_ "github.com/symchan/symchan/pgas/nvshmem" // register themselves
)

func init() {
	engines["cuda"] = gpuEngine
	engines["nvshmem"] = gpuEngine
}

// syncEvery is how many sweeps are queued between checks of the
// request's context: a cancelled solve stops within that many.
const syncEvery = 256

// gpuSolver holds one PE's grids (for the largest job) and its stream;
// Close releases them.
type gpuSolver struct {
	g          pgas.GPU
	st         *device.Stream
	init, swp  *device.Function
	a, an, out device.Ptr
	id         int32
}

func gpuEngine(ctx context.Context, pe *pgas.PE, maxN int64) (service.Actor[Job, Result], error) {
	g, err := pe.GPU()
	if err != nil {
		return nil, err
	}
	s := &gpuSolver{g: g, id: int32(pe.ID())}
	prog, err := serviceProgram()
	if err != nil {
		return nil, err
	}
	mod, err := g.Load(prog)
	if err != nil {
		return nil, err
	}
	if s.init, err = mod.Function(jacobicu.KernelInit); err != nil {
		return nil, err
	}
	if s.swp, err = mod.Function(kernelSweep); err != nil {
		return nil, err
	}
	if s.st, err = g.Context().NewStream(); err != nil {
		return nil, err
	}
	for _, p := range []*device.Ptr{&s.a, &s.an, &s.out} {
		size := 4 * maxN * maxN
		if p == &s.out {
			size = 8
		}
		if *p, err = g.Context().Alloc(size); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Serve queues the sweeps on the PE's GPU, a check of ctx every syncEvery
// of them. A failed GPU call leaves the context unusable: it is Fatal.
func (s *gpuSolver) Serve(ctx context.Context, j Job) (Result, error) {
	t0 := time.Now()
	n := uint64(j.N)
	for _, p := range []device.Ptr{s.a, s.an} {
		if err := s.st.Launch(s.init, device.D1(1024), device.D1(256), 0, uint64(p), n, n, 0, n); err != nil {
			return Result{}, service.Fatal(err)
		}
	}
	if err := s.st.Memset(s.out, 0, 8); err != nil {
		return Result{}, service.Fatal(err)
	}
	grid := device.Dim3{X: int((n - 2 + 31) / 32), Y: int((n - 2 + 7) / 8), Z: 1}
	block := device.Dim3{X: 32, Y: 8, Z: 1}
	a, an := s.a, s.an
	for k := int64(1); k <= j.Iters; k++ {
		norm := uint64(0)
		if k == j.Iters {
			norm = uint64(s.out)
		}
		if err := s.st.Launch(s.swp, grid, block, 0, uint64(a), uint64(an), n, norm); err != nil {
			return Result{}, service.Fatal(err)
		}
		a, an = an, a
		if k%syncEvery == 0 {
			if err := s.st.Sync(); err != nil {
				return Result{}, service.Fatal(err)
			}
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
	}
	var raw [8]byte
	if err := s.st.CopyOut(raw[:], s.out); err != nil {
		return Result{}, service.Fatal(err)
	}
	norm := math.Sqrt(math.Float64frombits(binary.LittleEndian.Uint64(raw[:])))
	return Result{Norm: norm, Nanos: time.Since(t0).Nanoseconds(), PE: s.id}, nil
}

// Close frees the grids and the stream.
func (s *gpuSolver) Close() error {
	for _, p := range []device.Ptr{s.a, s.an, s.out} {
		if p != 0 {
			_ = s.g.Context().Free(p)
		}
	}
	if s.st != nil {
		return s.st.Destroy()
	}
	return nil
}
