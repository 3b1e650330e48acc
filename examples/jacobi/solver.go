package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/symchan/symchan/pgas"
)

// problem is one Jacobi run's parameters.
type problem struct {
	nx, ny, niter, nccheck int
	tol                    float64
}

// due reports whether sweep k's norm is computed.
func (p problem) due(k int) bool { return k%p.nccheck == 0 || k%100 == 0 || k == p.niter }

// result is what a run produced.
type result struct {
	pes     int             // 0 in a process that does not run PE 0 (it reports nothing)
	local   int             // the PEs of this process
	norms   map[int]float64 // sweep → residual norm, for the computed ones
	sweeps  int             // sweeps run
	elapsed time.Duration   // the sweeps alone
	grid    []float32       // final ny × nx field, when gathered
}

// layout is PE pe's share of the interior rows 1 … ny-2: chunk rows from
// global row start; the first (ny-2) % n PEs take one more.
type layout struct{ n, interior int }

func (l layout) chunk(pe int) int {
	c := l.interior / l.n
	if pe < l.interior%l.n {
		c++
	}
	return c
}

func (l layout) start(pe int) int { return 1 + pe*(l.interior/l.n) + min(pe, l.interior%l.n) }

// boundary is the fixed value of columns 0 and nx-1 in global row iy.
func boundary(iy, ny int) float32 {
	return float32(math.Sin(2 * math.Pi * float64(iy) / float64(ny-1)))
}

// engine runs the sweeps of one PE; host and cuda each have one.
type engine func(ctx context.Context, pe *pgas.PE, s *state) error

// state is one PE's view of a run, shared by the engines.
type state struct {
	p           problem
	l           layout
	me          int
	chunk, top  int // this PE's rows; its neighbours above and below
	bot         int
	start       int
	a, an       pgas.Sym[float32] // (maxchunk+2) × nx each, halo rows 0 and chunk+1
	sig         pgas.Sym[uint64]  // [0]: top halo arrived (iteration), [1]: bottom
	red, redOut pgas.Sym[float64] // norm partial sums, reduced across PEs
	res         *result
	gather      bool
	kernel      string // GPU sweep kernel: auto, scalar or vec4
	report      func(k int, norm float64)
}

// solve runs the problem on cfg's backend (kernel picks the GPU sweep
// kernel) and returns its result; report, if not nil, sees each computed
// norm (on PE 0).
func solve(ctx context.Context, cfg pgas.Config, p problem, gather bool, kernel string, report func(int, float64)) (*result, error) {
	res := &result{norms: map[int]float64{}}
	run := engines[cfg.Backend]
	if run == nil {
		run = hostEngine
	}
	if cfg.HeapSize == 0 {
		// Two grids of the largest share plus room for the runtime; with
		// the PE count left to the backend, sized as for one PE.
		n := max(cfg.PEs, 1)
		cells := int64(layout{n, p.ny - 2}.chunk(0)+2) * int64(p.nx)
		cfg.HeapSize = 2*cells*4 + 16<<20
	}
	err := pgas.Run(ctx, cfg, func(ctx context.Context, pe *pgas.PE) error {
		n := pe.NumPEs()
		l := layout{n, p.ny - 2}
		s := &state{p: p, l: l, me: pe.ID(), chunk: l.chunk(pe.ID()), start: l.start(pe.ID()),
			top: (pe.ID() + n - 1) % n, bot: (pe.ID() + 1) % n, res: res, gather: gather, kernel: kernel}
		if pe.ID() == 0 {
			s.report = report
			res.pes, res.local = n, len(pe.World().LocalPEs())
			if gather {
				res.grid = make([]float32, p.nx*p.ny)
			}
		}
		if s.chunk < 1 {
			return fmt.Errorf("jacobi: %d interior rows for %d PEs: every PE needs at least one", l.interior, n)
		}
		size := (l.chunk(0) + 2) * p.nx
		var err error
		// Page-aligned grids: every row starts on a cache-line boundary
		// when nx is a multiple of 32, as the GPU's coalescing wants.
		if s.a, err = pgas.AllocAligned[float32](ctx, pe, size, 4096); err != nil {
			return err
		}
		if s.an, err = pgas.AllocAligned[float32](ctx, pe, size, 4096); err != nil {
			return err
		}
		if s.sig, err = pgas.AllocZeroed[uint64](ctx, pe, 2); err != nil {
			return err
		}
		if s.red, err = pgas.Alloc[float64](ctx, pe, 100); err != nil {
			return err
		}
		if s.redOut, err = pgas.Alloc[float64](ctx, pe, 100); err != nil {
			return err
		}
		return run(ctx, pe, s)
	})
	return res, err
}

