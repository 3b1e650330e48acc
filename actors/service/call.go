package service

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// call is one Call on its way to a PE; done is buffered, so its answer
// never waits for a caller that gave up.
type call[Req, Resp any] struct {
	ctx   context.Context
	req   Req
	to    int
	sent  time.Time // with middlewares: when the caller made it
	done  chan result[Resp]
	state atomic.Uint32 // callQueued, then callTaken or callWithdrawn
}

// A queued call is either taken by its PE (or a forwarder) or withdrawn
// by its caller, who stopped waiting for it to start (QueueWait, or its
// context): whichever comes first decides, so a withdrawn call never
// reaches a PE and a taken one is answered.
const (
	callQueued uint32 = iota
	callTaken
	callWithdrawn
)

// take claims a queued call for its PE; false: the caller withdrew it.
func (c *call[Req, Resp]) take() bool { return c.state.CompareAndSwap(callQueued, callTaken) }

// withdraw takes a queued call back; false: a PE took it first.
func (c *call[Req, Resp]) withdraw() bool { return c.state.CompareAndSwap(callQueued, callWithdrawn) }

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
// for the PE, it blocks until one is taken. It fails with ErrOverloaded,
// counted as rejected, when it has not started (been taken by the PE)
// within its queue-wait bound (QueueWait, WithQueueWait) or before ctx
// ends; such a call never reaches the PE. While the world restarts after
// a failure, a call waits for the next one (ErrRestarting if ctx ends
// first). A call pending when a PE fails returns at once with ErrPEFailed
// and the PE's *pgas.PEError; after Stop began, calls fail with
// ErrStopped.
func (s *Service[Req, Resp]) Call(ctx context.Context, pe int, req Req) (Resp, error) {
	return s.call(ctx, pe, req, false)
}

// TryCall is Call that does not wait for room in the PE's inbox: it fails
// at once with ErrOverloaded, counted as rejected, when QueueDepth calls
// already wait there. Once queued it waits for its answer as Call does.
func (s *Service[Req, Resp]) TryCall(ctx context.Context, pe int, req Req) (Resp, error) {
	return s.call(ctx, pe, req, true)
}

func (s *Service[Req, Resp]) call(ctx context.Context, pe int, req Req, try bool) (Resp, error) {
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
	return g.call(ctx, pe, req, try)
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
	return g.send(ctx, g.anyq, nil, -1, req, false)
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
func (g *generation[Req, Resp]) call(ctx context.Context, pe int, req Req, try bool) (Resp, error) {
	cnt := &(*g.s.counters.Load())[pe]
	cnt.inFlight.Add(1)
	defer cnt.inFlight.Add(-1)
	q := g.gateway.fwd
	if st := g.pes[pe]; st != nil && !g.s.o.forwardAll {
		q = st.calls
	}
	return g.send(ctx, q, cnt, pe, req, try)
}

// send puts a call to pe (-1: any local PE) into inbox q and awaits the
// answer; cnt counts it, if the PE is known. With try it does not wait for
// room in q.
func (g *generation[Req, Resp]) send(ctx context.Context, q chan *call[Req, Resp], cnt *peCounters, pe int, req Req, try bool) (Resp, error) {
	var zero Resp
	c := &call[Req, Resp]{ctx: ctx, req: req, to: pe, done: make(chan result[Resp], 1)}
	if len(g.s.o.middleware) > 0 {
		c.sent = time.Now()
	}
	var bound <-chan time.Time // the queue-wait bound's end; nil: none
	wait := g.s.o.queueWaitOf(ctx)
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		bound = t.C
	}
	reject := func(why string, cause error) (Resp, error) {
		if cnt != nil {
			cnt.rejected.Add(1)
		} else {
			g.s.anyRejected.Add(1)
		}
		if cause != nil {
			return zero, fmt.Errorf("%w: %s %s: %w", ErrOverloaded, inboxName(pe), why, cause)
		}
		return zero, fmt.Errorf("%w: %s %s", ErrOverloaded, inboxName(pe), why)
	}
	select {
	case q <- c:
	default:
		full := fmt.Sprintf("has %d calls waiting", cap(q))
		if try {
			return reject(full, nil)
		}
		select {
		case q <- c:
		case <-bound:
			return reject(fmt.Sprintf("%s (QueueWait %v)", full, wait), nil)
		case <-ctx.Done():
			return reject(full, ctx.Err())
		case <-g.failed:
			return zero, g.failErr
		}
	}
	for {
		select {
		case r := <-c.done:
			return r.v, r.err
		case <-bound:
			bound = nil
			if c.withdraw() {
				return reject(fmt.Sprintf("did not start the call within %v (QueueWait)", wait), nil)
			}
		case <-ctx.Done():
			if c.withdraw() {
				return reject("did not start the call", ctx.Err())
			}
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
}

// inboxName names the inbox of PE pe, or the one that CallAny uses.
func inboxName(pe int) string {
	if pe < 0 {
		return "the local PEs"
	}
	return fmt.Sprintf("PE %d", pe)
}
