package host

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/symchan/symchan/pgas/driver"
)

// parker wakes the goroutines parked in waits on one partition when a
// write touches the words they wait on. Writers pay two atomic loads when
// nobody waits.
//
// The first goroutine to park on a partition takes owner, the hand-off
// path; goroutines that wait on the same partition at the same time go on
// the list.
type parker struct {
	owner handoff

	waiters atomic.Int32
	lo, hi  atomic.Int64 // union of the listed waiters' ranges
	mu      sync.Mutex
	list    []*waiter
}

// wait parks until e holds, ctx ends or abort closes, woken by writes to
// bytes [lo, hi): on the hand-off path if no other wait holds it, else on
// the list.
func (p *parker) wait(ctx context.Context, abort <-chan struct{}, lo, hi int64, e *evaluator) (driver.WaitResult, error) {
	if o := &p.owner; o.busy.CompareAndSwap(false, true) {
		r, err := o.wait(ctx, abort, lo, hi, e)
		o.busy.Store(false)
		return r, err
	}
	w := p.arm(lo, hi)
	defer p.release(w)
	for {
		if r, ok := e.eval(); ok {
			return r, nil
		}
		select {
		case <-w.ch:
			p.rearm(w)
		case <-ctx.Done():
			return driver.WaitResult{}, ctx.Err()
		case <-abort:
			return driver.WaitResult{}, errAborted
		}
	}
}

// handoff is a partition's hand-off waiter. It parks on a plain receive
// from ch, so the writer's send makes it runnable on the writer's own
// processor, as a Go channel does: a request/response pair of goroutines
// then runs on one core, without cache misses between them. A select
// that also watched ctx and abort would cost twice as much, so those
// reach the waiter through ch as well: an AfterFunc on its context and a
// goroutine per abort channel, kept across waits while the context and
// channel stay the same (a PE's goroutine waits with the same ones).
type handoff struct {
	busy   atomic.Bool   // a wait holds the fields below
	armed  atomic.Bool   // the holder is about to park: ring it
	lo, hi atomic.Int64  // the holder's bytes
	ch     chan struct{} // 1 slot, made with the transport

	done    <-chan struct{} // the context AfterFunc watches
	stop    func() bool     // stops that AfterFunc
	watches [2]abortWatch   // the last two abort channels seen
	next    int             // which watch the next abort channel replaces
}

// An abortWatch is a goroutine that rings its handoff when abort closes,
// or ends when quit does.
type abortWatch struct {
	abort <-chan struct{}
	quit  chan struct{}
}

// ring wakes the holder if it is armed. Each successful disarm here puts
// one token in ch, which the holder takes before it arms again, so the
// send never finds the slot full.
func (o *handoff) ring() {
	if o.armed.CompareAndSwap(true, false) {
		o.ch <- struct{}{}
	}
}

// wait runs e until it holds, ctx ends or abort closes, parking between
// checks; the caller holds o (busy). Go's atomics are sequentially
// consistent: either a writer sees armed or the check after arming sees
// its write.
func (o *handoff) wait(ctx context.Context, abort <-chan struct{}, lo, hi int64, e *evaluator) (driver.WaitResult, error) {
	// A PE waits on the same words again and again: storing only what
	// changed saves two locked instructions a wait.
	if o.lo.Load() != lo {
		o.lo.Store(lo)
	}
	if o.hi.Load() != hi {
		o.hi.Store(hi)
	}
	o.watchCtx(ctx)
	o.watchAbort(abort)
	o.armed.Store(true)
	for {
		r, ok := e.eval()
		var err error
		if !ok {
			if err = ctx.Err(); err == nil && isClosed(abort) {
				err = errAborted
			}
		}
		if ok || err != nil {
			if !o.armed.CompareAndSwap(true, false) {
				<-o.ch // a ring beat the disarm: take its token
			}
			return r, err
		}
		<-o.ch
		// The ring that woke o disarmed it, and no other ring sends until
		// it is armed again: a wake-up that finds e holding returns
		// without arming and disarming.
		if r, ok := e.eval(); ok {
			return r, nil
		}
		o.armed.Store(true)
	}
}

