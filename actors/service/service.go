package service

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

// An Actor serves the calls to one PE, one at a time.
type Actor[Req, Resp any] interface {
	// Serve answers one request. ctx carries the caller's deadline and
	// values (a call from another process: its deadline) and ends when
	// the caller gives up or the world stops; work that outlives it is
	// wasted. An error is the caller's answer, unless it is marked with
	// [Fatal]: then, as on a panic, the PE fails and the world restarts.
	Serve(ctx context.Context, req Req) (Resp, error)
}

// ActorFunc is an Actor that is a function.
type ActorFunc[Req, Resp any] func(ctx context.Context, req Req) (Resp, error)

// Serve calls f.
func (f ActorFunc[Req, Resp]) Serve(ctx context.Context, req Req) (Resp, error) { return f(ctx, req) }

// NewActor makes a PE's actor when its world starts, on every PE and
// again after every restart. It runs as part of the PE's function, so it
// may make collective calls (allocate symmetric memory, create Chans,
// load GPU modules) in the same order on every PE, and its PE may be used
// by the actor's calls until the world stops. If the actor has a method
// Close() error, it is called when the PE's world ends.
type NewActor[Req, Resp any] func(ctx context.Context, pe *pgas.PE) (Actor[Req, Resp], error)

// State is where a service is in its life.
type State int32

// The states, in the order a service goes through them (StateReady and
// StateRestarting may alternate).
const (
	StateStarting   State = iota // the first world is starting
	StateReady                   // the world is up and takes calls
	StateRestarting              // a PE failed; the next world is on its way
	StateStopping                // Stop began: no new calls; those under way finish
	StateStopped                 // the world is gone (Err says why)
)

