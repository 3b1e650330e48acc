package pgas

import (
	"context"
	"testing"
)

// Destroyed teams leave nothing behind: their shares leave the world's
// map once every local member has ended, and their slots are free again.
func TestTeamsLeaveNothingBehind(t *testing.T) {
	err := Run(context.Background(), Config{Backend: "host", PEs: 3, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		for i := range 10 {
			tm, err := pe.TeamWorld().Split(ctx, i%2, 1, 2)
			if err != nil {
				return err
			}
			if tm != nil {
				if err := tm.Barrier(ctx); err != nil {
					return err
				}
				tm.Destroy()
			}
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		pe.w.teamsMu.Lock()
		shares := len(pe.w.teams)
		pe.w.teamsMu.Unlock()
		pe.mu.Lock()
		used := pe.usedSlots()
		pe.mu.Unlock()
		if shares != 2 || used != 1<<worldTeamSlot|1<<nodeTeamSlot {
			t.Errorf("PE %d: %d team shares (want world and node), slots %#b in use", pe.ID(), shares, used)
		}
		return pe.Barrier(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
}
