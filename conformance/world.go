package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

func (ck *kit) testWorldIdentity(t *testing.T) {
	for _, n := range []int{1, 2, 3, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
				seen := must(pgas.AllocZeroed[int64](ctx, pe, n))
				if pe.NumPEs() != n || pe.World().NumPEs() != n {
					return fmt.Errorf("NumPEs = %d, want %d", pe.NumPEs(), n)
				}
				w := pe.TeamWorld()
				if w.NumPEs() != n || w.ID() != pe.ID() {
					return fmt.Errorf("world team: size %d rank %d, want %d %d", w.NumPEs(), w.ID(), n, pe.ID())
				}
				if nd := pe.TeamNode(); nd.NumPEs() < 1 || nd.TeamPE(pe.ID()) != nd.ID() {
					return fmt.Errorf("node team: size %d rank %d", nd.NumPEs(), nd.ID())
				}
				// Every PE marks its id on PE 0: ids are distinct and cover 0..n-1.
				check(pgas.AtomicAdd(pe, seen.Index(pe.ID()), 1, 0))
				check(pe.Barrier(ctx))
				if pe.ID() == 0 {
					got := make([]int64, n)
					check(pgas.Get(pe, got, seen, 0))
					for i, c := range got {
						if c != 1 {
							return fmt.Errorf("PE id %d claimed %d times", i, c)
						}
					}
				}
				return nil
			})
		})
	}
}

func (ck *kit) testTeamSplitStrided(t *testing.T) {
	const n = 8
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		world := pe.TeamWorld()
		odd, err := world.Split(ctx, 1, 2, 4) // world PEs 1, 3, 5, 7
		if err != nil {
			return err
		}
		if pe.ID()%2 == 0 {
			if odd != nil {
				return fmt.Errorf("PE %d not a member but got a team", pe.ID())
			}
		} else {
			if odd == nil || odd.NumPEs() != 4 || odd.ID() != pe.ID()/2 {
				return fmt.Errorf("odd team on PE %d: %+v", pe.ID(), odd)
			}
			for r := range 4 {
				if w := odd.WorldPE(r); w != 2*r+1 {
					return fmt.Errorf("WorldPE(%d) = %d", r, w)
				}
				if got := odd.TranslatePE(r, world); got != 2*r+1 {
					return fmt.Errorf("TranslatePE(%d, world) = %d", r, got)
				}
			}
			if odd.TeamPE(2) != -1 || world.TranslatePE(2, odd) != -1 {
				return fmt.Errorf("PE 2 translated into the odd team")
			}
			// Ranks and PEs outside a team translate to -1 alike.
			if odd.WorldPE(4) != -1 || odd.WorldPE(-1) != -1 || odd.TranslatePE(4, world) != -1 || odd.TeamPE(8) != -1 {
				return fmt.Errorf("an invalid rank or PE translated")
			}
			// A split of a split: ranks 0 and 2 of the odd team = world 1, 5.
			sub, err := odd.Split(ctx, 0, 2, 2)
			if err != nil {
				return err
			}
			if (pe.ID() == 1 || pe.ID() == 5) != (sub != nil) {
				return fmt.Errorf("PE %d: sub-team membership %v", pe.ID(), sub != nil)
			}
			if sub != nil {
				if err := sub.Barrier(ctx); err != nil {
					return err
				}
			}
			if err := odd.Barrier(ctx); err != nil {
				return err
			}
		}
		// A team of the even PEs, created after the odd PEs made one more
		// team: slots must still agree.
		even, err := world.Split(ctx, 0, 2, 4)
		if err != nil {
			return err
		}
		if even != nil {
			for range 10 {
				if err := even.Barrier(ctx); err != nil {
					return err
				}
			}
		}
		return world.Barrier(ctx)
	})
}

func (ck *kit) testTeamSplitBadArgs(t *testing.T) {
	cases := []struct{ start, stride, size int }{
		{-1, 1, 2}, {0, 0, 2}, {0, 1, 0}, {0, 1, 5}, {3, 1, 2}, {0, 3, 3},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			ck.run(t, 4, func(ctx context.Context, pe *pgas.PE) error {
				tm, err := pe.TeamWorld().Split(ctx, c.start, c.stride, c.size)
				if err == nil || tm != nil {
					return fmt.Errorf("split %v: team %v, err %v; want an error on every PE", c, tm, err)
				}
				return pe.Barrier(ctx) // the world is still usable
			})
		})
	}
}