// reduceNorms sums the squared norms of sweeps ks (at most 100) across PEs
// and records sqrt of each; it reports whether one fell to the tolerance.
func (s *state) reduceNorms(ctx context.Context, pe *pgas.PE, ks []int, partial []float64) (bool, error) {
	if len(ks) == 0 {
		return false, nil
	}
	if err := pgas.Put(pe, s.red, partial, pe.ID()); err != nil {
		return false, err
	}
	if err := pgas.ReduceAll(ctx, pe.TeamWorld(), pgas.ReduceSum, s.redOut, s.red, len(ks)); err != nil {
		return false, err
	}
	sums := make([]float64, len(ks))
	if err := pgas.Get(pe, sums, s.redOut.Slice(0, len(ks)), pe.ID()); err != nil {
		return false, err
	}
	converged := false
	for i, k := range ks {
		norm := math.Sqrt(sums[i])
		if pe.ID() == 0 {
			s.res.norms[k] = norm
			if s.report != nil {
				s.report(k, norm)
			}
		}
		converged = converged || norm <= s.p.tol
	}
	return converged, nil
}

// done ends an engine's run of sweeps (all of this PE's work complete):
// it stops the clock once every PE is done and gathers the final grid.
func (s *state) done(ctx context.Context, pe *pgas.PE, sweeps int, t0 time.Time) error {
	if err := pe.Barrier(ctx); err != nil {
		return err
	}
	elapsed := time.Since(t0)
	final := s.an // sweep k writes an when k is odd
	if sweeps%2 == 0 {
		final = s.a
	}
	return s.finish(ctx, pe, final, sweeps, elapsed)
}

// finish records the time and gathers the PEs' rows of the final grid w.
func (s *state) finish(ctx context.Context, pe *pgas.PE, w pgas.Sym[float32], sweeps int, elapsed time.Duration) error {
	if pe.ID() == 0 {
		s.res.sweeps, s.res.elapsed = sweeps, elapsed
	}
	if !s.gather {
		return nil
	}
	// PE 0 reads every PE's rows: that works when PEs are processes too.
	nx, ny := s.p.nx, s.p.ny
	if err := pe.Barrier(ctx); err != nil {
		return err
	}
	if pe.ID() == 0 {
		for p := range s.l.n {
			start, chunk := s.l.start(p), s.l.chunk(p)
			if err := pgas.Get(pe, s.res.grid[start*nx:(start+chunk)*nx], w.Slice(nx, (chunk+1)*nx), p); err != nil {
				return err
			}
		}
	}
	if err := pe.Barrier(ctx); err != nil {
		return err
	}
	if pe.ID() == 0 {
		// Halo rows, periodic in y: row 0 is row ny-2, row ny-1 is row 1,
		// with their own fixed boundary columns.
		g := s.res.grid
		copy(g[1:nx-1], g[(ny-2)*nx+1:(ny-1)*nx-1])
		copy(g[(ny-1)*nx+1:ny*nx-1], g[nx+1:2*nx-1])
		for _, iy := range []int{0, ny - 1} {
			g[iy*nx], g[iy*nx+nx-1] = boundary(iy, ny), boundary(iy, ny)
		}
	}
	return nil
}

// engines maps a backend to its engine; the host engine serves the rest.
var engines = map[string]engine{}
