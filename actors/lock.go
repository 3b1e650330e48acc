package actors

import (
	"context"
	"sync/atomic"
)

// ctxLock is a mutex whose lock ends with its context. The uncontended
// path is one compare-and-swap; waiters park on a one-token channel that
// unlock fills when someone waits.
type ctxLock struct {
	held    atomic.Bool
	waiters atomic.Int32
	wake    chan struct{}
	_       [cacheLine - 16]byte // a line of its own: see isolated
}

func newLock() *ctxLock {
	l := &isolated[ctxLock](1)[0]
	l.wake = make(chan struct{}, 1)
	return l
}

// lock takes l, waiting until ctx ends. The uncontended path inlines into
// its callers (the message path); the wait is lockSlow's.
func (l *ctxLock) lock(ctx context.Context) error {
	if l.held.CompareAndSwap(false, true) {
		return nil
	}
	return l.lockSlow(ctx)
}

func (l *ctxLock) lockSlow(ctx context.Context) error {
	l.waiters.Add(1)
	defer l.waiters.Add(-1)
	for {
		// Registered before this attempt: an unlock after it sees the
		// waiter and leaves a token (atomics are sequentially consistent).
		if l.held.CompareAndSwap(false, true) {
			return nil
		}
		select {
		case <-l.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (l *ctxLock) tryLock() bool { return l.held.CompareAndSwap(false, true) }

func (l *ctxLock) unlock() {
	l.held.Store(false)
	if l.waiters.Load() > 0 {
		select {
		case l.wake <- struct{}{}:
		default: // a token is already waiting
		}
	}
}