// watchCtx makes ctx's end ring o, unless it already does.
func (o *handoff) watchCtx(ctx context.Context) {
	d := ctx.Done()
	if d == o.done {
		return
	}
	if o.stop != nil {
		o.stop()
	}
	o.done, o.stop = d, nil
	if d != nil {
		o.stop = context.AfterFunc(ctx, o.ring)
	}
}

// watchAbort makes abort's closing ring o, unless it already does. A PE
// waits with one of two channels (the world's failure channel, or its
// liveness events), so two watches are kept.
func (o *handoff) watchAbort(abort <-chan struct{}) {
	if abort == nil {
		return
	}
	for _, w := range o.watches {
		if w.abort == abort {
			return
		}
	}
	w := &o.watches[o.next]
	o.next = 1 - o.next
	if w.quit != nil {
		close(w.quit)
	}
	quit := make(chan struct{})
	*w = abortWatch{abort: abort, quit: quit}
	go func() {
		select {
		case <-abort:
			o.ring()
		case <-quit:
		}
	}()
}

// close ends o's watches; no wait holds o. A watch may still be ringing:
// armed and ch are left alone.
func (o *handoff) close() {
	if o.stop != nil {
		o.stop()
	}
	for _, w := range o.watches {
		if w.quit != nil {
			close(w.quit)
		}
	}
	o.done, o.stop, o.watches = nil, nil, [2]abortWatch{}
}

// A waiter is one listed wait's registration. notify takes it off the
// list and leaves a token in ch; the wait re-checks, and rearms it if it
// must wait on.
type waiter struct {
	lo, hi int64
	ch     chan struct{} // 1 slot
	listed bool          // on the list (under mu)
}

var waiters = sync.Pool{New: func() any { return &waiter{ch: make(chan struct{}, 1)} }}

// arm registers a waiter on bytes [lo, hi). The caller re-checks its
// condition after arm: Go's atomics are sequentially consistent, so either
// the writer sees the registration or the waiter sees the write.
func (p *parker) arm(lo, hi int64) *waiter {
	w := waiters.Get().(*waiter)
	w.lo, w.hi = lo, hi
	p.mu.Lock()
	p.add(w)
	p.mu.Unlock()
	return w
}

// rearm registers w again after notify took it off.
func (p *parker) rearm(w *waiter) {
	p.mu.Lock()
	if !w.listed {
		p.add(w)
	}
	p.mu.Unlock()
}

func (p *parker) add(w *waiter) {
	w.listed = true
	p.list = append(p.list, w)
	p.update()
}

// release removes w if notify has not already and recycles it.
func (p *parker) release(w *waiter) {
	p.mu.Lock()
	if w.listed {
		for i, x := range p.list {
			if x == w {
				p.list = append(p.list[:i], p.list[i+1:]...)
				p.update()
				break
			}
		}
		w.listed = false
	}
	p.mu.Unlock()
	select { // a token notify left after the last check
	case <-w.ch:
	default:
	}
	waiters.Put(w)
}

// update publishes the union of the ranges, then the count (callers hold
// p.mu): a writer that sees the count sees a union covering every range.
func (p *parker) update() {
	lo, hi := int64(1<<62), int64(0)
	for _, w := range p.list {
		lo, hi = min(lo, w.lo), max(hi, w.hi)
	}
	p.lo.Store(lo)
	p.hi.Store(hi)
	p.waiters.Store(int32(len(p.list)))
}

// notify wakes the waiters on ranges overlapping [lo, hi).
func (p *parker) notify(lo, hi int64) {
	if o := &p.owner; o.armed.Load() && lo < o.hi.Load() && o.lo.Load() < hi {
		o.ring()
	}
	if p.waiters.Load() == 0 || hi <= p.lo.Load() || lo >= p.hi.Load() {
		return
	}
	p.mu.Lock()
	kept := p.list[:0]
	for _, w := range p.list {
		if lo < w.hi && w.lo < hi {
			w.listed = false
			select {
			case w.ch <- struct{}{}:
			default:
			}
		} else {
			kept = append(kept, w)
		}
	}
	clear(p.list[len(kept):])
	p.list = kept
	p.update()
	p.mu.Unlock()
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
