package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

// A generation is one world of a service: the service starts one, and
// another after each failure.
type generation[Req, Resp any] struct {
	s     *Service[Req, Resp]
	id    uint64
	h     *pgas.Handle
	n     int
	local []int

	mu      sync.Mutex
	pes     []*peState[Req, Resp] // by PE; nil where not local. Read freely once ready is closed.
	gateway *peState[Req, Resp]   // the lowest local PE: it forwards calls to the others
	anyq    chan *call[Req, Resp] // CallAny's calls, served by every local PE
	nReady  int
	expect  int // local PEs; 0 until pgas.Start returned
	ready   chan struct{}

	failOnce sync.Once
	failed   chan struct{} // closed when the world fails or stops
	failErr  error         // why, set before failed is closed

	calls sync.WaitGroup // calls accepted into this world and not yet returned
}

// peState is a local PE's inbox.
type peState[Req, Resp any] struct {
	calls chan *call[Req, Resp] // calls to this PE
	fwd   chan *call[Req, Resp] // on the gateway: calls to other processes' PEs
}

// startWorld starts a world and waits until every local PE's actor is
// made.
func (s *Service[Req, Resp]) startWorld(ctx context.Context) (*generation[Req, Resp], error) {
	s.mu.Lock()
	s.nGen++
	g := &generation[Req, Resp]{s: s, id: s.nGen, ready: make(chan struct{}), failed: make(chan struct{})}
	s.mu.Unlock()
	h, err := pgas.Start(ctx, s.cfg, g.runPE)
	if err != nil {
		return nil, err
	}
	g.h = h
	w := h.World()
	g.n, g.local = w.NumPEs(), w.LocalPEs()
	g.mu.Lock()
	g.expect = len(g.local)
	g.checkReady()
	g.mu.Unlock()
	select {
	case <-g.ready:
		s.o.log.Info("symchan: world started", "generation", g.id, "backend", w.Config().Backend, "pes", g.n, "local_pes", g.local)
		return g, nil
	case <-g.failed:
		err = g.failErr
	case <-ctx.Done():
		err = ctx.Err()
	}
	_ = h.Stop(context.Background())
	g.end()
	return nil, fmt.Errorf("service: starting the world: %w", err)
}

// checkReady closes ready once every local PE registered. Callers hold
// g.mu.
func (g *generation[Req, Resp]) checkReady() {
	if g.expect > 0 && g.nReady == g.expect {
		close(g.ready)
	}
}

// fail ends the generation's calls with cause: ErrStopped after a stop,
// or a PE's failure (a *pgas.PEError, wrapped with ErrPEFailed). The first
// cause wins.
func (g *generation[Req, Resp]) fail(cause error) {
	g.failOnce.Do(func() {
		if errors.Is(cause, pgas.ErrStopped) {
			g.failErr = ErrStopped
		} else {
			g.failErr = fmt.Errorf("%w: %w", ErrPEFailed, cause)
			var pe *pgas.PEError
			if errors.As(cause, &pe) {
				if cs := g.s.counters.Load(); cs != nil && uint(pe.PE) < uint(len(*cs)) {
					(*cs)[pe.PE].failures.Add(1)
				}
				if stack := pe.Stack(); stack != nil { // the one place a failure's stack goes
					g.s.o.log.Error("symchan: PE failed", "generation", g.id, "pe", pe.PE, "err", pe.Err, "stack", string(stack))
				} else {
					g.s.o.log.Error("symchan: PE failed", "generation", g.id, "pe", pe.PE, "err", pe.Err)
				}
			} else {
				g.s.o.log.Error("symchan: world failed", "generation", g.id, "err", cause)
			}
		}
		// The state first: a caller woken by failed that calls again
		// must wait for the next world, not find this one.
		g.s.failed(g)
		close(g.failed)
	})
}

// end is called once the generation's world has ended: pending calls get
// their answer, and the mailbox counts are kept.
func (g *generation[Req, Resp]) end() {
	err := g.h.Err()
	if err == nil {
		err = pgas.ErrStopped
	}
	g.fail(err)
	if cs := g.s.counters.Load(); cs != nil {
		for _, pe := range g.local {
			(*cs)[pe].retire()
		}
	}
}

