package host

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/symchan/symchan/internal/handoff"
	"github.com/symchan/symchan/pgas/driver"
)

// parker wakes the goroutines parked in waits on one partition when a
// write touches the words they wait on. Writers pay two atomic loads when
// nobody waits.
//
// The first goroutine to park on a partition takes owner, the hand-off
// path; goroutines that wait on the same partition at the same time go on
// the list. Close ends every wait of a parker, and those to come, with
// driver.ErrClosed (a kept handle's call racing the world's end).
type parker struct {
	owner handoffWaiter
	end   chan struct{} // closed by close: the listed waits end

	waiters atomic.Int32
	lo, hi  atomic.Int64 // union of the listed waiters' ranges
	mu      sync.Mutex
	list    []*waiter
	// The parkers of a world lie side by side, and each PE's waits write
	// its own: no line of one may hold another's fields.
	_ [64]byte
}

// wait parks until e holds, ctx ends or abort closes, woken by writes to
// bytes [lo, hi): on the hand-off path if no other wait holds it, else on
// the list.
func (p *parker) wait(ctx context.Context, abort <-chan struct{}, lo, hi int64, e *evaluator) (driver.WaitResult, error) {
	if o := &p.owner; !o.closed.Load() && o.busy.CompareAndSwap(false, true) {
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
		case <-p.end:
			return driver.WaitResult{}, driver.ErrClosed
		}
	}
}

// init readies p for use.
func (p *parker) init() {
	p.owner.Init()
	p.end = make(chan struct{})
}

// close ends p's waits, those under way and those to come, and the
// hand-off spot's watches: at once when no wait holds the spot, else by
// the wait that holds it, which the ring wakes.
func (p *parker) close() {
	o := &p.owner
	o.closed.Store(true) // before the ring: see park
	close(p.end)
	if o.busy.CompareAndSwap(false, true) {
		o.Spot.Close() // held for good: later waits see closed first
		return
	}
	o.Ring()
}

// handoffWaiter is a partition's hand-off waiter: a handoff.Spot (see its
// package for why a plain channel receive) and the range of bytes its
// holder waits on.
type handoffWaiter struct {
	busy   atomic.Bool  // a wait holds the fields below
	closed atomic.Bool  // the parker closed: no wait may park here again
	lo, hi atomic.Int64 // the holder's bytes
	handoff.Spot
}

// parkClosed ends a holder's wait when the parker closed under it (checked
// after arming, before parking: either close's ring finds it armed or it
// sees closed); the holder closes the spot's watches, which close could
// not while it held them.
func (o *handoffWaiter) parkClosed() bool {
	if !o.closed.Load() {
		return false
	}
	o.Disarm()
	o.Spot.Close()
	return true
}

// wait runs e until it holds, ctx ends or abort closes, parking between
// checks; the caller holds o (busy).
func (o *handoffWaiter) wait(ctx context.Context, abort <-chan struct{}, lo, hi int64, e *evaluator) (driver.WaitResult, error) {
	o.watch(ctx, abort, lo, hi)
	for {
		r, ok := e.eval()
		var err error
		if !ok {
			err = stopErr(o.Stopped(ctx, abort))
		}
		if ok || err != nil {
			o.Disarm()
			return r, err
		}
		if o.parkClosed() {
			return r, driver.ErrClosed
		}
		o.Park()
		// The ring that woke o disarmed it, and no other ring sends until
		// it is armed again: a wake-up that finds e holding returns
		// without arming and disarming.
		if r, ok := e.eval(); ok {
			return r, nil
		}
		o.Arm()
	}
}

// watch readies o for a wait on bytes [lo, hi) with ctx and abort, and
// arms it. A PE waits on the same words again and again: storing only
// what changed saves two locked instructions a wait.
func (o *handoffWaiter) watch(ctx context.Context, abort <-chan struct{}, lo, hi int64) {
	if o.lo.Load() != lo {
		o.lo.Store(lo)
	}
	if o.hi.Load() != hi {
		o.hi.Store(hi)
	}
	o.Watch(ctx, abort)
	o.Arm()
}

// stopErr is a Spot's reason to stop as the backend says it.
func stopErr(err error) error {
	if err == handoff.ErrAborted {
		return errAborted
	}
	return err
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
	if o := &p.owner; o.Armed() && lo < o.hi.Load() && o.lo.Load() < hi {
		o.Ring()
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

// Park is driver.ParkTransport's: ready polled first unless the world
// parks at once (Config.Park), then parked like a wait on pe's bytes
// [lo, hi), which every write there wakes.
func (h *hostTransport) Park(ctx context.Context, pe int, abort <-chan struct{}, lo, hi int64, ready func() bool) error {
	// Parked at once, the wait's look after arming is the first.
	if h.spin > 0 && poll(ready, h.spin) {
		return nil
	}
	p := &h.parks[pe]
	if o := &p.owner; !o.closed.Load() && o.busy.CompareAndSwap(false, true) {
		err := o.park(ctx, abort, lo, hi, ready)
		o.busy.Store(false)
		return err
	}
	e := evaluator{ready: ready}
	_, err := p.wait(ctx, abort, lo, hi, &e)
	return err
}

// park is wait for Park's ready: the same steps, calling ready itself.
// It is the message path (a mailbox's receive, a future's await), whose
// code competes with the rest of a round trip's for the instruction
// cache: no evaluator between them.
func (o *handoffWaiter) park(ctx context.Context, abort <-chan struct{}, lo, hi int64, ready func() bool) error {
	o.watch(ctx, abort, lo, hi)
	for {
		if ready() {
			o.Disarm()
			return nil
		}
		if err := o.Stopped(ctx, abort); err != nil {
			o.Disarm()
			return stopErr(err)
		}
		if o.parkClosed() {
			return driver.ErrClosed
		}
		o.Park()
		if ready() { // the ring disarmed o
			return nil
		}
		o.Arm()
	}
}

// Park's polling: unlike a wait's, which yields between its checks once
// spinChecks have failed, it yields the processor only every pollYield,
// for PEs that share a core. Its predicate is a load of the caller's own
// words, far cheaper than a yield, and a round trip between PEs on two
// cores takes well under a microsecond: yielding more often costs it
// latency, parking sooner costs a stream of messages a futex wake-up
// whenever the receiver gets ahead (1.36× the time per message on two
// cores at 5 µs).
const (
	pollYield = time.Microsecond
	pollClock = 64 // polls between clock reads
)

// poll calls ready until it reports true (poll then does too) or d has
// passed.
func poll(ready func() bool, d time.Duration) bool {
	var start, yielded time.Time
	for i := 1; ; i++ {
		if ready() {
			return true
		}
		if i%pollClock != 0 {
			continue
		}
		now := time.Now()
		switch {
		case start.IsZero():
			start, yielded = now, now
		case now.Sub(start) > d:
			return false
		case now.Sub(yielded) > pollYield:
			runtime.Gosched()
			yielded = now
		}
	}
}
