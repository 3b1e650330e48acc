package pgas

import (
	"fmt"
	"sync/atomic"
)

// A barrier (and so every collective and collective allocation) that a
// member will never join would wait forever. The members of a team that
// run in this process share a teamShare, which lets them see that a member
// has ended its part: destroyed the team or returned from its function.
// A member that enters a synchronisation the ended member never entered
// gets an error at once, and one already waiting in it is woken by ending
// the run (World.fail), since nothing else can ever complete its wait.
//
// Members in other processes (the nvshmem backend) are not in the share:
// a synchronisation that waits for one of them still waits, for its
// context or for the run's failure notice.

// teamShare is what the members of one team in this process share.
type teamShare struct {
	id     uint64
	member []*Team         // by rank; nil: not (yet) registered, or in another process
	ended  []atomic.Uint64 // by rank: 0 while live, else endMark(epoch, how)
	// by rank: 0 while live, else 1 + the blocking device collectives
	// (collective_device.go) the member entered
	endedDev []atomic.Uint64
}

// How a member ended its part in a team.
const (
	endDestroyed = iota
	endReturned
)

// endMark packs a member's final epoch (the synchronisations it entered)
// and how it ended; never zero.
func endMark(epoch uint64, how int) uint64 { return (epoch+1)<<1 | uint64(how) }

func endEpoch(m uint64) uint64 { return m>>1 - 1 }

func endHow(m uint64) string {
	if m&1 == endReturned {
		return "returned from its function"
	}
	return "destroyed the team"
}

// Well-known team ids; Split's ids are agreed by the members (newTeamID).
const (
	worldTeamID = 0
	nodeTeamID  = 1
)

// newTeamID proposes an id for a team being split off: unique in the
// world, as it combines this process's counter with the proposer's PE id.
// The members agree on the largest proposal.
func (p *PE) newTeamID() uint64 {
	return 2 + p.w.teamIDs.Add(1)*uint64(p.w.n) + uint64(p.id)
}

// share registers t, this PE's member of team id, with the team's other
// members in this process.
func (t *Team) share(id uint64) {
	w := t.pe.w
	w.teamsMu.Lock()
	defer w.teamsMu.Unlock()
	sh := w.teams[id]
	if sh == nil {
		sh = &teamShare{id: id, member: make([]*Team, len(t.members)), ended: make([]atomic.Uint64, len(t.members)), endedDev: make([]atomic.Uint64, len(t.members))}
		w.teams[id] = sh
	}
	if len(sh.member) != len(t.members) || sh.member[t.rank] != nil {
		return // not the same team after all (an earlier split went wrong): no share
	}
	sh.member[t.rank] = t
	t.shared = sh
}

// end marks this PE's part in t as over. A member already waiting in a
// synchronisation that this PE never entered can never finish it: the run
// fails, naming this PE.
func (t *Team) end(how int) {
	sh := t.shared
	if sh == nil {
		return
	}
	// Under the world's lock: a failed Split may end one member while
	// another still registers.
	w := t.pe.w
	w.teamsMu.Lock()
	defer w.teamsMu.Unlock()
	final, finalDev := t.epoch.Load(), t.devSeq.Load()
	sh.endedDev[t.rank].Store(finalDev + 1)
	sh.ended[t.rank].Store(endMark(final, how))
	for r, m := range sh.member {
		if m == nil || r == t.rank || sh.ended[r].Load() != 0 {
			continue
		}
		// Inside a synchronisation (or a blocking collective on the
		// device) this PE never entered: stuck for good.
		what, n, e := "synchronisations", final, m.epoch.Load()
		stuck := e > final && m.left.Load() < e
		if d := m.devSeq.Load(); !stuck && d > finalDev && m.devLeft.Load() < d {
			what, n, e, stuck = "collectives on the device", finalDev, d, true
		}
		if stuck {
			t.pe.w.fail(&PEError{PE: t.pe.id, Err: fmt.Errorf("%w: %s after %d %s of a team of %d, while PE %d waits in #%d",
				ErrCollectiveMismatch, endHow(endMark(final, how)), n, what, len(t.members), m.pe.id, e)})
			break
		}
	}
	// The last local member to end takes the share out of the world's
	// map.
	for r, m := range sh.member {
		if m != nil && sh.ended[r].Load() == 0 {
			return
		}
	}
	delete(w.teams, sh.id)
}

// missing returns a *memberEnded if a member has ended its part before
// entering synchronisation e of t; sync calls it after entering e.
func (t *Team) missing(e uint64) error {
	sh := t.shared
	if sh == nil {
		return nil
	}
	for r := range sh.ended {
		if m := sh.ended[r].Load(); m != 0 && endEpoch(m) < e {
			return &memberEnded{pe: t.members[r], how: endHow(m), after: endEpoch(m), size: len(t.members), e: e}
		}
	}
	return nil
}

// memberEnded is why a member gives up a synchronisation that another
// member, having ended its part in the team, will never join.
type memberEnded struct {
	pe       int
	how      string
	after, e uint64
	size     int
}

func (m *memberEnded) Error() string {
	return fmt.Sprintf("PE %d %s after %d synchronisations of this team of %d; this is #%d", m.pe, m.how, m.after, m.size, m.e)
}

func (m *memberEnded) Unwrap() error { return ErrCollectiveMismatch }
