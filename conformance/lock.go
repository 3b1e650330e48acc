package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// A Lock gives mutual exclusion: read-modify-write sequences of plain gets
// and puts on PE 0 under it never lose an update, and each holder sees
// its predecessors' puts (Unlock completes them first).
func (ck *kit) testLockMutualExclusion(t *testing.T) {
	for _, n := range []int{2, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
				lk := must(pgas.NewLock(ctx, pe))
				ctr := must(pgas.AllocZeroed[int64](ctx, pe, 2))
				const rounds = 30
				for range rounds {
					check(lk.Lock(ctx))
					v := must(pgas.G(pe, ctr, 0))
					inside := must(pgas.AtomicFetchInc(pe, ctr.Index(1), 0))
					if inside != 0 {
						return fmt.Errorf("PE %d entered while %d others held the lock", pe.ID(), inside)
					}
					check(pgas.P(pe, ctr, v+1, 0))
					check(pgas.AtomicAdd(pe, ctr.Index(1), -1, 0))
					check(lk.Unlock())
				}
				check(pe.Barrier(ctx))
				if v := must(pgas.G(pe, ctr, 0)); v != int64(n*rounds) {
					return fmt.Errorf("counter = %d, want %d (an update was lost)", v, n*rounds)
				}
				check(pe.Barrier(ctx))
				return lk.Free(ctx)
			})
		})
	}
}

// Waiting PEs get the lock first come, first served; TryLock takes only a
// free lock; Unlock of a lock not held is an error; a Lock whose context
// ends passes its place on, so the PEs behind it are not held up.
func (ck *kit) testLockOrderAndTry(t *testing.T) {
	const n = 4
	const gap = 100 * time.Millisecond // between PEs' arrivals at the queue
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		lk := must(pgas.NewLock(ctx, pe))
		order := must(pgas.AllocZeroed[int64](ctx, pe, n)) // on PE 0: [0] next slot, then ids
		if err := lk.Unlock(); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("Unlock of a free lock: %v", err)
		}
		me := pe.ID()
		if me == 0 {
			check(lk.Lock(ctx))
		}
		check(pe.Barrier(ctx))
		if me != 0 && must(lk.TryLock()) {
			return fmt.Errorf("TryLock took a held lock")
		}
		check(pe.Barrier(ctx))
		// PE k joins the queue k gaps after PE 0 took the lock, which PE 0
		// keeps until all have.
		if me == 0 {
			time.Sleep(n * gap)
		} else {
			time.Sleep(time.Duration(me) * gap)
			check(lk.Lock(ctx))
			i := must(pgas.AtomicFetchInc(pe, order.Index(0), 0))
			check(pgas.P(pe, order.Index(int(i)+1), int64(me), 0))
		}
		check(lk.Unlock())
		check(pe.Barrier(ctx))
		if me == 0 {
			got := make([]int64, n)
			check(pgas.Get(pe, got, order, 0))
			for k := 1; k < n; k++ {
				if got[k] != int64(k) {
					return fmt.Errorf("holders after PE 0: %v, want 1 … %d in order", got[1:], n-1)
				}
			}
			if !must(lk.TryLock()) {
				return fmt.Errorf("TryLock did not take a free lock")
			}
			check(lk.Unlock())
		}
		check(pe.Barrier(ctx))

		// PE 1 holds the lock; PE 2 queues and gives up; PE 3 queues behind
		// PE 2's place and still gets the lock once PE 1 lets go.
		if me == 1 {
			check(lk.Lock(ctx))
		}
		check(pe.Barrier(ctx))
		switch me {
		case 1:
			time.Sleep(6 * gap)
			check(lk.Unlock())
		case 2:
			cctx, cancel := context.WithTimeout(ctx, gap)
			err := lk.Lock(cctx)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("Lock past its deadline: %v", err)
			}
		case 3:
			time.Sleep(3 * gap)
			check(lk.Lock(ctx))
			check(lk.Unlock())
		}
		check(pe.Barrier(ctx))
		if me == 2 { // its place was passed on; it can queue again
			check(lk.Lock(ctx))
			check(lk.Unlock())
		}
		check(pe.Barrier(ctx))
		return lk.Free(ctx)
	})
}
