package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// On a GPU backend a blocking collective runs the team's device collective
// (one launch, waited for): so it meets the same collective enqueued on a
// stream by another member, where both take two phases (past the team's
// small-message buffer: a small one on a stream takes one, a blocking one
// two, and mixed they fail: testMixedFormsMismatch). Each data-moving
// collective is called blocking on PE 0 and on a stream (then synced) on
// the others, in one kernel and large (open, data and close kernels), and
// every member checks what landed; then many collectives in a row, each
// checked, walk the team's collective numbers: blocking everywhere, or
// small on a stream everywhere.
func (ck *kit) testBlockingCollectivesOnDevice(t *testing.T) {
	ck.needGPUs(t, 2)
	npes := ck.upToPEs(4)
	// int64s: 20 KiB a member, past any small-message buffer (16 KiB at
	// most) and within one kernel (below 128 KiB landing on a member at
	// 4 PEs); 320 KiB a member for the large ones (the split kernels).
	const small, large = 2560, 40 << 10
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		me := pe.ID()
		world := pe.TeamWorld()
		st := must(pgas.NewStream(pe))
		src := must(pgas.AllocZeroed[int64](ctx, pe, npes*large))
		dst := must(pgas.AllocZeroed[int64](ctx, pe, npes*large))
		val := func(q, i int) int64 { return int64(q)<<32 | int64(i) }
		check(pgas.Put(pe, src, seq(npes*large, func(i int) int64 { return val(me, i) }), me))
		check(pe.Barrier(ctx))
		// mixed calls one collective blocking on PE 0 and on a stream
		// elsewhere.
		mixed := func(blocking func() error, onStream func() error) error {
			if me == 0 {
				return blocking()
			}
			if err := onStream(); err != nil {
				return err
			}
			return st.Sync(ctx)
		}
		got := make([]int64, npes*large)
		for _, n := range []int{small, large} {
			if err := mixed(func() error { return pgas.Broadcast(ctx, world, dst, src, n, 1) },
				func() error { return pgas.BroadcastOnStream(st, world, dst, src, n, 1) }); err != nil {
				return fmt.Errorf("broadcast of %d: %w", n, err)
			}
			check(pgas.Get(pe, got[:n], dst, me))
			for i := range n {
				if got[i] != val(1, i) {
					return fmt.Errorf("broadcast of %d: element %d is %#x, want %#x", n, i, got[i], val(1, i))
				}
			}
			if err := mixed(func() error { return pgas.FCollect(ctx, world, dst, src, n) },
				func() error { return pgas.FCollectOnStream(st, world, dst, src, n) }); err != nil {
				return fmt.Errorf("fcollect of %d: %w", n, err)
			}
			check(pgas.Get(pe, got[:npes*n], dst, me))
			for i := range npes * n {
				if want := val(i/n, i%n); got[i] != want {
					return fmt.Errorf("fcollect of %d: element %d is %#x, want %#x", n, i, got[i], want)
				}
			}
			if err := mixed(func() error { return pgas.AllToAll(ctx, world, dst, src, n) },
				func() error { return pgas.AllToAllOnStream(st, world, dst, src, n) }); err != nil {
				return fmt.Errorf("alltoall of %d: %w", n, err)
			}
			check(pgas.Get(pe, got[:npes*n], dst, me))
			for i := range npes * n {
				if want := val(i/n, me*n+i%n); got[i] != want {
					return fmt.Errorf("alltoall of %d: element %d is %#x, want %#x", n, i, got[i], want)
				}
			}
			if err := mixed(func() error { return pgas.ReduceAll(ctx, world, pgas.ReduceMax, dst, src, n) },
				func() error { return pgas.ReduceAllOnStream(st, world, pgas.ReduceMax, dst, src, n) }); err != nil {
				return fmt.Errorf("reduction of %d: %w", n, err)
			}
			check(pgas.Get(pe, got[:n], dst, me))
			for i := range n {
				if want := val(npes-1, i); got[i] != want {
					return fmt.Errorf("reduction of %d: element %d is %#x, want %#x", n, i, got[i], want)
				}
			}
		}
		// Many in a row, blocking everywhere, with a stream collective and
		// an allocation among them.
		for round := range 200 {
			check(pgas.Put(pe, src, []int64{int64(round + me)}, me))
			switch round % 4 {
			case 0:
				check(world.Barrier(ctx))
			case 1:
				check(world.Sync(ctx))
			case 2:
				check(pgas.BarrierOnStream(st, world))
				check(pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, dst, src, 1)) // small: one phase
				check(st.Sync(ctx))
				check(pgas.Get(pe, got[:1], dst, me))
				if want := int64(npes*round + npes*(npes-1)/2); got[0] != want {
					return fmt.Errorf("round %d: sum on a stream %d, want %d", round, got[0], want)
				}
			default:
				s := must(pgas.Alloc[int64](ctx, pe, 1))
				check(pgas.Free(ctx, pe, s))
			}
			check(pgas.ReduceAll(ctx, world, pgas.ReduceSum, dst, src, 1))
			check(pgas.Get(pe, got[:1], dst, me))
			if want := int64(npes*round + npes*(npes-1)/2); got[0] != want {
				return fmt.Errorf("round %d: sum %d, want %d", round, got[0], want)
			}
		}
		return st.Close(ctx)
	})
}

