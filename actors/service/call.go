package service

import (
	"context"
	"fmt"
	"time"
)

// call is one Call on its way to a PE; done is buffered, so its answer
// never waits for a caller that gave up.
type call[Req, Resp any] struct {
	ctx  context.Context
	req  Req
	to   int
	sent time.Time // with middlewares: when the caller made it
	done chan result[Resp]
}

type result[Resp any] struct {
	v   Resp
	err error
}

// answered counts a call that a PE of this process answered, or that
// this process forwarded and got the answer to.
func (c *peCounters) answered(err error) {
	c.calls.Add(1)
	if err != nil {
		c.errors.Add(1)
	}
}

// Call sends req to the actor on PE pe and returns its reply. It may be
// called from any goroutine (an HTTP handler, a cron job) by any number of
// them at once. ctx bounds the whole call and reaches the actor: when it
// ends the call returns its error at once and the actor's ctx ends too;
// the reply, if one still comes, is dropped.
//
// A call never queues without bound: when QueueDepth calls already wait
// for the PE, it blocks until one is taken, and fails with ErrOverloaded
// if ctx ends first. While the world restarts after a failure, a call
// waits for the next one (ErrRestarting if ctx ends first). A call pending
// when a PE fails returns at once with ErrPEFailed and the PE's
// *pgas.PEError; after Stop began, calls fail with ErrStopped.
func (s *Service[Req, Resp]) Call(ctx context.Context, pe int, req Req) (Resp, error) {
	var zero Resp
	if err := s.check(ctx); err != nil {
		return zero, err
	}
	g, err := s.enter(ctx)
	if err != nil {
		return zero, err
	}
	defer g.calls.Done()
	if uint(pe) >= uint(g.n) {
		return zero, fmt.Errorf("%w: PE %d in a world of %d", ErrBadPE, pe, g.n)
	}
	return g.call(ctx, pe, req)
}

// CallAny is Call to whichever local PE is free first: the calls of
// CallAny wait in one inbox that every PE of this process serves (with
// QueueDepth calls per local PE), as jobs wait for a pool of workers.
func (s *Service[Req, Resp]) CallAny(ctx context.Context, req Req) (Resp, error) {
	var zero Resp
	if err := s.check(ctx); err != nil {
		return zero, err
	}
	g, err := s.enter(ctx)
	if err != nil {
		return zero, err
	}
	defer g.calls.Done()
	return g.send(ctx, g.anyq, nil, -1, req)
}

// check refuses what a caller got wrong before it reaches any PE: a nil
// or zero Service (one Start did not make), a nil context.
func (s *Service[Req, Resp]) check(ctx context.Context) error {
	switch {
	case s == nil || s.done == nil:
		return fmt.Errorf("%w: a nil or zero Service (Start makes one)", ErrBadArg)
	case ctx == nil:
		return fmt.Errorf("%w: nil context", ErrBadArg)
	}
	return nil
}

// enter waits until the service takes calls and counts the caller in the
// world that will answer it.
func (s *Service[Req, Resp]) enter(ctx context.Context) (*generation[Req, Resp], error) {
	for {
		s.mu.RLock()
		switch s.state {
		case StateReady:
			g := s.gen
			g.calls.Add(1)
			s.mu.RUnlock()
			return g, nil
		case StateStopping, StateStopped:
			err := s.err
			s.mu.RUnlock()
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrStopped, err)
			}
			return nil, ErrStopped
		}
		changed := s.changed
		s.mu.RUnlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w", ErrRestarting, ctx.Err())
		}
	}
}

// call hands a call to its PE's inbox (or to the gateway, for a PE of
// another process) and awaits the answer.
func (g *generation[Req, Resp]) call(ctx context.Context, pe int, req Req) (Resp, error) {
	cnt := &(*g.s.counters.Load())[pe]
	cnt.inFlight.Add(1)
	defer cnt.inFlight.Add(-1)
	q := g.gateway.fwd
	if st := g.pes[pe]; st != nil && !g.s.o.forwardAll {
		q = st.calls
	}
	return g.send(ctx, q, cnt, pe, req)
}

// send puts a call to pe (-1: any local PE) into inbox q and awaits the
// answer; cnt counts it, if the PE is known.
func (g *generation[Req, Resp]) send(ctx context.Context, q chan *call[Req, Resp], cnt *peCounters, pe int, req Req) (Resp, error) {
	var zero Resp
	c := &call[Req, Resp]{ctx: ctx, req: req, to: pe, done: make(chan result[Resp], 1)}
	if len(g.s.o.middleware) > 0 {
		c.sent = time.Now()
	}
	select {
	case q <- c:
	default:
		select {
		case q <- c:
		case <-ctx.Done():
			if cnt != nil {
				cnt.rejected.Add(1)
			} else {
				g.s.anyRejected.Add(1)
			}
			return zero, fmt.Errorf("%w: %s has %d calls waiting: %w", ErrOverloaded, inboxName(pe), cap(q), ctx.Err())
		case <-g.failed:
			return zero, g.failErr
		}
	}
	select {
	case r := <-c.done:
		return r.v, r.err
	case <-ctx.Done():
		if cnt != nil {
			cnt.abandoned.Add(1)
		} else {
			g.s.anyAbandoned.Add(1)
		}
		return zero, fmt.Errorf("service: call to %s: %w", inboxName(pe), ctx.Err())
	case <-g.failed:
		return zero, g.failErr
	}
}

// inboxName names the inbox of PE pe, or the one that CallAny uses.
func inboxName(pe int) string {
	if pe < 0 {
		return "the local PEs"
	}
	return fmt.Sprintf("PE %d", pe)
}
