// Package handoff parks one goroutine until another rings it, the way a Go
// channel hands a value to a parked receiver: the ringer's send makes the
// parked goroutine runnable on the ringer's own processor, so that a
// request/response pair of goroutines runs on one core without cache
// misses between them. On the host backend the first goroutine to wait
// or park on a partition (pgas.Park, on which the actors' mailboxes and
// futures rest on host memory) parks on that partition's Spot; others
// that wait there at the same time park on a list of their own
// (pgas/host/park.go), each on a channel of one slot, woken by any write
// to the words they watch.
package handoff

import (
	"context"
	"errors"
	"sync/atomic"
	"unsafe"
)

// ErrAborted is Stopped's answer when the abort channel closed.
var ErrAborted = errors.New("handoff: aborted")

// A Spot is where one goroutine at a time parks; any goroutine may Ring
// it. It parks on a plain receive from ch: a select that also watched ctx
// and abort would cost twice as much (about 150 ns a wait on a 2-core
// VM), so those reach the parked goroutine through ch as well: an
// AfterFunc on its context and a goroutine per abort channel, kept across
// waits while the context and channel stay the same (a PE's goroutine
// waits with the same ones). The zero Spot is not usable: call Init.
type Spot struct {
	armed atomic.Bool   // the holder is about to park: ring it
	ch    chan struct{} // 1 slot

	ctx     context.Context // the context last watched
	done    <-chan struct{} // its Done, which an AfterFunc watches
	stop    func() bool     // stops that AfterFunc
	fired   *atomic.Bool    // set by that AfterFunc before it rings
	watches [2]abortWatch   // the last two abort channels seen
	next    int             // which watch the next abort channel replaces
}

// An abortWatch is a goroutine that rings its Spot when abort closes, or
// ends when quit does. It sets fired before it rings.
type abortWatch struct {
	abort <-chan struct{}
	quit  chan struct{}
	fired *atomic.Bool
}

// never is the fired flag of a watch that cannot fire (a context that
// is never done, an abort channel not yet seen).
var never = new(atomic.Bool)

// Init readies s for use.
func (s *Spot) Init() {
	s.ch = make(chan struct{}, 1)
	s.fired = never
	s.watches = [2]abortWatch{{fired: never}, {fired: never}}
}

// Armed reports whether a goroutine is about to park on s or parked.
func (s *Spot) Armed() bool { return s.armed.Load() }

// Ring wakes the goroutine parked on s, if one is. Each successful disarm
// here puts one token in ch, which the holder takes before it arms again,
// so the send never finds the slot full. A writer rings after every store
// and mostly finds nobody parked: a load first spares it the locked
// compare-and-swap then.
func (s *Spot) Ring() {
	if s.armed.Load() && s.armed.CompareAndSwap(true, false) {
		s.ch <- struct{}{}
	}
}

// A waiting goroutine (one at a time per Spot) goes through these steps,
// checking its condition where they say:
//
//	s.Watch(ctx, abort)
//	s.Arm()
//	for {
//		ok := check()
//		if !ok && s.Stopped(ctx, abort) == nil {
//			s.Park()
//			if check() { return }  // the ring disarmed s
//			s.Arm()
//			continue
//		}
//		s.Disarm()
//		return
//	}
//
// Go's atomics are sequentially consistent: a ringer that makes the
// condition true after Arm sees the arming, or the check after Arm sees
// what the ringer did. The steps are methods, not one Wait taking the
// check as a function, because a call through a function value costs the
// host backend's ping-pong 7%.

// Watch makes ctx's end and abort's closing ring s, unless they already
// do, for the waits to come. The same context and channel as last time,
// as a PE's waits mostly bring, cost two comparisons: the wait path's
// code is kept small (it competes with the rest of a round trip's for the
// instruction cache).
func (s *Spot) Watch(ctx context.Context, abort <-chan struct{}) {
	if !same(ctx, s.ctx) {
		s.watchCtx(ctx)
	}
	if abort != nil && abort != s.watches[0].abort && abort != s.watches[1].abort {
		s.watchAbort(abort)
	}
}

// same reports whether a and b hold the same context value: the same
// dynamic type and the same data word (== would panic on a dynamic type
// that is not comparable). Successive calls to one context's Done return
// the same channel, so Watch need not ask again.
func same(a, b context.Context) bool {
	// Word by word: an array comparison calls memequal.
	x, y := (*[2]unsafe.Pointer)(unsafe.Pointer(&a)), (*[2]unsafe.Pointer)(unsafe.Pointer(&b))
	return x[0] == y[0] && x[1] == y[1]
}

// Arm announces that the holder is about to park: the next Ring wakes it.
func (s *Spot) Arm() { s.armed.Store(true) }

// Park parks the holder until a Ring, which disarmed s.
func (s *Spot) Park() { <-s.ch }

// Disarm ends an arming that did not park; when a ring beat it, it takes
// that ring's token, so that the next Park waits for a ring of its own.
func (s *Spot) Disarm() {
	if !s.armed.CompareAndSwap(true, false) {
		<-s.ch
	}
}

// Stopped is why a wait must end without its condition: ctx's error, or
// ErrAborted when abort closed; nil if neither. Called after Watch and
// Arm with the same ctx and abort, it loads three flags: none of the
// watches has fired, so either neither has ended, or the watch that sees
// it end will ring s (armed), and the next Stopped looks again.
func (s *Spot) Stopped(ctx context.Context, abort <-chan struct{}) error {
	w := &s.watches
	if !s.fired.Load() && !w[0].fired.Load() && !w[1].fired.Load() && same(ctx, s.ctx) &&
		(abort == nil || abort == w[0].abort || abort == w[1].abort) {
		return nil
	}
	return s.stopped(ctx, abort)
}

// stopped is Stopped's look at ctx and abort themselves.
func (s *Spot) stopped(ctx context.Context, abort <-chan struct{}) error {
	if !same(ctx, s.ctx) || isClosed(s.done) {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if isClosed(abort) {
		return ErrAborted
	}
	return nil
}

// watchCtx makes ctx's end ring s, unless it already does.
func (s *Spot) watchCtx(ctx context.Context) {
	s.ctx = ctx
	d := ctx.Done()
	if d == s.done {
		return
	}
	if s.stop != nil {
		s.stop()
	}
	s.done, s.stop, s.fired = d, nil, never
	if d != nil {
		fired := new(atomic.Bool)
		s.fired = fired
		s.stop = context.AfterFunc(ctx, func() {
			fired.Store(true)
			s.Ring()
		})
	}
}

// watchAbort makes abort's closing ring s, unless it already does. Two
// watches are kept: a PE waits with one of two channels (its world's
// failure channel, or its liveness events).
func (s *Spot) watchAbort(abort <-chan struct{}) {
	w := &s.watches[s.next]
	s.next = 1 - s.next
	if w.quit != nil {
		close(w.quit)
	}
	quit, fired := make(chan struct{}), new(atomic.Bool)
	*w = abortWatch{abort: abort, quit: quit, fired: fired}
	go func() {
		select {
		case <-abort:
			fired.Store(true)
			s.Ring()
		case <-quit:
		}
	}()
}

// Close ends s's watches; no Wait may be under way. A watch may still be
// ringing: armed and ch are left alone.
func (s *Spot) Close() {
	if s.stop != nil {
		s.stop()
	}
	for _, w := range s.watches {
		if w.quit != nil {
			close(w.quit)
		}
	}
	s.ctx, s.done, s.stop, s.fired = nil, nil, nil, never
	s.watches = [2]abortWatch{{fired: never}, {fired: never}}
}

// isClosed reports whether ch is closed (nil never is).
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
