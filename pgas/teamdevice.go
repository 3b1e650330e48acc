package pgas

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/abi"
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
// has none on the GPU (its shape is not ok).

// deviceOff is the heap offset of the team's struct symchan_team.
func (t *Team) deviceOff() int64 { return t.slotOff() + teamDeviceOff }

// A strided is how a team's members lie among the world's PEs: rank r is
// start + r·stride when ok (always for a team of one).
type strided struct {
	start, stride int
	ok            bool
}

// stridedOf finds the shape of members (world ids in increasing order).
func stridedOf(members []int) strided {
	sh := strided{stride: 1, ok: true}
	if len(members) > 0 {
		sh.start = members[0]
	}
	if len(members) > 1 {
		sh.stride = members[1] - members[0]
	}
	for r, m := range members {
		if m != sh.start+r*sh.stride {
			return strided{}
		}
	}
	return sh
}

// deviceImage is the struct as a new team starts it: rank and size, start
// and stride as 32-bit halves (zero, size 0, when the members are not
// strided), zero counters and mismatch record, its notice word's
// address, and its slot's small-message buffers (heap.go).
func (t *Team) deviceImage() (w [abi.SizeofTeam / 8]uint64) {
	if t.shape.ok {
		w[0] = uint64(uint32(int32(t.rank))) | uint64(uint32(len(t.members)))<<32
		w[1] = uint64(uint32(t.shape.start)) | uint64(uint32(t.shape.stride))<<32
	}
	w[abi.OffsetofTeamNotice/8] = t.noticeAddr()
	if pw := t.pe.w; pw.small > 0 && t.shape.ok && t.slot < smallSlots {
		w[abi.OffsetofTeamSmall/8] = uint64(pw.smallOff + int64(t.slot)*2*pw.small)
		w[abi.OffsetofTeamSmallBytes/8] = uint64(pw.small)
	}
	return w
}

// writeDevice writes the struct's image on t's PE (the world's and the
// node's, at the start).
func (t *Team) writeDevice() error {
	w := t.deviceImage()
	return t.pe.w.tr.Put(t.pe.id, t.pe.id, t.deviceOff(), wordsBytes(w[:]))
}

// allocNotices gives p, on a GPU backend, its notice words, one per team
// slot (a page of mapped host memory, zeroed).
func (p *PE) allocNotices() error {
	g, err := p.GPU()
	if err != nil || g.Context() == nil {
		return nil // no GPU: device collectives never run
	}
	if p.notices, err = g.Context().HostAlloc(8 * MaxTeams); err != nil {
		return err
	}
	p.noticeWords = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(p.notices.Bytes()))), MaxTeams)
	return nil
}

// freeNotices frees the PEs' notice words, once no PE runs.
func freeNotices(pes []*PE) error {
	var errs []error
	for _, p := range pes {
		if p.notices != nil {
			errs = append(errs, p.notices.Free())
			p.notices, p.noticeWords = nil, nil
		}
	}
	return errors.Join(errs...)
}

// noticeAddr is the device address of the notice word of t's slot on t's
// PE, 0 where there is none.
func (t *Team) noticeAddr() uint64 {
	if t.pe.notices == nil {
		return 0
	}
	return uint64(t.pe.notices.Ptr()) + 8*uint64(t.slot)
}

// clearNotice clears the notice word of t's slot, for a new team there:
// it has reported nothing yet.
func (t *Team) clearNotice() {
	if t.pe.noticeWords != nil {
		atomic.StoreUint64(&t.pe.noticeWords[t.slot], 0)
	}
}

// deviceTeam checks that t is a usable team of p and returns the address
// of p's copy of its struct symchan_team on g (onDevice).
func (t *Team) deviceTeam(p *PE, g GPU) (device.Ptr, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	if t.pe != p {
		return 0, fmt.Errorf("%w: the team handle is PE %d's, not PE %d's", ErrBadArg, t.pe.id, p.id)
	}
	return t.onDevice(g)
}

// onDevice is the address on g, the GPU of t's PE, of that PE's copy of
// t's struct symchan_team; an error for a team device code cannot name.
func (t *Team) onDevice(g GPU) (device.Ptr, error) {
	if !t.shape.ok {
		return 0, fmt.Errorf("%w: the team's members (world PEs %v) are not evenly spaced: device code names members by start + rank·stride", ErrBadArg, t.members)
	}
	return g.Addr(t.pe.id, t.deviceOff()), nil
}

// A member whose device collective found the members' arguments differ
// records them in its struct symchan_team (symchan.cuh): the phase that
// opened the collective (differed), then its kind and arguments, as
// deviceArgNames names them; the kind carries abi.CollBlocking where a
// blocking call opened a collective that a stream or a kernel runs in one
// phase, and deviceMismatch names that form after the arguments. Records
// are read after the collective has closed, so every member's is written;
// a member that has since recorded a later mismatch shows as unknown.
var deviceArgNames = [...]string{"collective", "count", "root", "operator", "element type"}

