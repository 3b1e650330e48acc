package pgas

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/symchan/symchan/internal/abi"
)

// The struct symchan_team that device code reads: where symchan.cuh looks
// for the world's and the node's, the field offsets deviceImage packs, and
// what every member holds after a Split (rank, size, start, stride; zero
// counters and mismatch record), including a reused slot.
func TestTeamDeviceStruct(t *testing.T) {
	if got := int64(teamSlotsOff + worldTeamSlot*teamSlotBytes + teamDeviceOff); got != abi.TeamWorldOff {
		t.Errorf("world team struct at %d, symchan.cuh says %d", got, abi.TeamWorldOff)
	}
	if got := int64(teamSlotsOff + nodeTeamSlot*teamSlotBytes + teamDeviceOff); got != abi.TeamNodeOff {
		t.Errorf("node team struct at %d, symchan.cuh says %d", got, abi.TeamNodeOff)
	}
	if abi.OffsetofTeamRank != 0 || abi.OffsetofTeamSize != 4 || abi.OffsetofTeamStart != 8 || abi.OffsetofTeamStride != 12 ||
		abi.OffsetofTeamArrivals != 16 || teamDeviceOff+abi.SizeofTeam > teamSlotBytes {
		t.Errorf("struct symchan_team's layout is not what deviceImage writes")
	}
	if teamSlotsOff+MaxTeams*teamSlotBytes > ControlBytes {
		t.Errorf("team slots end at %d, past the control region's %d bytes", teamSlotsOff+MaxTeams*teamSlotBytes, ControlBytes)
	}
	type desc struct{ rank, size, start, stride int32 }
	const counters = (abi.SizeofTeam - abi.OffsetofTeamArrivals) / 8
	read := func(tm *Team) (d desc, c [counters]uint64) {
		b := make([]byte, abi.SizeofTeam)
		if err := tm.pe.w.tr.Get(tm.pe.id, tm.pe.id, tm.deviceOff(), b); err != nil {
			t.Error(err)
		}
		i := func(o int) int32 { return int32(binary.LittleEndian.Uint32(b[o:])) }
		for k := range c {
			c[k] = binary.LittleEndian.Uint64(b[abi.OffsetofTeamArrivals+8*k:])
		}
		return desc{i(0), i(4), i(8), i(12)}, c
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
			if d, c := read(tm); d != (desc{int32(tm.ID()), 3, 1, 2}) || c != [counters]uint64{} {
				return fmt.Errorf("PE %d round %d: odd team %+v, counters %v", me, round, d, c)
			}
			// Counters and records left behind by device collectives
			// do not reach the slot's next team.
			used := make([]byte, 8*counters)
			for k := range used {
				used[k] = byte(k + 1)
			}
			if err := tm.pe.w.tr.Put(pe.id, pe.id, tm.deviceOff()+abi.OffsetofTeamArrivals, used); err != nil {
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

// The records device collectives leave when the members' arguments
// differed (symchan.cuh's symchan_team_open) become one error, the same on
// every member, reported once: written here by hand, as a GPU would.
func TestTeamDeviceMismatch(t *testing.T) {
	record := func(phase uint64, kind, count, root, op, elem uint64) []uint64 {
		return []uint64{phase, kind, count, root, op, elem}
	}
	same := func(s string) [3]string { return [3]string{s, s, s} }
	cases := []struct {
		name    string
		records [3][]uint64 // by PE
		want    [3]string   // by PE; "" for no error
	}{
		{"none", [3][]uint64{record(0, 0, 0, 0, 0, 0), record(0, 0, 0, 0, 0, 0), record(0, 0, 0, 0, 0, 0)}, same("")},
		{"count", [3][]uint64{record(5, abi.CollReduce, 8, 0, 1, 7), record(5, abi.CollReduce, 4, 0, 1, 7), record(5, abi.CollReduce, 8, 0, 1, 7)},
			same("reduction on a GPU: the members' arguments differ: count: 8 on PEs 0, 2; 4 on PE 1")},
		{"root and a later record", [3][]uint64{record(7, abi.CollBroadcast, 64, 0, 0, 0), record(7, abi.CollBroadcast, 64, 1, 0, 0), record(9, abi.CollBarrier, 0, 0, 0, 0)},
			[3]string{"broadcast on a GPU: the members' arguments differ: root: 0 on PE 0; 1 on PE 1; unknown on PE 2",
				"broadcast on a GPU: the members' arguments differ: root: 0 on PE 0; 1 on PE 1; unknown on PE 2",
				"barrier on a GPU: the members' arguments differ: which argument is not known: the arguments of PEs 0, 1 are unknown"}},
		{"collective", [3][]uint64{record(3, abi.CollBarrier, 0, 0, 0, 0), record(3, abi.CollReduce, 8, 0, 1, 13), record(3, abi.CollBarrier, 0, 0, 0, 0)},
			same("barrier on a GPU: the members' arguments differ: collective: barrier on PEs 0, 2; reduction on PE 1")},
		{"form", [3][]uint64{record(4, abi.CollBroadcast|abi.CollBlocking, 64, 1, 0, 0), record(4, abi.CollBroadcast, 64, 1, 0, 0), record(4, abi.CollBroadcast, 64, 1, 0, 0)},
			same("broadcast on a GPU: the members' arguments differ: form: blocking on PE 0; on a stream or in a kernel on PEs 1, 2")},
		{"form and collective", [3][]uint64{record(6, abi.CollBarrier|abi.CollBlocking, 0, 0, 0, 0), record(6, abi.CollReduce, 8, 0, 1, 13), record(6, abi.CollBarrier, 0, 0, 0, 0)},
			same("barrier on a GPU: the members' arguments differ: collective: barrier on PEs 0, 2; reduction on PE 1")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Run(context.Background(), Config{Backend: "host", PEs: 3, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
				tm := pe.TeamWorld()
				if err := pe.w.tr.Put(pe.id, pe.id, tm.deviceOff()+abi.OffsetofTeamDiffered, wordsBytes(c.records[pe.id])); err != nil {
					return err
				}
				if err := pe.Barrier(ctx); err != nil {
					return err
				}
				err, want := tm.deviceMismatch(), c.want[pe.id]
				switch {
				case want == "" && err != nil:
					return fmt.Errorf("PE %d: %v, want none", pe.id, err)
				case want != "" && (!errors.Is(err, ErrCollectiveMismatch) || !strings.HasSuffix(err.Error(), want)):
					return fmt.Errorf("PE %d: %v, want ErrCollectiveMismatch ending %q", pe.id, err, want)
				}
				if again := tm.deviceMismatch(); again != nil {
					return fmt.Errorf("PE %d: reported twice: %v", pe.id, again)
				}
				return pe.Barrier(ctx)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestDescribeDiffer(t *testing.T) {
	names := []string{"count", "operator", "element type"}
	for _, c := range []struct {
		all  [][]int64
		want string
	}{
		{[][]int64{{8, 1, 7}, {8, 1, 7}}, "which argument is not known: their records agree"},
		{[][]int64{{8, 1, 7}, {8, 4, 12}}, "operator: ReduceSum on PE 4; ReduceMax on PE 6. element type: int64 on PE 4; float32 on PE 6"},
		{[][]int64{{8, 0, 0}, {8, 1, 1016}}, "operator: none on PE 4; ReduceSum on PE 6. element type: none on PE 4; a 16-byte type on PE 6"},
		{[][]int64{nil, {8, 1, 7}}, "which argument is not known: the arguments of PE 4 are unknown"},
	} {
		if got := describeDiffer([]int{4, 6}, names, c.all); got != c.want {
			t.Errorf("describeDiffer(%v) = %q, want %q", c.all, got, c.want)
		}
	}
}

// The teams' small-message buffers: a power of two of at most
// smallMaxBytes, all slots' pairs within 1/smallHeapShare of the heap,
// none below smallMinBytes.
func TestSmallBufBytes(t *testing.T) {
	for _, tc := range []struct {
		heap, want int64
	}{
		{minHeapSize, 0},
		{128 << 10, 0},
		{256 << 10, 256},
		{1 << 20, 1 << 10},
		{4 << 20, 4 << 10},
		{16 << 20, 16 << 10},
		{DefaultHeapSize, 16 << 10},
		{1 << 40, 16 << 10},
		{4<<20 - 1, 2 << 10},
	} {
		got := smallBufBytes(tc.heap)
		if got != tc.want {
			t.Errorf("smallBufBytes(%d) = %d, want %d", tc.heap, got, tc.want)
		}
		if got > 0 && 2*smallSlots*got > tc.heap/smallHeapShare {
			t.Errorf("smallBufBytes(%d) = %d: the buffers take more than 1/%d of the heap", tc.heap, got, smallHeapShare)
		}
	}
}

// A team's struct names its slot's small-message buffers on a world that
// has them (the first smallSlots slots, strided teams), and none
// elsewhere: a team in a later slot, an uneven team, a world without
// buffers.
func TestDeviceImageSmallBuffers(t *testing.T) {
	const heapEnd, buf = 4 << 20, 4 << 10
	gpuWorld := &World{small: buf, smallOff: heapEnd - 2*smallSlots*buf}
	for _, tc := range []struct {
		name       string
		w          *World
		slot       int
		ok         bool
		off, bytes uint64
	}{
		{"world team", gpuWorld, 0, true, heapEnd - 2*smallSlots*buf, buf},
		{"last slot with buffers", gpuWorld, smallSlots - 1, true, heapEnd - 2*buf, buf},
		{"first slot without", gpuWorld, smallSlots, true, 0, 0},
		{"uneven members", gpuWorld, 2, false, 0, 0},
		{"no buffers (host)", &World{smallOff: heapEnd}, 0, true, 0, 0},
	} {
		tm := &Team{pe: &PE{w: tc.w}, slot: tc.slot, members: []int{0, 1}, shape: strided{stride: 1, ok: tc.ok}}
		img := tm.deviceImage()
		if got := [2]uint64{img[abi.OffsetofTeamSmall/8], img[abi.OffsetofTeamSmallBytes/8]}; got != [2]uint64{tc.off, tc.bytes} {
			t.Errorf("%s: small, small_bytes = %v, want %v", tc.name, got, [2]uint64{tc.off, tc.bytes})
		}
	}
}