// Destroy gives a team's slot back: a run can create and destroy far
// more than MaxTeams teams, teams of other shapes reuse the slots (their
// barriers and collectives still wait for every member), and only teams
// alive at once are limited.
func (ck *kit) testTeamSlotsReused(t *testing.T) {
	const n = 5
	shapes := [][3]int{{0, 1, 5}, {0, 2, 3}, {1, 2, 2}, {1, 1, 4}, {0, 4, 2}, {2, 1, 3}}
	const iters, maxBarriers = 3 * pgas.MaxTeams, 3
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		world := pe.TeamWorld()
		arrived := must(pgas.AllocZeroed[int64](ctx, pe, iters*maxBarriers))
		src := must(pgas.AllocZeroed[int64](ctx, pe, 1))
		dst := must(pgas.AllocZeroed[int64](ctx, pe, 1))
		for i := range iters {
			sh := shapes[i%len(shapes)]
			tm, err := world.Split(ctx, sh[0], sh[1], sh[2])
			if err != nil {
				return fmt.Errorf("split %d %v: %w", i, sh, err)
			}
			if tm == nil {
				continue
			}
			root := tm.WorldPE(0)
			for b := range i%maxBarriers + 1 {
				word := arrived.Index(i*maxBarriers + b)
				check(pgas.AtomicInc(pe, word, root))
				check(tm.Barrier(ctx))
				// Every member arrived before any passed.
				if got := must(pgas.AtomicFetch(pe, word, root)); got != int64(sh[2]) {
					return fmt.Errorf("split %d %v, barrier %d: %d of %d members had arrived", i, sh, b, got, sh[2])
				}
			}
			check(pgas.P(pe, src, int64(tm.ID()+1), pe.ID()))
			check(pgas.ReduceAll(ctx, tm, pgas.ReduceSum, dst, src, 1))
			if got, want := must(pgas.G(pe, dst, pe.ID())), int64(sh[2]*(sh[2]+1)/2); got != want {
				return fmt.Errorf("split %d %v: sum of ranks+1 = %d, want %d", i, sh, got, want)
			}
			tm.Destroy()
		}
		// Teams alive at once are limited: world and node hold two slots.
		var live []*pgas.Team
		for {
			tm, err := world.Split(ctx, 0, 1, n)
			if err != nil {
				if !errors.Is(err, pgas.ErrBadArg) || !strings.Contains(err.Error(), "Destroy") {
					return fmt.Errorf("split with every slot taken: %v", err)
				}
				break
			}
			live = append(live, tm)
		}
		if len(live) != pgas.MaxTeams-2 {
			return fmt.Errorf("%d teams alive at once, want %d", len(live), pgas.MaxTeams-2)
		}
		live[7].Destroy()
		tm := must(world.Split(ctx, 0, 1, n))
		check(tm.Barrier(ctx))
		return world.Barrier(ctx)
	})
}

// A barrier that ends with an error may leave an arrival in another
// member's counters; a team that later reuses the slot must not count it.
func (ck *kit) testTeamSlotReusedAfterFailedBarrier(t *testing.T) {
	ck.run(t, 3, func(ctx context.Context, pe *pgas.PE) error {
		world := pe.TeamWorld()
		arrived := must(pgas.AllocZeroed[int64](ctx, pe, 1))
		a := must(world.Split(ctx, 0, 1, 3))
		if pe.ID() == 0 {
			// Arrives (adds to PE 1's first-round counter), then gives up.
			cancelled, cancel := context.WithCancel(ctx)
			cancel()
			if err := a.Barrier(cancelled); err == nil {
				return fmt.Errorf("barrier with a cancelled context: no error")
			}
		}
		check(world.Barrier(ctx)) // PE 0 has left a's barrier: no member waits in a
		a.Destroy()
		check(world.Barrier(ctx))
		b, err := world.Split(ctx, 1, 1, 2) // PEs 1 and 2: a's slot is free on both
		if err != nil || (b != nil) != (pe.ID() != 0) {
			return fmt.Errorf("split: team %v, %v", b, err)
		}
		if b != nil {
			if pe.ID() == 2 {
				time.Sleep(50 * time.Millisecond) // PE 1 must wait for this
			}
			check(pgas.AtomicInc(pe, arrived, 1))
			check(b.Barrier(ctx))
			if got := must(pgas.AtomicFetch(pe, arrived, 1)); got != 2 {
				return fmt.Errorf("PE %d passed the barrier with %d of 2 members arrived", pe.ID(), got)
			}
		}
		return world.Barrier(ctx)
	})
}

func (ck *kit) testTeamDestroyed(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		tm := must(pe.TeamWorld().Split(ctx, 0, 1, 2))
		tm.Destroy()
		if err := tm.Barrier(ctx); err == nil {
			return fmt.Errorf("barrier on a destroyed team: no error")
		}
		return nil
	})
}

func (ck *kit) testBarrier(t *testing.T) {
	for _, n := range []int{1, 2, 5, 8, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
				count := must(pgas.AllocZeroed[int64](ctx, pe, 1))
				for round := int64(1); round <= 20; round++ {
					check(pgas.AtomicInc(pe, count, 0))
					check(pe.Barrier(ctx))
					// Everyone incremented before anyone passed.
					if got := must(pgas.AtomicFetch(pe, count, 0)); got < round*int64(n) {
						return fmt.Errorf("round %d: counter %d after barrier, want ≥ %d", round, got, round*int64(n))
					}
					check(pe.Sync(ctx))
				}
				return nil
			})
		})
	}
}
