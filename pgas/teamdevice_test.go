package pgas

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/symchan/symchan/kernels"
)

// The struct symchan_team that device code reads: where symchan.cuh looks
// for the world's and the node's, the field offsets deviceWords packs, and
// what every member holds after a Split (rank, size, start, stride; zero
// counters), including a reused slot.
func TestTeamDeviceStruct(t *testing.T) {
	if got := int64(teamSlotsOff + worldTeamSlot*teamSlotBytes + teamDeviceOff); got != kernels.TeamWorldOff {
		t.Errorf("world team struct at %d, symchan.cuh says %d", got, kernels.TeamWorldOff)
	}
	if got := int64(teamSlotsOff + nodeTeamSlot*teamSlotBytes + teamDeviceOff); got != kernels.TeamNodeOff {
		t.Errorf("node team struct at %d, symchan.cuh says %d", got, kernels.TeamNodeOff)
	}
	if kernels.OffsetofTeamRank != 0 || kernels.OffsetofTeamSize != 4 || kernels.OffsetofTeamStart != 8 || kernels.OffsetofTeamStride != 12 ||
		kernels.OffsetofTeamArrivals != 16 || kernels.SizeofTeam != 32 || teamDeviceOff+kernels.SizeofTeam > teamSlotBytes {
		t.Errorf("struct symchan_team's layout is not what deviceWords writes")
	}
	if teamSlotsOff+MaxTeams*teamSlotBytes > ControlBytes {
		t.Errorf("team slots end at %d, past the control region's %d bytes", teamSlotsOff+MaxTeams*teamSlotBytes, ControlBytes)
	}
	type desc struct{ rank, size, start, stride int32 }
	read := func(tm *Team) (d desc, counters [2]uint64) {
		b := make([]byte, 32)
		if err := tm.pe.w.tr.Get(tm.pe.id, tm.pe.id, tm.deviceOff(), b); err != nil {
			t.Error(err)
		}
		i := func(o int) int32 { return int32(binary.LittleEndian.Uint32(b[o:])) }
		return desc{i(0), i(4), i(8), i(12)}, [2]uint64{binary.LittleEndian.Uint64(b[16:]), binary.LittleEndian.Uint64(b[24:])}
	}
	err := Run(context.Background(), Config{Backend: "host", PEs: 6, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		me := pe.ID()
		if d, _ := read(pe.TeamWorld()); d != (desc{int32(me), 6, 0, 1}) {
			return fmt.Errorf("PE %d: world %+v", me, d)
		}
		for round := range 3 { // the same slot, reused
			tm, err := pe.TeamWorld().Split(ctx, 1, 2, 3)
			if err != nil {
				return err
			}
			if tm == nil {
				continue
			}
			if d, c := read(tm); d != (desc{int32(tm.ID()), 3, 1, 2}) || c != [2]uint64{} {
				return fmt.Errorf("PE %d round %d: odd team %+v, counters %v", me, round, d, c)
			}
			// Counters left behind by device collectives do not reach
			// the slot's next team.
			used := []byte{7, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0}
			if err := tm.pe.w.tr.Put(pe.id, pe.id, tm.deviceOff()+16, used); err != nil {
				return err
			}
			tm.Destroy()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		members []int
		want    strided
	}{
		{[]int{4}, strided{4, 1, true}},
		{[]int{1, 3, 5}, strided{1, 2, true}},
		{[]int{0, 1, 3}, strided{}},
	} {
		if got := stridedOf(c.members); got != c.want {
			t.Errorf("stridedOf(%v) = %+v, want %+v", c.members, got, c.want)
		}
	}
}
