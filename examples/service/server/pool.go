package server

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/symchan/symchan/pgas"
)

// NewPool returns a Server whose jobs are solved by a plain Go worker
// pool: a goroutine per PE of a world, each calling its solver (the same
// as the service's actors) for jobs it takes from one shared channel. No
// service, no supervision, no metrics of the PEs: the anchor the load
// benchmark measures the service against. It ignores a request's "pe".
func NewPool(ctx context.Context, cfg Config) (*Server, error) {
	newActor, err := Solver(cfg.World.Backend, cfg.Limits.withDefaults().MaxN)
	if err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	p := &pool{jobs: make(chan poolJob, 128)}
	ready := make(chan error, 1)
	var started atomic.Int32
	h, err := pgas.Start(ctx, cfg.World, func(ctx context.Context, pe *pgas.PE) error {
		a, err := newActor(ctx, pe)
		if err != nil {
			select {
			case ready <- err:
			default:
			}
			return err
		}
		if started.Add(1) == int32(len(pe.World().LocalPEs())) {
			ready <- nil
		}
		for {
			select {
			case <-ctx.Done():
				return nil
			case j := <-p.jobs:
				if j.ctx.Err() != nil {
					continue
				}
				r, err := a.Serve(j.ctx, j.job)
				j.done <- poolResult{r, err}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	p.h = h
	if err := <-ready; err != nil {
		_ = h.Stop(context.Background())
		return nil, err
	}
	return newHTTP(cfg, p), nil
}

type pool struct {
	h    *pgas.Handle
	jobs chan poolJob
}

type poolJob struct {
	ctx  context.Context
	job  Job
	done chan poolResult
}

type poolResult struct {
	r   Result
	err error
}

func (p *pool) call(ctx context.Context, _ int, j Job) (Result, error) {
	done := make(chan poolResult, 1)
	select {
	case p.jobs <- poolJob{ctx, j, done}:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	case <-p.h.Done():
		return Result{}, errPoolClosed
	}
	select {
	case r := <-done:
		return r.r, r.err
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
}

var errPoolClosed = errors.New("server: the pool is closed")

func (p *pool) numPEs() int { return p.h.World().NumPEs() }

func (p *pool) state() string {
	select {
	case <-p.h.Done():
		return "stopped"
	default:
		return "ready"
	}
}

func (p *pool) close(ctx context.Context) error { return p.h.Stop(ctx) }
func (p *pool) done() <-chan struct{}           { return p.h.Done() }
func (p *pool) err() error                      { return p.h.Err() }
