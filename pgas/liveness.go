package pgas

import (
	"context"
	"errors"
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
	none, _ := w.writers(self, from)
	return none
}

// writers is noWriters that also reports an id of from outside the world
// among those it looked at. While no PE of this process has finished it
// looks at none (O(1) however long from is); else it stops at the first
// PE still running.
func (w *World) writers(self int, from []int) (none, bad bool) {
	if len(from) > 0 && w.nDone.Load() == 0 {
		return false, false
	}
	for _, q := range from {
		if uint(q) >= uint(len(w.done)) {
			return false, true
		}
		if q == self || !w.done[q].Load() {
			return false, false
		}
	}
	return true, false
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
			return r, fmt.Errorf("%w: waited on %d words at offset %d for PEs %s, which have all returned", ErrNoWriters, req.N, req.Off, idList(from))
		}
		r, err := w.tr.Wait(ctx, p.id, ev, *req)
		if err == nil || ctx.Err() != nil || isClosed(w.failed) || !isClosed(ev) {
			return r, err
		}
	}
}

// Park blocks the calling goroutine of PE p until ready reports true: a
// wait on a condition no wait set can say, over words p reads in place
// (Local), such as "the next slot of some sender is full" — the receive
// path of package actors where partitions are host memory. ready runs on
// the caller's goroutine, at once, while the backend polls (unless the
// world parks at once, BlockPark), and after each write into words on p by
// any PE (a PutSignal, a Put, an atomic): a write that makes it true is
// followed by a call that sees it, and the writer hands its processor to
// the parked goroutine as a Go channel send does.
//
// Park ends as a Wait whose WaitSet.From is from would: with ctx's cause,
// when a PE fails or the world ends, or with ErrNoWriters once every PE in
// from has finished and a last call of ready reports false (nil from: any
// PE may write; empty: none). Unlike Wait's, from is not read whole on
// every call: Park looks at it only once a PE of this process has
// finished, up to the first PE still running, so that a long list (a
// receiver of thousands of senders) costs nothing per call. An id outside
// the world fails Park with ErrBadPE when Park looks at it.
//
// Park needs a backend whose PEs are goroutines of this process with
// partitions in host memory (driver.ParkTransport, the host backend):
// elsewhere it fails with errors.ErrUnsupported, and programs wait with
// Wait.
func Park(ctx context.Context, p *PE, words Sym[uint64], from []int, ready func() bool) error {
	// The errors are made out of line (parkRefused and the two below), so
	// that the path a message takes stays short: it runs twice a round
	// trip, and its code competes with the rest of the trip's for the
	// instruction cache.
	if !p.rmaOK(words.rec, 0) || p.w.pt == nil {
		return parkRefused(p, words, from)
	}
	w := p.w
	lo, hi := words.off, words.off+words.Bytes()
	for {
		var abort <-chan struct{} = w.failed
		if from != nil {
			abort = w.events() // before the check: a change after it closes it
			none, bad := w.writers(p.id, from)
			if bad {
				return parkRefused(p, words, from)
			}
			if none {
				if ready() { // their writes are complete: one last look
					return nil
				}
				return parkNoWriters(words, from)
			}
		}
		err := w.pt.Park(ctx, p.id, abort, lo, hi, ready)
		if err == nil {
			if words.rec.isFreed() {
				return parkFreed(words)
			}
			return nil
		}
		if ctx.Err() != nil || isClosed(w.failed) || !isClosed(abort) {
			return w.abortErr(ctx, "park", err)
		}
	}
}

// parkRefused says why Park refused its arguments. It never returns nil:
// were its checks ever to pass where Park's quick ones failed, Park would
// otherwise report its condition met without having waited.
//
//go:noinline
func parkRefused(p *PE, words Sym[uint64], from []int) error {
	if !p.rmaOK(words.rec, 0) {
		return p.rmaErr(words.rec, 0)
	}
	if p.w.pt == nil {
		return fmt.Errorf("pgas: Park on the %s backend: %w", p.w.cfg.Backend, errors.ErrUnsupported)
	}
	for _, q := range from {
		if err := p.checkPE(q); err != nil {
			return fmt.Errorf("park's from: %w", err)
		}
	}
	return fmt.Errorf("%w: Park refused its arguments (%d words at offset %d, from %d PEs), and no check says why", ErrBadArg, words.n, words.off, len(from))
}

//go:noinline
func parkNoWriters(words Sym[uint64], from []int) error {
	return fmt.Errorf("%w: parked on %d words at offset %d for PEs %s, which have all returned", ErrNoWriters, words.n, words.off, idList(from))
}

//go:noinline
func parkFreed(words Sym[uint64]) error {
	return fmt.Errorf("%w: words at offset %d were freed during Park", ErrBadSym, words.off)
}

// CanPark reports whether p's backend runs Park (driver.ParkTransport).
func CanPark(p *PE) bool { return p != nil && p.w.pt != nil }

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

// idList writes PE ids for an error, in brackets: as ranges ("[0-3, 5]")
// when they strictly increase, else as they come ("[3 1]").
func idList(pes []int) string {
	for i := 1; i < len(pes); i++ {
		if pes[i] <= pes[i-1] {
			return fmt.Sprint(pes)
		}
	}
	return "[" + ranges(pes) + "]"
}
