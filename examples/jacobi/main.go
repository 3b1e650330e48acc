// Command jacobi solves the standard multi-GPU Jacobi benchmark problem on
// symchan PEs: a 2-D Laplace equation on an fp32 grid, decomposed by rows,
// with halo rows exchanged by put-with-signal and waited for with a
// wait-until-all on two signal words.
//
//	go run ./examples/jacobi                       # host backend, 1024², 8 PEs... see -pes
//	go run ./examples/jacobi -pes 2 -verify -png field.png
//	./jacobi -backend cuda -verify                 # built with -tags cuda: 16384² on all GPUs
//
// Columns 0 and nx-1 hold sin(2π·iy/(ny-1)); rows 0 and ny-1 are halos,
// periodic in y. It prints the norm every 100 sweeps, the time and, with
// more than one PE, the single-PE time, speedup and parallel efficiency.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/symchan/symchan/internal/sysmem"
	"github.com/symchan/symchan/pgas"
	_ "github.com/symchan/symchan/pgas/cuda"
	_ "github.com/symchan/symchan/pgas/nvshmem"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jacobi", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "", "backend: host, cuda, or nvshmem (under symrun); default: $SYMCHAN_BACKEND, else host")
	pes := fs.Int("pes", 0, "PEs (default: 2 on host, every GPU on cuda)")
	nx := fs.Int("nx", 0, "columns (default 1024 on host, 16384 on cuda)")
	ny := fs.Int("ny", 0, "rows (default as nx)")
	niter := fs.Int("niter", 1000, "sweeps")
	nccheck := fs.Int("nccheck", 1, "compute the norm every this many sweeps")
	verify := fs.Bool("verify", false, "also run on 1 PE and compare grids and norms")
	pngPath := fs.String("png", "", "write the final field to this PNG file")
	kernel := fs.String("kernel", "auto", "GPU sweep kernel: auto (vec4 when nx is a multiple of 4), scalar or vec4")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: jacobi [-backend host|cuda] [-pes N] [-nx N] [-ny N] [-niter N] [-nccheck N] [-verify] [-png FILE] [-kernel auto|scalar|vec4]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var bad []string
	if cfg, err := (pgas.Config{Backend: *backend}).Resolve(); err != nil {
		bad = append(bad, err.Error())
	} else {
		*backend = cfg.Backend
	}
	// Defaults before any world starts: the host backend's PEs are CPUs.
	def := 1024
	if *backend != pgas.DefaultBackend {
		def = 16384
	}
	if *nx == 0 {
		*nx = def
	}
	if *ny == 0 {
		*ny = *nx
	}
	if *pes == 0 && *backend == pgas.DefaultBackend {
		*pes = 2
	}
	if fs.NArg() > 0 {
		bad = append(bad, "unexpected arguments "+strings.Join(fs.Args(), " "))
	}
	if *nx < 3 || *ny < 3 {
		bad = append(bad, "-nx and -ny must be at least 3")
	} else if err := gridFits(*nx, *ny, sysmem.Machine()); err != nil {
		bad = append(bad, err.Error())
	}
	if *pngPath != "" {
		if err := writable(*pngPath); err != nil {
			bad = append(bad, "-png: "+err.Error())
		}
	}
	if *niter < 1 || *nccheck < 1 || *pes < 0 {
		bad = append(bad, "-niter and -nccheck must be positive, -pes not negative")
	}
	if *kernel != "auto" && *kernel != "scalar" && *kernel != "vec4" {
		bad = append(bad, "-kernel must be auto, scalar or vec4")
	}
	if bad != nil {
		fmt.Fprintln(stderr, "jacobi:", strings.Join(bad, "; "))
		fs.Usage()
		return 2
	}
	p := problem{nx: *nx, ny: *ny, niter: *niter, nccheck: *nccheck, tol: 1e-8}
	if err := solveAndReport(p, *backend, *pes, *kernel, *verify, *pngPath, stdout); err != nil {
		fmt.Fprintln(stderr, "jacobi:", err)
		return 1
	}
	return 0
}