// deviceKind is the collective of device kind k (abi.Coll* or
// hostKind), ok false for another.
func deviceKind(k uint64) (syncKind, bool) {
	for sk, c := range collectives {
		if c.device != noDevice && c.device == k {
			return syncKind(sk), true
		}
	}
	if k >= hostKinds && k < hostKinds+uint64(numSyncKinds) {
		return syncKind(k - hostKinds), true
	}
	return 0, false
}

// deviceRecord reads PE pe's record of t: differed, then the arguments.
func (t *Team) deviceRecord(pe int) (w [1 + len(deviceArgNames)]uint64, err error) {
	err = t.pe.w.tr.Get(t.pe.id, pe, t.deviceOff()+abi.OffsetofTeamDiffered, wordsBytes(w[:]))
	return w, err
}

// deviceMismatch reports the last device collective of t (on a stream or
// in a kernel) whose members' arguments differed, unless it was reported:
// ErrCollectiveMismatch naming the arguments and the members, the same on
// every member.
func (t *Team) deviceMismatch() error {
	if t.pe.noticeWords != nil {
		switch n := atomic.LoadUint64(&t.pe.noticeWords[t.slot]); {
		case n == ^uint64(0):
			// A member abandoned a blocking collective of the team
			// (symchan_team_phase, collective_device.go).
			if err := t.teamAborted(); err != nil {
				return err
			}
		case n <= t.deviceSeen.Load():
			return nil // no mismatch since the last one reported
		}
	}
	mine, err := t.deviceRecord(t.pe.id)
	if err != nil {
		return err
	}
	phase := mine[0]
	for {
		seen := t.deviceSeen.Load()
		if phase <= seen {
			return nil
		}
		if t.deviceSeen.CompareAndSwap(seen, phase) {
			break
		}
	}
	all := make([][]int64, len(t.members))
	var first syncKind           // the first known member's collective
	known, mixed := false, false // mixed: another member's was another
	refused := -1                // a member whose arguments were invalid
	for r, m := range t.members {
		w := mine
		if m != t.pe.id {
			if w, err = t.deviceRecord(m); err != nil || w[0] != phase {
				continue // unknown
			}
		}
		if w[1] == collRefused && refused < 0 {
			refused = m
		}
		k, ok := deviceKind(w[1] &^ abi.CollBlocking)
		if !ok {
			continue
		}
		if !known {
			first, known = k, true
		}
		mixed = mixed || k != first
		all[r] = []int64{int64(k)}
		for _, v := range w[2:] {
			all[r] = append(all[r], int64(v))
		}
		all[r] = append(all[r], int64(w[1]&abi.CollBlocking)) // the form: after the arguments
	}
	if refused >= 0 {
		return fmt.Errorf("%w: %s: another member's arguments were invalid (PE %d's)", ErrBadArg, first, refused)
	}
	if first == syncAllToAllV && !mixed {
		if err := alltoallvDiffer(t.members, all); err != nil {
			return err
		}
	}
	names := deviceArgNames // a copy: the array's
	switch first {
	case syncAllToAllV:
		names[1] = "element bytes"
	case syncReduce, syncCollect:
	case syncAllToAll:
		if mine[1] == hostKind(syncAllToAll) {
			names[2], names[3] = "destination stride", "source stride"
			break
		}
		fallthrough
	default:
		names[1] = "bytes" // a data-moving collective's count (as collArgs's)
	}
	cols := append(names[:], "form")
	if mixed {
		cols = cols[:1] // different collectives: their arguments are not comparable
	}
	tail := fmt.Sprintf(": %s on a GPU: the members' arguments differ: %s", first, describeDiffer(t.members, cols, all))
	if !mixed {
		return fmt.Errorf("%w%s", ErrCollectiveMismatch, tail)
	}
	var kinds []string
	for k := range numSyncKinds {
		if slices.ContainsFunc(all, func(a []int64) bool { return len(a) > 0 && a[0] == int64(k) }) {
			kinds = append(kinds, k.String())
		}
	}
	return &kindsDiffer{text: ErrCollectiveMismatch.Error() + tail, kinds: strings.Join(kinds, ", ")}
}

// alltoallvDiffer names what an AllToAllV's verdict phase found
// (symchan.cuh's symchan_alltoallv_agree), from the members' records
// (all, as deviceMismatch gathers them: kind, element bytes, 1 + the
// first sender whose count differs, 1 where the member's blocks did not
// fit): the first receiver that saw a sender's count differ, else the
// first member whose blocks did not fit its dst or src; nil when neither
// was recorded (the opening phase's arguments differed).
func alltoallvDiffer(members []int, all [][]int64) error {
	for j, a := range all {
		if len(a) > 2 && a[2] > 0 && int(a[2]-1) < len(members) {
			return countsDiffer(" on a GPU", members, int(a[2]-1), j)
		}
	}
	for j, a := range all {
		if len(a) > 3 && a[3] != 0 {
			return fmt.Errorf("%w: alltoallv on a GPU: rank %d (PE %d) has a block past its dst or src", ErrBadSize, j, members[j])
		}
	}
	return nil
}
