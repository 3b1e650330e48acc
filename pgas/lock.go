package pgas

import (
	"context"
	"errors"
	"fmt"
)

// Lock is a mutual-exclusion lock over the PEs of a world (shmem_set_lock,
// shmem_test_lock, shmem_clear_lock). PEs waiting in Lock get it first
// come, first served, and a PE releasing it completes its critical
// section's puts and atomics first, so the next holder sees them.
//
// It is a queue lock (Mellor-Crummey and Scott's): the queue's tail is a
// word on PE 0, and each waiting PE waits on a word of its own partition,
// which its predecessor sets when it lets go, so waiting costs no traffic
// and a hand-over costs two atomics.
//
// Go's form differs from C's in two ways. The lock is an object NewLock
// allocates collectively, where C's is a symmetric long the program zeroes:
// the queue needs words on every PE, and a constructor is what keeps them
// zero before first use. And a Lock is one PE's handle: that PE's
// goroutines take turns in the queue (a PE holds one place in it), so a
// second goroutine's Lock waits for the first's Unlock, as with
// sync.Mutex.
type Lock struct {
	p    *PE
	s    Sym[uint64]   // per PE: tail (used on PE 0), next, granted
	turn chan struct{} // held by the goroutine of p in the queue
}

// Words of a Lock's Sym.
const (
	lockTail    = 0 // on PE 0: the last PE in the queue, +1 (0: free)
	lockNext    = 1 // the PE queued behind this one, +1 (0: none yet)
	lockGranted = 2 // set to 1 by the predecessor when it lets go
	lockWords   = 3
)

// NewLock collectively creates a lock: every PE of the world calls it, in
// the same order relative to its other collective calls, as for Alloc.
func NewLock(ctx context.Context, p *PE) (*Lock, error) {
	s, err := AllocZeroed[uint64](ctx, p, lockWords)
	if err != nil {
		return nil, err
	}
	return &Lock{p: p, s: s, turn: make(chan struct{}, 1)}, nil
}

// Free collectively releases the lock's symmetric memory; no PE may hold
// or wait for it.
func (l *Lock) Free(ctx context.Context) error {
	if l == nil {
		return fmt.Errorf("%w: nil *Lock", ErrBadArg)
	}
	return Free(ctx, l.p, l.s)
}

func (l *Lock) word(i int) Sym[uint64] { return l.s.Index(i) }

// me is this PE's id in the queue's words (0 means none).
func (l *Lock) me() uint64 { return uint64(l.p.id) + 1 }

// Lock blocks until the calling PE holds the lock (shmem_set_lock). It
// ends with ctx's error if ctx ends first; the PE's place in the queue is
// then passed on when its turn comes, by a goroutine of the PE (PE.Go), so
// that the PEs queued behind it are not held up.
func (l *Lock) Lock(ctx context.Context) error {
	if l == nil {
		return fmt.Errorf("%w: nil *Lock", ErrBadArg)
	}
	select {
	case l.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	pred, err := AtomicSwap(l.p, l.word(lockTail), l.me(), 0)
	if err != nil {
		<-l.turn
		return err
	}
	if pred == 0 {
		return nil
	}
	if err := AtomicSet(l.p, l.word(lockNext), l.me(), int(pred-1)); err != nil {
		<-l.turn
		return err
	}
	if err := l.awaitGrant(ctx, int(pred-1)); err != nil {
		if ctx.Err() != nil && l.p.check() == nil {
			l.p.Go(func(ctx context.Context) {
				if l.awaitGrant(ctx, int(pred-1)) == nil {
					_ = l.Unlock()
				}
			})
			return err
		}
		<-l.turn
		return err
	}
	return nil
}

// awaitGrant waits until pred hands the lock over, then clears the word
// for this PE's next turn.
func (l *Lock) awaitGrant(ctx context.Context, pred int) error {
	_, err := Wait(ctx, l.p, WaitAll, WaitSet[uint64]{Ivars: l.word(lockGranted), Cmp: CmpNE, From: []int{pred}})
	if err != nil {
		return err
	}
	return AtomicSet(l.p, l.word(lockGranted), 0, l.p.id)
}

// TryLock takes the lock if no PE holds or waits for it, and reports
// whether it did, without waiting (shmem_test_lock, whose 0 is true here).
// It also reports false while another goroutine of this PE holds or waits
// for the lock.
func (l *Lock) TryLock() (bool, error) {
	if l == nil {
		return false, fmt.Errorf("%w: nil *Lock", ErrBadArg)
	}
	select {
	case l.turn <- struct{}{}:
	default:
		return false, nil
	}
	old, err := AtomicCompareSwap(l.p, l.word(lockTail), 0, l.me(), 0)
	if err != nil || old != 0 {
		<-l.turn
		return false, err
	}
	return true, nil
}

// errNotLocked is Unlock's error for a lock this PE does not hold.
var errNotLocked = errors.New("Unlock of a Lock this PE does not hold")

// Unlock releases the lock (shmem_clear_lock) after completing the PE's
// outstanding puts and atomics (Quiet), and hands it to the PE queued
// next, if any. Only the goroutine that locked it may unlock it.
func (l *Lock) Unlock() error {
	if l == nil {
		return fmt.Errorf("%w: nil *Lock", ErrBadArg)
	}
	if err := l.p.check(); err != nil {
		return err
	}
	if len(l.turn) == 0 {
		return fmt.Errorf("%w: %w", ErrBadArg, errNotLocked)
	}
	defer func() { <-l.turn }()
	if err := l.p.Quiet(); err != nil {
		return err
	}
	next, err := AtomicFetch(l.p, l.word(lockNext), l.p.id)
	if err != nil {
		return err
	}
	if next == 0 {
		old, err := AtomicCompareSwap(l.p, l.word(lockTail), l.me(), 0, 0)
		if err != nil || old == l.me() {
			return err // released: nobody was queued
		}
		// A PE has swapped itself in behind this one and is about to
		// link: its next operation.
		r, err := Wait(context.Background(), l.p, WaitAll, WaitSet[uint64]{Ivars: l.word(lockNext), Cmp: CmpNE})
		if err != nil {
			return err
		}
		next = r.Word
	}
	if err := AtomicSet(l.p, l.word(lockNext), 0, l.p.id); err != nil {
		return err
	}
	return AtomicSet(l.p, l.word(lockGranted), 1, int(next-1))
}