// runPE is every PE's function: it makes the PE's actor and serves its
// calls until the world stops. It fails the PE when the actor panics or
// returns a Fatal error; a cancellation caused by another PE's failure or
// by a stop ends it without an error of its own.
func (g *generation[Req, Resp]) runPE(ctx context.Context, pe *pgas.PE) (err error) {
	s, id := g.s, pe.ID()
	cnt := &s.peCounters(pe.NumPEs())[id]
	defer func() {
		if r := recover(); r != nil {
			err = pgas.NewPanicError(r, "")
		}
		if err != nil && ctx.Err() != nil && !isFatal(err) {
			err = nil // the world ended under it: another PE's failure or a stop
		}
		if err != nil {
			g.fail(&pgas.PEError{PE: id, Err: err})
		} else if ctx.Err() != nil {
			g.fail(context.Cause(ctx))
		}
	}()
	// Calls to other processes' PEs travel through a Chan and futures of
	// the world; where every PE is in this process (host, cuda), none do,
	// and no PE keeps a receive waiting on the backend (on GPUs, on the
	// agent) for nothing. The condition is the same on every PE.
	var ch *actors.Chan[[]byte]
	var sys *actors.System
	remote := s.o.forwardAll || len(pe.World().LocalPEs()) < pe.NumPEs()
	if remote {
		if ch, err = actors.NewChanCodec[[]byte](ctx, pe, actors.BytesCodec{}, actors.MaxMessage(s.o.maxRequest+requestHead+maxCarried), actors.KeepStats()); err != nil {
			return err
		}
		if sys, err = actors.NewSystem(ctx, pe, actors.Futures(s.o.forwarders), actors.ReplySize(s.o.maxReply+1)); err != nil {
			return err
		}
	}
	actor, err := s.newActor(ctx, pe)
	if err != nil {
		return fmt.Errorf("service: making the actor: %w", err)
	}
	if actor == nil {
		return fmt.Errorf("%w: NewActor returned a nil Actor", ErrBadArg)
	}
	if c, ok := actor.(interface{ Close() error }); ok {
		defer func() {
			if cerr := c.Close(); cerr != nil {
				s.o.log.Warn("symchan: closing an actor", "pe", id, "err", cerr)
			}
		}()
	}
	st := &peState[Req, Resp]{calls: make(chan *call[Req, Resp], s.o.queue)}
	gateway := pe.World().LocalPEs()[0] == id
	var requests <-chan []byte // nil, never ready, when nothing is forwarded
	if remote {
		if gateway {
			st.fwd = make(chan *call[Req, Resp], s.o.queue)
			for range s.o.forwarders {
				pe.Go(func(ctx context.Context) { g.forwarder(ctx, sys, ch, st.fwd) })
			}
		}
		cnt.setBox(ch.Mailbox())
		requests = ch.C()
	}
	g.mu.Lock()
	if g.pes == nil {
		g.pes = make([]*peState[Req, Resp], pe.NumPEs())
		g.anyq = make(chan *call[Req, Resp], s.o.queue*len(pe.World().LocalPEs()))
	}
	anyq := g.anyq
	g.pes[id] = st
	if gateway {
		g.gateway = st
	}
	g.nReady++
	g.checkReady()
	g.mu.Unlock()

	for {
		select {
		case <-ctx.Done():
			return nil
		case c := <-st.calls:
			if err := g.serve(ctx, id, actor, cnt, c); err != nil {
				return err
			}
		case c := <-anyq:
			cnt.inFlight.Add(1)
			err := g.serve(ctx, id, actor, cnt, c)
			cnt.inFlight.Add(-1)
			if err != nil {
				return err
			}
		case b, ok := <-requests:
			if !ok {
				return fmt.Errorf("service: the world's mailbox ended: %w", ch.Err())
			}
			if err := g.serveRemote(ctx, id, sys, actor, b); err != nil {
				return err
			}
		}
	}
}

