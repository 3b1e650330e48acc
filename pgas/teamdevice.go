package pgas

import (
	"fmt"

	"github.com/symchan/symchan/device"
)

// A team on the GPU. Every member keeps the team's struct symchan_team
// (kernels/symchan.cuh) at teamDeviceOff of the team's control slot: its
// rank, the size and the stride of the members' world ids, written when
// the team is made, then two counters that only device code touches (the
// phases of the team's device collectives). The slot is at the same
// offset on every member, so the struct is a symmetric object: a kernel
// reaches the other members' counters through it. Device code names
// members by start + rank·stride, as NVSHMEM's teams do; a team whose
// members are not evenly spaced (a node team of an uneven placement)
// has none on the GPU (deviceWords' ok is false).

// deviceOff is the heap offset of the team's struct symchan_team.
func (t *Team) deviceOff() int64 { return t.slotOff() + teamDeviceOff }

// deviceWords are the struct's first two words (rank and size; start
// and stride, as 32-bit halves), and whether the members are strided.
func deviceWords(members []int, rank int) (w [2]uint64, ok bool) {
	start, stride := 0, 1
	if len(members) > 0 {
		start = members[0]
	}
	if len(members) > 1 {
		stride = members[1] - members[0]
	}
	for r, m := range members {
		if m != start+r*stride {
			return w, false
		}
	}
	w[0] = uint64(uint32(int32(rank))) | uint64(uint32(len(members)))<<32
	w[1] = uint64(uint32(start)) | uint64(uint32(stride))<<32
	return w, true
}

// writeDevice writes the struct's rank and members on t's PE (its
// counters are left as they are: zero in a new slot).
func (t *Team) writeDevice() error {
	w, _ := deviceWords(t.members, t.rank)
	return t.pe.w.tr.Put(t.pe.id, t.pe.id, t.deviceOff(), wordsBytes(w[:]))
}

// deviceTeam checks that t is a team of p that device code can use and
// returns the address of p's copy of its struct symchan_team on g.
func (t *Team) deviceTeam(p *PE, g GPU) (device.Ptr, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	if t.pe != p {
		return 0, fmt.Errorf("%w: the team handle is PE %d's, not PE %d's", ErrBadArg, t.pe.id, p.id)
	}
	if _, ok := deviceWords(t.members, t.rank); !ok {
		return 0, fmt.Errorf("%w: the team's members (world PEs %v) are not evenly spaced: device code names members by start + rank·stride", ErrBadArg, t.members)
	}
	return g.Addr(p.id, t.deviceOff()), nil
}
