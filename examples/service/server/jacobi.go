package server

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/pgas"
)

// Job is a Jacobi solve that one PE does: Iters sweeps of an N×N grid
// whose left and right columns hold sin(2π·y/(N-1)) and whose other edges
// and interior start at 0 (the boundary of examples/jacobi).
type Job struct {
	N, Iters int64
}

// Result is a solve's outcome: the L2 norm of the last sweep's change,
// the PE that solved it and how long its actor took.
type Result struct {
	Norm  float64
	Nanos int64
	PE    int32
}

// An engine makes a PE's solver: in Go on the host backend, in kernels
// on the GPU backends (gpu_cuda.go).
type engine func(ctx context.Context, pe *pgas.PE, maxN int64) (service.Actor[Job, Result], error)

var engines = map[string]engine{"host": hostEngine}

func hostEngine(ctx context.Context, pe *pgas.PE, maxN int64) (service.Actor[Job, Result], error) {
	id := int32(pe.ID())
	return service.ActorFunc[Job, Result](func(ctx context.Context, j Job) (Result, error) {
		t0 := time.Now()
		norm, err := solveHost(ctx, j)
		return Result{Norm: norm, Nanos: time.Since(t0).Nanoseconds(), PE: id}, err
	}), nil
}

// boundary is the fixed value of columns 0 and n-1 in row y.
func boundary(y, n int64) float32 {
	return float32(math.Sin(2 * math.Pi * float64(y) / float64(n-1)))
}

// solveHost does j in Go, checking ctx every few sweeps.
func solveHost(ctx context.Context, j Job) (float64, error) {
	n := j.N
	a, an := make([]float32, n*n), make([]float32, n*n)
	for y := range n {
		v := boundary(y, n)
		a[y*n], a[y*n+n-1], an[y*n], an[y*n+n-1] = v, v, v, v
	}
	var d2 float64
	for k := range j.Iters {
		if k%16 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		if k%4 == 3 {
			// A sweep of the largest grid takes milliseconds: the solves
			// of all PEs would hold every core for the scheduler's whole
			// time slice, and an HTTP handler (a 503 that should be
			// immediate) would wait behind them.
			runtime.Gosched()
		}
		d2 = 0
		for y := int64(1); y < n-1; y++ {
			row, up, dn := a[y*n:(y+1)*n], a[(y-1)*n:y*n], a[(y+1)*n:(y+2)*n]
			out := an[y*n : (y+1)*n]
			for x := int64(1); x < n-1; x++ {
				v := 0.25 * (row[x-1] + row[x+1] + up[x] + dn[x])
				d := v - row[x]
				out[x] = v
				d2 += float64(d * d)
			}
		}
		a, an = an, a
	}
	return math.Sqrt(d2), nil
}

// Limits on a job, so that one request cannot hold a PE for long.
type Limits struct {
	MaxN     int64 // grid side (default 2048)
	MaxIters int64 // sweeps (default 10000)
	MaxWork  int64 // N²·Iters, cell updates (default 4·10⁹)
}

func (l Limits) withDefaults() Limits {
	if l.MaxN == 0 {
		l.MaxN = 2048
	}
	if l.MaxIters == 0 {
		l.MaxIters = 10000
	}
	if l.MaxWork == 0 {
		l.MaxWork = 4e9
	}
	return l
}

// fieldError is a request's fault in one field: a 400 that names it.
type fieldError struct {
	Field, Msg string
}

func (e *fieldError) Error() string { return e.Field + ": " + e.Msg }

// check validates j against l.
func (l Limits) check(j Job) error {
	if j.N < 3 || j.N > l.MaxN {
		return &fieldError{"n", fmt.Sprintf("must be between 3 and %d, got %d", l.MaxN, j.N)}
	}
	if j.Iters < 1 || j.Iters > l.MaxIters {
		return &fieldError{"iters", fmt.Sprintf("must be between 1 and %d, got %d", l.MaxIters, j.Iters)}
	}
	if w := j.N * j.N * j.Iters; w > l.MaxWork {
		return &fieldError{"iters", fmt.Sprintf("n²·iters is %d cell updates, more than the limit %d", w, l.MaxWork)}
	}
	return nil
}