// gridFits checks that an nx × ny grid of float32 neither overflows nor
// exceeds mem bytes (0: unknown) in the host copies a run may hold: the
// host engine's two grids, and the gathered result.
func gridFits(nx, ny int, mem int64) error {
	const copies = 3 * 4 // three grids of 4-byte cells
	if nx > math.MaxInt/ny || nx*ny > math.MaxInt64/copies {
		return fmt.Errorf("-nx %d × -ny %d overflows", nx, ny)
	}
	if need := int64(nx*ny) * copies; mem > 0 && need > mem {
		return fmt.Errorf("-nx %d × -ny %d needs up to %s of host memory, more than this machine's %s; lower -nx or -ny",
			nx, ny, sysmem.Format(need), sysmem.Format(mem))
	}
	return nil
}

// writable checks, before any work, that path can be written: its folder
// exists and it is not a folder itself.
func writable(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%s is a folder", path)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return fmt.Errorf("no folder %s to write %s into", filepath.Dir(path), filepath.Base(path))
	}
	return nil
}

func solveAndReport(p problem, backend string, pes int, kernel string, verify bool, pngPath string, out io.Writer) error {
	ctx := context.Background()
	cfg := pgas.Config{Backend: backend, PEs: pes}
	// The process that runs PE 0 reports; with one process per PE (nvshmem)
	// the others print nothing.
	var header sync.Once
	printHeader := func() {
		header.Do(func() {
			fmt.Fprintf(out, "Jacobi relaxation: %d x %d mesh, %d iterations, norm every %d (%s backend)\n", p.nx, p.ny, p.niter, p.nccheck, backend)
		})
	}
	gather := verify || pngPath != ""
	res, err := solve(ctx, cfg, p, gather, kernel, func(k int, norm float64) {
		printHeader()
		if k%100 == 0 {
			fmt.Fprintf(out, "%5d, %0.6f\n", k, norm)
		}
	})
	if err != nil {
		return err
	}
	if res.pes == 0 {
		return nil
	}
	printHeader()
	fmt.Fprintf(out, "%d x %d: %d PEs: %.4f s (%d sweeps)\n", p.nx, p.ny, res.pes, res.elapsed.Seconds(), res.sweeps)
	if res.pes > 1 || verify {
		// The single-PE run. A world whose PEs are in several processes
		// (one per process: nvshmem) cannot start a world of one PE beside
		// it: the process of PE 0 runs it on the cuda backend, on GPU 0,
		// with the same kernels.
		single := cfg
		single.PEs = 1
		label := "single PE"
		if res.local < res.pes {
			single.Backend = "cuda"
			single.ProcessLocal = true // beside the job's world, on purpose
			label = "single PE (cuda backend, GPU 0)"
		}
		ref, err := solve(ctx, single, p, verify, kernel, nil)
		if err != nil {
			return fmt.Errorf("single-PE run: %w", err)
		}
		if res.pes > 1 {
			speedup := ref.elapsed.Seconds() / res.elapsed.Seconds()
			fmt.Fprintf(out, "%s: %.4f s, speedup %.2f, parallel efficiency %.1f%%\n",
				label, ref.elapsed.Seconds(), speedup, 100*speedup/float64(res.pes))
		}
		if verify {
			if err := compare(res, ref); err != nil {
				return err
			}
			fmt.Fprintln(out, "verify: OK (grids within 1e-5, norms agree to 5 significant digits)")
		}
	}
	if pngPath != "" {
		if err := writePNG(pngPath, res.grid, p.nx, p.ny); err != nil {
			return err
		}
		fmt.Fprintln(out, "wrote", pngPath)
	}
	return nil
}

// compare checks a run against the single-PE one: the largest absolute
// difference of the final grids at most 1e-5, the norms equal to 5
// significant digits.
func compare(got, want *result) error {
	var maxDiff float64
	for i := range got.grid {
		maxDiff = max(maxDiff, math.Abs(float64(got.grid[i])-float64(want.grid[i])))
	}
	var errs []error
	if got.sweeps != want.sweeps {
		errs = append(errs, fmt.Errorf("%d sweeps, single PE %d", got.sweeps, want.sweeps))
	}
	if maxDiff > 1e-5 {
		errs = append(errs, fmt.Errorf("grids differ by up to %g (> 1e-5)", maxDiff))
	}
	for k, n := range want.norms {
		if g, ok := got.norms[k]; !ok || fmt.Sprintf("%.4e", g) != fmt.Sprintf("%.4e", n) {
			errs = append(errs, fmt.Errorf("norm of sweep %d: %.6e, single PE %.6e", k, g, n))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("verify failed (max grid difference %g): %w", maxDiff, err)
	}
	return nil
}
