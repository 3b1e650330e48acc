package actors

import "context"

// ctxLock is a mutex whose Lock ends with its context: a channel of one
// token, cheaper than a semaphore on the uncontended path.
type ctxLock chan struct{}

func newLock() ctxLock { return make(ctxLock, 1) }

func (l ctxLock) lock(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	default:
	}
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l ctxLock) tryLock() bool {
	select {
	case l <- struct{}{}:
		return true
	default:
		return false
	}
}

func (l ctxLock) unlock() { <-l }
