package pgas

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"
)

// Team is a set of PEs that synchronise and run collectives together, as
// seen by one member: Team values are per PE, like OpenSHMEM team handles.
// Members are numbered 0 … NumPEs()-1 in the order of their world ids.
type Team struct {
	pe      *PE
	slot    int           // control-region slot holding its barrier words
	members []int         // world ids by team rank
	rank    int           // this PE's rank
	epoch   atomic.Uint64 // synchronisations entered
	left    atomic.Uint64 // synchronisations left, completed or not
	gone    atomic.Bool
	broken  atomic.Pointer[CollectiveError] // the synchronisation that broke it
	shared  *teamShare                      // with the members in this process; nil: none
}

func newTeam(p *PE, slot int, members []int) *Team {
	t := &Team{pe: p, slot: slot, members: members, rank: -1}
	for r, m := range members {
		if m == p.id {
			t.rank = r
		}
	}
	return t
}

// MyPE is the calling PE's rank in the team (shmem_team_my_pe).
func (t *Team) MyPE() int {
	if t == nil {
		return -1
	}
	return t.rank
}

// NumPEs is the team's size (shmem_team_n_pes).
func (t *Team) NumPEs() int {
	if t == nil {
		return 0
	}
	return len(t.members)
}

// WorldPE returns the world id of team rank r, or -1 if r is not a rank of
// the team (or the team is nil or destroyed), as TeamPE and TranslatePE
// report a PE they cannot translate (shmem_team_translate_pe to the world).
func (t *Team) WorldPE(r int) int {
	if !t.usable() || uint(r) >= uint(len(t.members)) {
		return -1
	}
	return t.members[r]
}

// TeamPE returns the team rank of world PE pe, or -1 if it is not a member
// (or the team is nil or destroyed).
func (t *Team) TeamPE(pe int) int {
	if !t.usable() {
		return -1
	}
	for r, m := range t.members {
		if m == pe {
			return r
		}
	}
	return -1
}

// TranslatePE returns the rank in dst of t's rank r, or -1 if r is not a
// rank of t or that PE is not in dst (shmem_team_translate_pe).
func (t *Team) TranslatePE(r int, dst *Team) int {
	w := t.WorldPE(r)
	if w < 0 {
		return -1
	}
	return dst.TeamPE(w)
}

// Destroy ends the team on this PE (shmem_team_destroy); using it
// afterwards is an error, and its slot is free for a later Split.
// TeamWorld and TeamNode keep theirs.
func (t *Team) Destroy() {
	if t == nil || t.gone.Swap(true) || t.slot == worldTeamSlot || t.slot == nodeTeamSlot {
		return
	}
	p := t.pe
	p.mu.Lock()
	p.teams = slices.DeleteFunc(p.teams, func(x *Team) bool { return x == t })
	p.mu.Unlock()
	t.end(endDestroyed)
}

// usedSlots is the set of slots this PE's live teams hold. Callers hold
// p.mu.
func (p *PE) usedSlots() (used uint64) {
	for _, t := range p.teams {
		used |= 1 << t.slot
	}
	return used
}

// usable reports whether the team's membership may be asked (a broken team
// still has members).
func (t *Team) usable() bool { return t != nil && !t.gone.Load() }

func (t *Team) check() error {
	if t == nil {
		return fmt.Errorf("%w: nil *Team (a PE left out of a Split gets none)", ErrBadArg)
	}
	if err := t.pe.check(); err != nil {
		return err
	}
	if t.gone.Load() {
		return fmt.Errorf("%w: team was destroyed", ErrBadArg)
	}
	if b := t.broken.Load(); b != nil {
		return b
	}
	return nil
}

func (t *Team) slotOff() int64 { return teamSlotsOff + int64(t.slot)*teamSlotBytes }

// Barrier completes the calling PE's outstanding operations (Quiet) and
// returns when every member has called it (shmem_team_barrier /
// shmem_barrier_all for TeamWorld). If a member's call ends early (its
// context, a failed PE), every member's call fails with the same
// *CollectiveError and the team is broken.
func (t *Team) Barrier(ctx context.Context) error {
	if err := t.check(); err != nil {
		return err
	}
	return t.barrier(ctx, syncBarrier, nil)
}