func (s State) String() string {
	switch s {
	case StateStarting:
		return "starting"
	case StateReady:
		return "ready"
	case StateRestarting:
		return "restarting"
	case StateStopping:
		return "stopping"
	case StateStopped:
		return "stopped"
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// A Service is a world whose PEs are actors that any goroutine of the
// process can call ([Service.Call]), kept up for as long as the process
// wants it: a failed PE fails the calls pending on the world and the world
// is restarted under a [RestartPolicy]; [Service.Stop] ends it gracefully.
// Its methods are safe for concurrent use.
//
// On backends whose PEs share one process (host, cuda) a call goes
// straight to its PE's inbox, a bounded Go queue. On backends of one PE
// per process (nvshmem), a call to another process's PE travels through
// this process's PE: as a request in a mailbox of the world, its reply in
// a future (the world's own messaging), so Req and Resp need a codec
// unless they are plain data ([StartCodec]).
type Service[Req, Resp any] struct {
	cfg      pgas.Config
	newActor NewActor[Req, Resp]
	reqCodec actors.Codec[Req]
	rspCodec actors.Codec[Resp]
	o        options

	// stopCtx ends with Stop: it aborts a restart under way.
	stopCtx context.Context
	stopAll context.CancelFunc

	mu        sync.RWMutex
	state     State
	changed   chan struct{} // closed and replaced on every change of state
	gen       *generation[Req, Resp]
	nGen      uint64
	restarts  []time.Time // within the policy's window
	nRestarts uint64
	err       error
	stopClean bool // Stop found the world failed already
	done      chan struct{}

	ctrOnce  sync.Once
	counters atomic.Pointer[[]peCounters] // by PE, once the first world told its size
	// CallAny's calls that gave up before a PE took them, or after.
	anyRejected, anyAbandoned atomic.Uint64
}

// Start starts a service of plain request and reply types (numbers, and
// arrays and structs of them: see actors.NewChan); other types need
// [StartCodec]. It returns once the first world is up (every local PE's
// actor made), or with the error that kept it from starting; ctx bounds
// that start and gives the PEs' contexts its values. Once Start has
// returned, ctx's end does not stop the service: Stop does.
func Start[Req, Resp any](ctx context.Context, cfg pgas.Config, newActor NewActor[Req, Resp], opts ...Option) (*Service[Req, Resp], error) {
	rq, err := actors.PlainCodec[Req]()
	if err != nil {
		return nil, fmt.Errorf("service: %w (StartCodec takes codecs)", err)
	}
	rp, err := actors.PlainCodec[Resp]()
	if err != nil {
		return nil, fmt.Errorf("service: %w (StartCodec takes codecs)", err)
	}
	return StartCodec(ctx, cfg, newActor, rq, rp, opts...)
}

// StartCodec is Start for request and reply types that the codecs encode
// (used only by calls that cross processes).
func StartCodec[Req, Resp any](ctx context.Context, cfg pgas.Config, newActor NewActor[Req, Resp], reqCodec actors.Codec[Req], respCodec actors.Codec[Resp], opts ...Option) (*Service[Req, Resp], error) {
	if newActor == nil || reqCodec == nil || respCodec == nil {
		return nil, fmt.Errorf("%w: nil NewActor or codec", ErrBadArg)
	}
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	s := &Service[Req, Resp]{cfg: cfg, newActor: newActor, reqCodec: reqCodec, rspCodec: respCodec, o: o,
		changed: make(chan struct{}), done: make(chan struct{})}
	s.stopCtx, s.stopAll = context.WithCancel(context.WithoutCancel(ctx))
	g, err := s.startWorld(ctx)
	if err != nil {
		s.stopAll()
		return nil, err
	}
	s.install(g) // nobody can have called Stop yet
	go s.supervise(g)
	return s, nil
}

// setState changes the state and wakes whoever waits for a change.
// Callers hold s.mu.
func (s *Service[Req, Resp]) setState(st State) {
	s.state = st
	close(s.changed)
	s.changed = make(chan struct{})
}

// State is the service's state now. A Service that Start did not make
// (a zero or nil one) is StateStopped, as its Done says.
func (s *Service[Req, Resp]) State() State {
	if s == nil || s.done == nil {
		return StateStopped
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.state
}

// Ready reports whether the world is up and takes calls: what a
// readiness probe asks.
func (s *Service[Req, Resp]) Ready() bool { return s.State() == StateReady }

// NumPEs is the number of PEs of the service's world (0 for a zero
// Service, which Start did not make).
func (s *Service[Req, Resp]) NumPEs() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.gen == nil {
		return 0
	}
	return s.gen.n
}

// LocalPEs lists the PEs that run in this process (see
// pgas.World.LocalPEs); none for a zero Service.
func (s *Service[Req, Resp]) LocalPEs() []int {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.gen == nil {
		return nil
	}
	return append([]int(nil), s.gen.local...)
}

// Done is closed when the service has stopped: after Stop, or when the
// restart policy gave up.
func (s *Service[Req, Resp]) Done() <-chan struct{} {
	if s == nil || s.done == nil {
		return closedChan // a Service Start did not make never runs
	}
	return s.done
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Err is why the service stopped once Done is closed (nil before, and nil
// after a Stop that found every PE well): the world's errors, or
// ErrRestartsExhausted joined with the last failure.
func (s *Service[Req, Resp]) Err() error {
	if s == nil {
		return nil
	}
	select {
	case <-s.done:
		s.mu.RLock()
		defer s.mu.RUnlock()
		return s.err
	default:
		return nil
	}
}

// Stop ends the service gracefully, as http.Server.Shutdown ends a server:
// calls made from now on fail with ErrStopped, the calls already under way
// are answered, then the world stops (its PEs' contexts are cancelled, its
// GPU contexts, agents and memory released). If ctx ends first, the world
// is stopped at once (the remaining calls fail) and Stop returns ctx's
// error while it finishes in the background (see Done). It returns the
// world's error, as Err. Calling Stop again, or after the service stopped
// by itself, is fine.
//
// Where PEs run in several processes (nvshmem), each process stops its own
// PE: stop them together, once no process calls the others' PEs any more.
// A call forwarded to a PE whose process has stopped is answered by
// nobody and ends with its deadline.
func (s *Service[Req, Resp]) Stop(ctx context.Context) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	s.mu.Lock()
	first := s.state != StateStopping && s.state != StateStopped
	g := s.gen
	if first {
		// A failure the supervisor is already handling is not this
		// stop's outcome.
		s.stopClean = s.state == StateRestarting
		s.setState(StateStopping)
		s.stopAll()
	}
	s.mu.Unlock()
	if first && g != nil {
		drained := make(chan struct{})
		go func() {
			g.calls.Wait()
			close(drained)
		}()
		select {
		case <-drained:
		case <-ctx.Done():
		}
		_ = g.h.Stop(ctx) // the supervisor learns the outcome from Done
	}
	select {
	case <-s.done:
		return s.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failed learns that world g failed: calls from now on wait for the
// next world (or for the policy's verdict).
func (s *Service[Req, Resp]) failed(g *generation[Req, Resp]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen == g && s.state == StateReady {
		s.setState(StateRestarting)
	}
}

// finish stops the service for good with err. Callers hold s.mu.
func (s *Service[Req, Resp]) finish(err error) {
	s.err = err
	s.setState(StateStopped)
	close(s.done)
}

// supervise watches each world until it ends, and restarts it after a
// failure as the policy allows.
func (s *Service[Req, Resp]) supervise(g *generation[Req, Resp]) {
	for g != nil {
		<-g.h.Done()
		g.end()
		if s.stopped(g.h.Err()) {
			return
		}
		g = s.restart(g.failErr)
	}
}

// stopped finishes the service with err if Stop began, and reports
// whether it had.
func (s *Service[Req, Resp]) stopped(err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != StateStopping {
		return false
	}
	if s.stopClean {
		err = nil
	}
	s.o.log.Info("symchan: world stopped", "err", err)
	s.finish(err)
	return true
}

// restart starts the next world after a failure, as the policy allows,
// and again when a start fails; nil when the service stopped instead.
func (s *Service[Req, Resp]) restart(cause error) *generation[Req, Resp] {
	for {
		wait, ok := s.admit(cause)
		if !ok {
			return nil
		}
		select {
		case <-time.After(wait):
		case <-s.stopCtx.Done():
		}
		var next *generation[Req, Resp]
		err := s.stopCtx.Err()
		if err == nil {
			ctx, cancel := context.WithTimeout(s.stopCtx, s.o.startTimeout)
			next, err = s.startWorld(ctx)
			cancel()
		}
		if err == nil && s.install(next) {
			return next
		}
		if next != nil { // Stop began while it started
			_ = next.h.Stop(context.Background())
			next.end()
		}
		if s.stopped(nil) {
			return nil
		}
		s.o.log.Error("symchan: restart failed", "err", err)
		cause = err
	}
}

// install makes g the service's world, unless Stop began.
func (s *Service[Req, Resp]) install(g *generation[Req, Resp]) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateStopping {
		return false
	}
	s.gen = g
	s.setState(StateReady)
	return true
}

// admit applies the restart policy to a failure: it returns the wait
// before the restart, or stops the service (ok false).
func (s *Service[Req, Resp]) admit(cause error) (wait time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == StateStopping {
		s.finish(nil)
		return 0, false
	}
	p := s.o.policy
	s.restarts, wait, ok = p.admit(s.restarts, time.Now())
	if !ok {
		err := errors.Join(fmt.Errorf("%w: %d restarts within %v", ErrRestartsExhausted, p.MaxRestarts, p.Window), cause)
		s.o.log.Error("symchan: restart policy exhausted; service stopped", "max_restarts", p.MaxRestarts, "window", p.Window, "err", cause)
		s.finish(err)
		return 0, false
	}
	s.nRestarts++
	s.setState(StateRestarting)
	s.o.log.Warn("symchan: restarting world", "restart", s.nRestarts, "wait", wait, "cause", cause)
	return wait, true
}

// peCounters returns the counters of a world of n PEs.
func (s *Service[Req, Resp]) peCounters(n int) []peCounters {
	s.ctrOnce.Do(func() {
		c := make([]peCounters, n)
		s.counters.Store(&c)
	})
	return *s.counters.Load()
}

// Stats returns the service's figures now.
func (s *Service[Req, Resp]) Stats() Stats {
	if s == nil || s.done == nil {
		return Stats{State: StateStopped}
	}
	s.mu.RLock()
	st := Stats{State: s.state, Generation: s.nGen, Restarts: s.nRestarts,
		AnyRejected: s.anyRejected.Load(), AnyAbandoned: s.anyAbandoned.Load()}
	g := s.gen
	s.mu.RUnlock()
	cs := s.counters.Load()
	if cs == nil {
		return st
	}
	st.PEs = make([]PEStats, len(*cs))
	for i := range *cs {
		st.PEs[i] = (*cs)[i].snapshot(i)
	}
	// The world's inboxes, while it takes calls.
	for _, pe := range g.local {
		st.PEs[pe].Local = true
		if st.State == StateReady {
			st.PEs[pe].Queued = len(g.pes[pe].calls)
		}
	}
	if st.State == StateReady {
		st.AnyQueued = len(g.anyq)
	}
	return st
}
