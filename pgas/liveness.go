package pgas

import (
	"context"
	"fmt"

	"github.com/symchan/symchan/pgas/driver"
)

// Which PEs of this process are still running, so that a wait that only
// finished PEs could have satisfied ends with an error (WaitSet.From)
// instead of parking forever, as Go reports a deadlock rather than hang.
//
// A PE counts as finished once its function and its PE.Go goroutines have
// returned and its operations are complete. Every such change (and a
// failure) closes the current events channel and installs a fresh one,
// which wakes the waits that name writers; the fast path of a wait only
// loads two atomics.

// events returns the channel that the next change of liveness closes.
func (w *World) events() <-chan struct{} { return *w.ev.Load() }

// bump closes the current events channel (each Swap hands back a
// different one, so none is closed twice).
func (w *World) bump() {
	ch := make(chan struct{})
	close(*w.ev.Swap(&ch))
}

// finished records that local PE id has finished.
func (w *World) finished(id int) {
	w.done[id].Store(true)
	w.nDone.Add(1)
	w.bump()
}

// noWriters reports whether every PE in from has finished: true at once
// for an empty from, which names no PE able to write. The caller's own PE
// is running; PEs of other processes are taken to be.
func (w *World) noWriters(self int, from []int) bool {
	if len(from) > 0 && w.nDone.Load() == 0 {
		return false
	}
	for _, q := range from {
		if q == self || !w.done[q].Load() {
			return false
		}
	}
	return true
}

// waitFrom is a blocking wait whose writers are ws.From: it ends with
// ErrNoWriters when all of them have finished and req is still not
// satisfied.
func (p *PE) waitFrom(ctx context.Context, req *driver.WaitRequest, from []int) (driver.WaitResult, error) {
	w := p.w
	for {
		ev := w.events()
		if w.noWriters(p.id, from) {
			// Their operations are complete: one last look.
			req.Test = true
			r, err := w.tr.Wait(ctx, p.id, w.failed, *req)
			if err == nil && satisfied(req.Mode, r) {
				return r, nil
			}
			return r, fmt.Errorf("%w: waited on %d words at offset %d for PEs %v, which have all returned", ErrNoWriters, req.N, req.Off, from)
		}
		r, err := w.tr.Wait(ctx, p.id, ev, *req)
		if err == nil || ctx.Err() != nil || isClosed(w.failed) || !isClosed(ev) {
			return r, err
		}
	}
}

// Interrupted is for code that parks a PE's goroutine outside pgas's
// waits (package actors does, where partitions are host memory) and must
// end where a pgas wait would. It returns the error with which a blocking
// wait whose WaitSet.From is from would end now — the world failed or
// ended, ctx ended, or every PE in from has finished (ErrNoWriters) — or
// nil and a channel that is closed at the next event that can change
// that answer: a PE of this process finishing, or a PE failing. Watching
// ctx is the caller's part. A nil from is a wait on any PE; an empty one,
// a wait on none (ErrNoWriters at once).
func (p *PE) Interrupted(ctx context.Context, from []int) (<-chan struct{}, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	w := p.w
	ev := w.events() // before the checks: a change after them closes it
	if err := w.abortErr(ctx, "wait", ctx.Err()); err != nil {
		return nil, err
	}
	if from != nil && w.noWriters(p.id, from) {
		return nil, fmt.Errorf("%w: waited for PEs %v, which have all returned", ErrNoWriters, from)
	}
	return ev, nil
}

// satisfied reports whether a test found what a wait of mode waits for.
func satisfied(mode driver.WaitMode, r driver.WaitResult) bool {
	switch mode {
	case driver.WaitAny:
		return r.N != driver.NoIndex
	case driver.WaitSome:
		return r.N > 0
	}
	return r.N == 1
}