// barrier is Quiet, then synchronisation of kind (see sync); a failed
// Quiet ends the synchronisation for every member.
func (t *Team) barrier(ctx context.Context, kind syncKind, bad error) error {
	if err := t.pe.w.tr.Quiet(t.pe.id); err != nil {
		return t.abortNext(kind, err)
	}
	return t.sync(ctx, kind, bad)
}

// Sync returns when every member has called it; unlike Barrier it does not
// complete outstanding operations (shmem_team_sync). It fails as Barrier
// does.
func (t *Team) Sync(ctx context.Context) error {
	if err := t.check(); err != nil {
		return err
	}
	return t.sync(ctx, syncSync, nil)
}

// Split creates a team of the members of t with ranks start, start+stride,
// … (size of them) (shmem_team_split_strided). Every member of t must call
// it with the same arguments; members left out get a nil Team and a nil
// error. The new team takes a slot free on all its members: a PE can be a
// member of at most MaxTeams teams at once (Destroy frees a slot).
func (t *Team) Split(ctx context.Context, start, stride, size int) (*Team, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	p := t.pe
	p.mu.Lock()
	defer p.mu.Unlock()

	// Agree on the arguments, on a slot free on every new member and on
	// the team's id: each publishes (its free slots, start, stride, size,
	// a proposed id); all take the lowest slot free on every member of the
	// new team and the largest id.
	scratch := t.slotOff() + teamScratchOff
	mine := [5]uint64{^p.usedSlots(), uint64(start), uint64(stride), uint64(size), p.newTeamID()}
	tr := p.w.tr
	if err := tr.Put(p.id, p.id, scratch, wordsBytes(mine[:])); err != nil {
		return nil, t.abortNext(syncSplit, err)
	}
	if err := t.sync(ctx, syncSplit, nil); err != nil {
		return nil, err
	}
	n := len(t.members)
	valid := start >= 0 && start < n && stride >= 1 && size >= 1 && start+(size-1)*stride < n
	member := func(r int) bool { return r >= start && (r-start)%stride == 0 && (r-start)/stride < size }
	free, id := ^uint64(0), uint64(0)
	var other [5]uint64
	for r, m := range t.members {
		if err := tr.Get(p.id, m, scratch, wordsBytes(other[:])); err != nil {
			return nil, t.abortNext(syncSplit, err)
		}
		if [3]uint64(other[1:4]) != [3]uint64(mine[1:4]) {
			// Every member read the same words: all return here.
			return nil, fmt.Errorf("%w: team split: rank %d asked for (start %d, stride %d, size %d), rank %d for (%d, %d, %d)",
				ErrCollectiveMismatch, t.rank, start, stride, size, r, int64(other[1]), int64(other[2]), int64(other[3]))
		}
		if valid && member(r) {
			free &= other[0]
		}
		id = max(id, other[4])
	}
	slot := bits.TrailingZeros64(free) // 64 when none is free
	var nt *Team
	if valid && slot < MaxTeams && member(t.rank) {
		// A reused slot's words hold its earlier teams' rounds and
		// verdict: start from zero. No member uses the new team before
		// the synchronisation below, and the old teams are gone on every
		// member.
		var zero [teamSlotBytes / 8]uint64
		if err := tr.Put(p.id, p.id, teamSlotsOff+int64(slot)*teamSlotBytes, wordsBytes(zero[:])); err != nil {
			return nil, t.abortNext(syncSplit, err)
		}
		members := make([]int, size)
		for i := range members {
			members[i] = t.members[start+i*stride]
		}
		// Shared before the synchronisation below, so that every member
		// is registered before any can end its part.
		nt = newTeam(p, slot, members)
		nt.share(id)
	}
	// Nobody may overwrite the scratch words before all have read them,
	// nor use the new team before its words are zero (hence Quiet first:
	// the zeroing is complete).
	if err := t.barrier(ctx, syncSplit, nil); err != nil {
		if nt != nil {
			nt.end(endDestroyed)
		}
		return nil, err
	}
	if !valid {
		return nil, fmt.Errorf("%w: team split (start %d, stride %d, size %d) of a team of %d", ErrBadArg, start, stride, size, n)
	}
	if slot >= MaxTeams {
		return nil, fmt.Errorf("%w: team split: no team slot is free on every member (a PE can be in %d teams at once; Destroy frees one)", ErrBadArg, MaxTeams)
	}
	if nt == nil {
		return nil, nil // not a member
	}
	p.teams = append(p.teams, nt)
	return nt, nil
}