// serve answers a call made in this process. Only a Fatal error from the
// actor is returned (a panic goes up to runPE).
func (g *generation[Req, Resp]) serve(peCtx context.Context, id int, actor Actor[Req, Resp], cnt *peCounters, c *call[Req, Resp]) error {
	if !c.take() || c.ctx.Err() != nil {
		return nil // the caller gave up while the call waited
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	stop := context.AfterFunc(peCtx, func() { cancel(context.Cause(peCtx)) })
	var v Resp
	var err error
	if o := &g.s.o; len(o.middleware) > 0 {
		info := CallInfo{PE: id, Sent: c.sent, Started: time.Now()}
		err = o.intercepted(ctx, info, func(ctx context.Context) error {
			var serr error
			v, serr = actor.Serve(ctx, c.req)
			return serr
		})
		if err != nil {
			v = *new(Resp) // next's answer is dropped with a middleware's error
		}
	} else {
		v, err = actor.Serve(ctx, c.req)
	}
	stop()
	cancel(nil)
	if isFatal(err) {
		return err
	}
	if endedUnder(peCtx, err) {
		return nil
	}
	cnt.answered(err)
	c.done <- result[Resp]{v, err}
	return nil
}

// serveRemote answers a request that came through the world's mailbox
// from another process's PE.
func (g *generation[Req, Resp]) serveRemote(peCtx context.Context, id int, sys *actors.System, actor Actor[Req, Resp], b []byte) error {
	s := g.s
	r, err := parseRequest(b)
	if err != nil {
		// Only a peer's memory corruption writes such a message, and
		// there is no address to answer: the sender's call ends with its
		// deadline.
		s.o.log.Error("symchan: dropped a request", "pe", id, "err", err)
		return nil
	}
	cnt := &(*s.counters.Load())[id]
	ctx, cancel := peCtx, context.CancelFunc(func() {})
	if !r.deadline.IsZero() {
		ctx, cancel = context.WithDeadline(peCtx, r.deadline)
	}
	defer cancel()
	if s.o.carrier != nil && len(r.carried) > 0 {
		ctx = s.o.carrier.Extract(ctx, r.carried)
	}
	var v Resp
	if err = ctx.Err(); err == nil {
		var req Req
		if req, err = s.reqCodec.Decode(r.body); err != nil {
			err = fmt.Errorf("decoding the request: %w", err)
		} else if len(s.o.middleware) > 0 {
			info := CallInfo{PE: id, Remote: true, Started: time.Now()}
			err = s.o.intercepted(ctx, info, func(ctx context.Context) error {
				var serr error
				v, serr = actor.Serve(ctx, req)
				return serr
			})
		} else {
			v, err = actor.Serve(ctx, req)
		}
	}
	if isFatal(err) {
		// No reply: the caller learns of it as every pending call does,
		// from the PE's failure (an answer could reach it first).
		return err
	}
	cnt.answered(err)
	reply := replyOf(s.rspCodec, v, err)
	if len(reply) > s.o.maxReply+1 {
		reply = replyOf(s.rspCodec, v, fmt.Errorf("%w: a reply of %d bytes, MaxReply is %d", ErrTooLarge, len(reply)-1, s.o.maxReply))
	}
	if rerr := actors.ReplyCodec(sys, r.replyTo, reply, actors.BytesCodec{}); rerr != nil && !errors.Is(rerr, actors.ErrAbandoned) {
		s.o.log.Warn("symchan: a reply was lost", "pe", id, "to", r.replyTo.PE, "err", rerr)
	}
	return nil
}

// forwarder sends the gateway's calls to other processes' PEs, one at a
// time, until the PE's world ends.
func (g *generation[Req, Resp]) forwarder(peCtx context.Context, sys *actors.System, ch *actors.Chan[[]byte], fwd <-chan *call[Req, Resp]) {
	for {
		select {
		case <-peCtx.Done():
			return
		case c := <-fwd:
			if !c.take() {
				continue // its caller withdrew it
			}
			v, err := g.forward(peCtx, sys, ch, c)
			if endedUnder(peCtx, err) {
				continue
			}
			if g.pes[c.to] == nil { // a local PE counts its own answers
				(*g.s.counters.Load())[c.to].answered(err)
			}
			c.done <- result[Resp]{v, err}
		}
	}
}

// endedUnder reports whether err is the world ending under a call: the
// PE's context ended, or a wait saw a PE's failure before that context
// did. Such a call is left unanswered: its caller takes the generation's
// failure from g.failed, which always closes once the world ends, and
// which names the cause (an error racing it on c.done would name only
// the wait it cut short).
func endedUnder(peCtx context.Context, err error) bool {
	return err != nil && (peCtx.Err() != nil || errors.As(err, new(*pgas.PEError)))
}

// forward makes call c through the world's mailbox and awaits its reply.
func (g *generation[Req, Resp]) forward(peCtx context.Context, sys *actors.System, ch *actors.Chan[[]byte], c *call[Req, Resp]) (Resp, error) {
	s := g.s
	var zero Resp
	if err := c.ctx.Err(); err != nil {
		return zero, err
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	defer cancel(nil)
	defer context.AfterFunc(peCtx, func() { cancel(context.Cause(peCtx)) })()
	f, err := actors.NewFutureCodec[[]byte](sys, actors.BytesCodec{})
	if err != nil {
		return zero, err
	}
	deadline, _ := c.ctx.Deadline()
	var carried []byte
	if s.o.carrier != nil {
		carried = s.o.carrier.Inject(c.ctx)
	}
	b := appendRequest(make([]byte, 0, requestHead+len(carried)+64), deadline, f.ReplyTo(), carried)
	head := len(b)
	if len(carried) > maxCarried {
		err = fmt.Errorf("%w: the Carrier carried %d bytes, at most %d", ErrTooLarge, len(carried), maxCarried)
	} else if b, err = s.reqCodec.Append(b, c.req); err != nil {
		err = fmt.Errorf("service: encoding the request: %w", err)
	} else if len(b)-head > s.o.maxRequest {
		err = fmt.Errorf("%w: a request of %d bytes, MaxRequest is %d", ErrTooLarge, len(b)-head, s.o.maxRequest)
	} else {
		err = ch.Send(ctx, c.to, b)
	}
	if err != nil {
		f.Abandon()
		return zero, fmt.Errorf("service: call to PE %d: %w", c.to, err)
	}
	rb, err := f.Await(ctx)
	if err != nil {
		return zero, fmt.Errorf("service: call to PE %d: %w", c.to, err)
	}
	return parseReply(s.rspCodec, c.to, rb)
}
