package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// The collectives' guarantees hold in large worlds: in a world of 64 PEs
// (and, with Options.LargeWorlds, 512) every collective gives every
// member the right data; a member whose arguments differ fails every
// member with ErrCollectiveMismatch, the team staying usable; and a
// member whose context ends fails every member with the same
// *CollectiveError, the team broken.
func (ck *kit) testCollectivesAtScale(t *testing.T) {
	sizes := []int{64}
	if ck.LargeWorlds {
		sizes = append(sizes, 512)
	}
	for _, n := range sizes {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ck.needPEs(t, n)
			ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error { return collectivesAtScale(ctx, pe, n) })
		})
	}
}

func collectivesAtScale(ctx context.Context, pe *pgas.PE, n int) error {
	const k = 4 // int64s a member contributes
	me := pe.ID()
	world := pe.TeamWorld()
	src := must(pgas.AllocZeroed[int64](ctx, pe, n*k))
	dst := must(pgas.AllocZeroed[int64](ctx, pe, n*k))
	box := must(pgas.AllocZeroed[uint64](ctx, pe, 2*n))
	val := func(q, i int) int64 { return int64(q)<<20 | int64(i) }
	check(pgas.Put(pe, src, seq(n*k, func(i int) int64 { return val(me, i) }), me))
	for range 3 {
		check(world.Barrier(ctx))
	}
	got := make([]int64, n*k)
	expect := func(what string, m int, want func(i int) int64) error {
		check(pgas.Get(pe, got[:m], dst, me))
		for i := range m {
			if got[i] != want(i) {
				return fmt.Errorf("%s in a world of %d: element %d is %#x, want %#x", what, n, i, got[i], want(i))
			}
		}
		return nil
	}
	check(pgas.Broadcast(ctx, world, dst, src, k, n-1))
	if err := expect("broadcast", k, func(i int) int64 { return val(n-1, i) }); err != nil {
		return err
	}
	check(pgas.ReduceAll(ctx, world, pgas.ReduceMax, dst, src, k))
	if err := expect("reduction", k, func(i int) int64 { return val(n-1, i) }); err != nil {
		return err
	}
	check(pgas.FCollect(ctx, world, dst, src, k))
	if err := expect("fcollect", n*k, func(i int) int64 { return val(i/k, i%k) }); err != nil {
		return err
	}
	check(pgas.AllToAll(ctx, world, dst, src, k))
	if err := expect("alltoall", n*k, func(i int) int64 { return val(i/k, me*k+i%k) }); err != nil {
		return err
	}
	s := must(pgas.Alloc[int64](ctx, pe, 8))
	check(pgas.Free(ctx, pe, s))

	// Arguments that differ on one member: every member fails alike, and
	// the team serves on.
	cnt := k
	if me == n/2 {
		cnt = k - 1
	}
	err := pgas.ReduceAll(ctx, world, pgas.ReduceSum, dst, src, cnt)
	if !errors.Is(err, pgas.ErrCollectiveMismatch) || errors.Is(err, pgas.ErrTeamBroken) {
		return fmt.Errorf("a reduction whose count differs on PE %d: %v, want ErrCollectiveMismatch and a usable team", n/2, err)
	}
	if q, xerr := differingPE(ctx, pe, box.Slice(0, n), errCode(err)); xerr != nil || q >= 0 {
		return errors.Join(xerr, fmt.Errorf("PE %d's mismatch error differs from PE %d's: %v", q, me, err))
	}
	check(world.Barrier(ctx))

	// A member whose context has ended: every member fails with the same
	// *CollectiveError on a team of all PEs, broken from then on.
	team := must(world.Split(ctx, 0, 1, n))
	callCtx := ctx
	if me == 1 {
		c, cancel := context.WithCancel(ctx)
		cancel()
		callCtx = c
	}
	err = team.Barrier(callCtx)
	var ce *pgas.CollectiveError
	if !errors.As(err, &ce) || ce.PE != 1 || !errors.Is(team.Barrier(ctx), pgas.ErrTeamBroken) {
		return fmt.Errorf("a barrier PE 1 abandoned: %v, want a *CollectiveError naming PE 1 and a broken team", err)
	}
	if q, xerr := differingPE(ctx, pe, box.Slice(n, 2*n), errCode(err)); xerr != nil || q >= 0 {
		return errors.Join(xerr, fmt.Errorf("PE %d's error differs from PE %d's: %v", q, me, err))
	}
	team.Destroy()
	return world.Barrier(ctx)
}
