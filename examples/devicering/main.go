// Command devicering is the NVSHMEM developer guide's ring written as a
// user's kernel in CUDA C (ring.cu, embedded) that includes symchan.cuh,
// compiled when the program runs with NVRTC (kernels.Compile: no nvcc, no
// build step), loaded on every PE's GPU and launched with symmetric arrays
// as arguments (pgas.Launch). Each lap a value goes around the PEs, kernel
// to kernel, each adding its PE number + 1; PE 0 checks the sum and
// prints the time per hop.
//
//	devicering -backend cuda                 # built with -tags cuda: one PE per GPU
//	SYMCHAN_CUDA_SHARE_GPUS=1 devicering -backend cuda -pes 2
//	symrun -n 2 devicering -backend nvshmem  # one process per GPU
//
// It needs a GPU backend: on the host backend it says so and exits 1.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
	_ "github.com/symchan/symchan/pgas/cuda"
	_ "github.com/symchan/symchan/pgas/nvshmem"
)

//go:embed ring.cu
var ringSource string

// processStart is about when the process started: the start-up figure
// counts from it.
var processStart = time.Now()

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command with its arguments and output streams; it returns
// the exit status: 2 for bad flags, 1 for a failed run.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("devicering", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "", "pgas backend: cuda, or nvshmem (under symrun); default: $SYMCHAN_BACKEND, else host (which has no kernels)")
	pes := fs.Int("pes", 0, "number of PEs (0: the backend's default)")
	laps := fs.Int("laps", 1000, "laps around the ring")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *laps < 1 || *pes < 0 {
		fmt.Fprintln(stderr, "devicering: -laps must be at least 1 and -pes not negative")
		return 2
	}
	var loadTook, loadedAt time.Duration // PE 0's Load, and when it ended
	var compiled struct {
		once sync.Once
		prog kernels.Program
		err  error
		took time.Duration
	}
	err := pgas.Run(context.Background(), pgas.Config{Backend: *backend, PEs: *pes}, func(ctx context.Context, pe *pgas.PE) error {
		g, err := pe.GPU()
		if errors.Is(err, pgas.ErrNotGPU) {
			return fmt.Errorf("devicering runs kernels: it needs a GPU backend (-backend cuda, or nvshmem under symrun): %w", err)
		}
		if err != nil {
			return err
		}
		// The PEs of one process compile once (and later runs read the
		// cache).
		compiled.once.Do(func() {
			t0 := time.Now()
			compiled.prog, compiled.err = kernels.Compile("ring.cu", ringSource, kernels.CompileOptions{})
			compiled.took = time.Since(t0)
		})
		if compiled.err != nil {
			return compiled.err
		}
		t0 := time.Now()
		mod, err := g.Load(compiled.prog)
		if err != nil {
			return err
		}
		if pe.ID() == 0 {
			loadTook, loadedAt = time.Since(t0), time.Since(processStart)
		}
		value, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		out, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		t0 = time.Now()
		if err := pgas.Launch(pe, mod, "ring", device.D1(1), device.D1(32), 0, g.HeapDescriptor(), value, sig, out, *laps); err != nil {
			return err
		}
		if err := g.Stream().Sync(); err != nil {
			return err
		}
		took := time.Since(t0)
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() != 0 {
			return nil
		}
		n := pe.NumPEs()
		got, err := pgas.G(pe, value, 0)
		if err != nil {
			return err
		}
		if want := uint64(n * (n + 1) / 2 * *laps); got != want {
			return fmt.Errorf("after %d laps of %d PEs PE 0 holds %d, want %d", *laps, n, got, want)
		}
		fmt.Fprintf(stdout, "devicering: %d PEs on the %s backend, %d laps, value %d as expected; compiled in %v, loaded in %v (%v after the process started); %.2f µs per hop (kernel launch included)\n",
			n, pe.World().Config().Backend, *laps, got, compiled.took.Round(time.Millisecond), loadTook.Round(time.Millisecond),
			loadedAt.Round(time.Millisecond), float64(took.Nanoseconds())/1e3/float64(n*(*laps)))
		return nil
	})
	if err != nil {
		fmt.Fprintln(stderr, "devicering:", err)
		return 1
	}
	return 0
}
