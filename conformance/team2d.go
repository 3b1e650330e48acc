package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// Split2D lays the parent's members out row by row, xrange wide: each
// member's x team is its row and its y team its column, both ranked in
// the parent's order, a short last row included; the teams work, and keep
// the configuration they were given.
func (ck *kit) testTeamSplit2D(t *testing.T) {
	cases := []struct{ n, xrange int }{{2, 1}, {6, 3}, {7, 3}, {4, 1}, {5, 9}}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d PEs, xrange %d", c.n, c.xrange), func(t *testing.T) {
			ck.run(t, c.n, func(ctx context.Context, pe *pgas.PE) error {
				x, y, err := pe.TeamWorld().Split2D(ctx, c.xrange, pgas.TeamConfig{NumContexts: 2}, pgas.TeamConfig{})
				if err != nil {
					return err
				}
				xr := min(c.xrange, c.n)
				me := pe.ID()
				row, col := me/xr, me%xr
				rowLen := min(xr, c.n-row*xr)
				colLen := (c.n - col + xr - 1) / xr
				if x.NumPEs() != rowLen || x.ID() != col || y.NumPEs() != colLen || y.ID() != row {
					return fmt.Errorf("PE %d: x team %d/%d, y team %d/%d; want %d/%d, %d/%d",
						me, x.ID(), x.NumPEs(), y.ID(), y.NumPEs(), col, rowLen, row, colLen)
				}
				for r := range rowLen {
					if x.WorldPE(r) != row*xr+r {
						return fmt.Errorf("x team rank %d is PE %d", r, x.WorldPE(r))
					}
				}
				for r := range colLen {
					if y.WorldPE(r) != r*xr+col {
						return fmt.Errorf("y team rank %d is PE %d", r, y.WorldPE(r))
					}
				}
				if x.Config().NumContexts != 2 || y.Config() != (pgas.TeamConfig{}) || pe.TeamWorld().Config() != (pgas.TeamConfig{}) {
					return fmt.Errorf("configs: x %+v, y %+v", x.Config(), y.Config())
				}
				// Sum of world ids along the row and the column.
				s := must(pgas.AllocZeroed[int64](ctx, pe, 1))
				check(pgas.P(pe, s, int64(me), me))
				check(pgas.ReduceAll(ctx, x, pgas.ReduceSum, s, s, 1))
				if want := int64(rowLen*row*xr + rowLen*(rowLen-1)/2); must(pgas.G(pe, s, me)) != want {
					return fmt.Errorf("row sum = %d, want %d", must(pgas.G(pe, s, me)), want)
				}
				check(y.Barrier(ctx))
				x.Destroy()
				y.Destroy()
				return pe.Barrier(ctx)
			})
		})
	}
}

// Bad 2D splits and configurations fail on every member alike and leave
// the parent usable.
func (ck *kit) testTeamSplit2DBadArgs(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		world := pe.TeamWorld()
		if _, _, err := world.Split2D(ctx, 0, pgas.TeamConfig{}, pgas.TeamConfig{}); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("xrange 0: %v", err)
		}
		if _, err := world.SplitConfig(ctx, 0, 1, 4, pgas.TeamConfig{NumContexts: -1}); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("negative NumContexts: %v", err)
		}
		// Members asking for different xranges: a mismatch for all.
		if _, _, err := world.Split2D(ctx, 1+pe.ID()%2, pgas.TeamConfig{}, pgas.TeamConfig{}); !errors.Is(err, pgas.ErrCollectiveMismatch) {
			return fmt.Errorf("different xranges: %v", err)
		}
		return world.Barrier(ctx)
	})
}