// A barrier and a small collective take one phase on a stream or in a
// kernel and two called blocking (the blocking call's host may abandon it
// between them), so the blocking form opens with a signature of its own:
// members that mix the forms fail alike, with ErrCollectiveMismatch
// naming the form and the members, and the team stays in step. Each
// case is called blocking on PE 0 and on a stream elsewhere, then a
// small sum, blocking everywhere and then on a stream everywhere, shows
// the team usable.
func (ck *kit) testMixedFormsMismatch(t *testing.T) {
	ck.needGPUs(t, 2)
	npes := ck.upToPEs(4)
	const n = 8 // int64s: within every team's small-message buffer
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		me := pe.ID()
		world := pe.TeamWorld()
		src := must(pgas.AllocZeroed[int64](ctx, pe, npes*n))
		dst := must(pgas.AllocZeroed[int64](ctx, pe, npes*n))
		got := make([]int64, 1)
		sum := func(st *pgas.Stream, round int) error {
			check(pgas.Put(pe, src, []int64{int64(round + me)}, me))
			if st == nil {
				check(pgas.ReduceAll(ctx, world, pgas.ReduceSum, dst, src, 1))
			} else {
				check(pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, dst, src, 1))
				check(st.Sync(ctx))
			}
			check(pgas.Get(pe, got, dst, me))
			if want := int64(npes*round + npes*(npes-1)/2); got[0] != want {
				return fmt.Errorf("round %d: sum %d, want %d", round, got[0], want)
			}
			return nil
		}
		cases := []struct {
			name     string
			blocking func() error
			onStream func(st *pgas.Stream) error
		}{
			{"barrier", func() error { return world.Barrier(ctx) }, func(st *pgas.Stream) error { return pgas.BarrierOnStream(st, world) }},
			{"sync", func() error { return world.Sync(ctx) }, func(st *pgas.Stream) error { return pgas.TeamSyncOnStream(st, world) }},
			{"broadcast", func() error { return pgas.Broadcast(ctx, world, dst, src, n, 1) },
				func(st *pgas.Stream) error { return pgas.BroadcastOnStream(st, world, dst, src, n, 1) }},
			{"fcollect", func() error { return pgas.FCollect(ctx, world, dst, src, n) },
				func(st *pgas.Stream) error { return pgas.FCollectOnStream(st, world, dst, src, n) }},
			{"alltoall", func() error { return pgas.AllToAll(ctx, world, dst, src, n) },
				func(st *pgas.Stream) error { return pgas.AllToAllOnStream(st, world, dst, src, n) }},
			{"reduction", func() error { return pgas.ReduceAll(ctx, world, pgas.ReduceMax, dst, src, n) },
				func(st *pgas.Stream) error { return pgas.ReduceAllOnStream(st, world, pgas.ReduceMax, dst, src, n) }},
		}
		for i, c := range cases {
			// A stream that saw a mismatch stays failed: one a case.
			st := must(pgas.NewStream(pe))
			var err error
			if me == 0 {
				err = c.blocking()
			} else if err = c.onStream(st); err == nil {
				err = st.Sync(ctx)
			}
			const want = "form: blocking on PE 0; on a stream or in a kernel on PE"
			if !errors.Is(err, pgas.ErrCollectiveMismatch) || !strings.Contains(err.Error(), want) {
				return fmt.Errorf("%s called blocking on PE 0 and on a stream elsewhere: %v, want ErrCollectiveMismatch naming %q", c.name, err, want)
			}
			_ = st.Close(ctx) // its mismatch again
			st = must(pgas.NewStream(pe))
			if err := sum(nil, 2*i); err != nil {
				return fmt.Errorf("after the %s: blocking: %w", c.name, err)
			}
			if err := sum(st, 2*i+1); err != nil {
				return fmt.Errorf("after the %s: on a stream: %w", c.name, err)
			}
			check(st.Close(ctx))
		}
		return nil
	})
}
