//go:build cuda

package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// BenchmarkGPUUserKernel: a user's CUDA C kernel from Go, source to launch,
// against CuPy's RawModule and Numba's cuda.jit (bench/anchors/
// python_kernels.py prints the same names with impl=cupy and impl=numba),
// on PE 0's GPU:
//
//   - step=compile-cold: a source never seen (each repetition's differs by
//     a comment), from text to its first launch completed: kernels.Compile
//     into a fresh cache, pgas.GPU.Load (the driver's JIT of the PTX),
//     LaunchOnStream and a sync;
//   - step=compile-warm: the same source again: Compile from its disk
//     cache, Load from the context's, the launch and a sync;
//   - step=launch: one LaunchOnStream of the one-thread kernel with two
//     Sym arguments, timed over userLaunches launches and a sync.
//
// Each figure is the median over its repetitions, after one unmeasured.
func BenchmarkGPUUserKernel(b *testing.B) {
	figures := map[string]float64{}
	gpuWorld(b, 16<<20, func(ctx context.Context, pe *pgas.PE) error {
		a, d, err := symPair[uint64](ctx, pe, 1) // collective: every PE
		if err != nil {
			return err
		}
		if pe.ID() == 0 {
			if err := userKernelSteps(ctx, pe, a, d, b.TempDir(), figures); err != nil {
				return err
			}
		}
		return pe.Barrier(ctx)
	})
	for _, step := range []string{"compile-cold", "compile-warm", "launch"} {
		b.Run("step="+step, func(b *testing.B) { reportImpl(b, "symchan", figures[step], figures[step]/1e3, "us") })
	}
}

const userLaunches = 2000

// userKernelSource is the benchmark's kernel (python_kernels.py compiles
// the same text), made unique by tag.
func userKernelSource(tag string) string {
	return fmt.Sprintf("// %s\nextern \"C\" __global__ void bump(unsigned long long *a, const unsigned long long *d) { a[0] = d[0] + 1; }\n", tag)
}

// userKernelSteps measures the steps on pe, with a and d the kernel's
// arguments, into figures (ns).
func userKernelSteps(ctx context.Context, pe *pgas.PE, a, d pgas.Sym[uint64], tmp string, figures map[string]float64) error {
	g, err := pe.GPU()
	if err != nil {
		return err
	}
	st, err := pgas.NewStream(pe)
	if err != nil {
		return err
	}
	defer st.Close(ctx)
	// toLaunch compiles src with cache, loads it, launches it once and
	// syncs: a kernel from source to its first completed run.
	toLaunch := func(src, cache string) (*device.Module, error) {
		prog, err := kernels.Compile("bump.cu", src, kernels.CompileOptions{CacheDir: cache})
		if err != nil {
			return nil, err
		}
		mod, err := g.Load(prog)
		if err != nil {
			return nil, err
		}
		if err := pgas.LaunchOnStream(st, mod, "bump", device.D1(1), device.D1(1), 0, a, d); err != nil {
			return nil, err
		}
		return mod, st.Sync(ctx)
	}
	timeIt := func(reps int, run func(rep int) error) (float64, error) {
		var ns []float64
		for rep := range reps + 1 {
			t0 := time.Now()
			if err := run(rep); err != nil {
				return 0, err
			}
			if rep > 0 {
				ns = append(ns, float64(time.Since(t0).Nanoseconds()))
			}
		}
		return medianOf(ns), nil
	}
	if figures["compile-cold"], err = timeIt(5, func(rep int) error {
		_, err := toLaunch(userKernelSource(fmt.Sprintf("cold %d %d", time.Now().UnixNano(), rep)), fmt.Sprintf("%s/cold%d", tmp, rep))
		return err
	}); err != nil {
		return err
	}
	warm := userKernelSource("warm")
	mod, err := toLaunch(warm, tmp+"/warm")
	if err != nil {
		return err
	}
	if figures["compile-warm"], err = timeIt(20, func(int) error {
		_, err := toLaunch(warm, tmp+"/warm")
		return err
	}); err != nil {
		return err
	}
	per, err := timeIt(5, func(int) error {
		for range userLaunches {
			if err := pgas.LaunchOnStream(st, mod, "bump", device.D1(1), device.D1(1), 0, a, d); err != nil {
				return err
			}
		}
		return st.Sync(ctx)
	})
	figures["launch"] = per / userLaunches
	return err
}
