package pgas

import (
	"context"
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/symchan/symchan/internal/abi"
)

// Team is a set of PEs that synchronise and run collectives together, as
// seen by one member: Team values are per PE, like OpenSHMEM team handles.
// Members are numbered 0 … NumPEs()-1 in the order of their world ids.
type Team struct {
	pe      *PE
	slot    int           // control-region slot holding its barrier words
	members []int         // world ids by team rank
	shape   strided       // how they lie among the world's PEs (teamdevice.go)
	rank    int           // this PE's rank
	epoch   atomic.Uint64 // synchronisations entered
	left    atomic.Uint64 // synchronisations left, completed or not
	gone    atomic.Bool
	broken  atomic.Pointer[CollectiveError] // the synchronisation that broke it
	shared  *teamShare                      // with the members in this process; nil: none
	cfg     TeamConfig
	// A round's signature word, put and fetched (teamsync.go), and a
	// collective's arguments, put (collargs.go); used by the goroutine
	// that runs the team's collective.
	sigOut, sigIn [8]byte
	argsOut       [6]uint64
	// The phase of the last device collective whose mismatch a
	// Stream.Sync reported (teamdevice.go).
	deviceSeen atomic.Uint64
	// Blocking collectives run on the device (collective_device.go):
	// entered, left (completed or not), and completed.
	devSeq, devLeft, devDone atomic.Uint64
}

// newTeam makes p's handle of the team of members (world ids in
// increasing order, whose shape is sh), which it may share with the other
// members' handles: nobody writes it.
func newTeam(p *PE, slot int, members []int, sh strided) *Team {
	t := &Team{pe: p, slot: slot, members: members, shape: sh, rank: -1}
	if r, ok := slices.BinarySearch(members, p.id); ok {
		t.rank = r
	}
	return t
}

// ID is the calling PE's number in the team, 0 … NumPEs()-1, as PE.ID is
// its number in the world (shmem_team_my_pe); -1 for a nil team.
func (t *Team) ID() int {
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
// *CollectiveError and the team is broken. On the GPU backends it runs on
// the device (one launch, two phases: collective_device.go); on the host
// backend it is a dissemination barrier of ⌈log₂ P⌉ rounds.
func (t *Team) Barrier(ctx context.Context) error {
	if err := t.check(); err != nil {
		return err
	}
	if t.onGPU() {
		return t.deviceCollective(ctx, devColl{sk: syncBarrier, kind: abi.CollBarrier}, nil)
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
// does, and runs where Barrier runs.
func (t *Team) Sync(ctx context.Context) error {
	if err := t.check(); err != nil {
		return err
	}
	if t.onGPU() {
		return t.deviceCollective(ctx, devColl{sk: syncSync, kind: abi.CollSync}, nil)
	}
	return t.sync(ctx, syncSync, nil)
}

// Split creates a team of the members of t with ranks start, start+stride,
// … (size of them) (shmem_team_split_strided). Every member of t must call
// it with the same arguments; members left out get a nil Team and a nil
// error. The new team takes a slot free on all its members: a PE can be a
// member of at most MaxTeams teams at once (Destroy frees a slot).
func (t *Team) Split(ctx context.Context, start, stride, size int) (*Team, error) {
	return t.SplitConfig(ctx, start, stride, size, TeamConfig{})
}

// SplitConfig is Split giving the new team a configuration
// (shmem_team_split_strided with a config and mask); every member passes
// the same one.
func (t *Team) SplitConfig(ctx context.Context, start, stride, size int, cfg TeamConfig) (*Team, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	n := len(t.members)
	valid := start >= 0 && start < n && stride >= 1 && size >= 1 && start+(size-1)*stride < n && cfg.valid()
	member := func(r int) int {
		if r >= start && (r-start)%stride == 0 && (r-start)/stride < size {
			return 0
		}
		return -1
	}
	nt, err := t.split(ctx, splitArgs{splitStrided, int64(start), int64(stride), int64(size), int64(cfg.NumContexts)}, valid, member, cfg)
	if err == nil && !valid {
		err = fmt.Errorf("%w: team split (start %d, stride %d, size %d, NumContexts %d) of a team of %d", ErrBadArg, start, stride, size, cfg.NumContexts, n)
	}
	return nt, err
}

// Split2D splits t into the rows and columns of a grid xrange members wide
// (shmem_team_split_2d): member r is at x = r mod xrange, y = r / xrange;
// x is its team of the members with its y (its row, ranked by x) and y its
// team of the members with its x (its column, ranked by y). The last row
// is short when xrange does not divide t's size; an xrange larger than the
// size is taken as the size. Every member calls it with the same
// arguments; it takes a team slot for each of the two teams.
func (t *Team) Split2D(ctx context.Context, xrange int, xcfg, ycfg TeamConfig) (x, y *Team, err error) {
	if err := t.check(); err != nil {
		return nil, nil, err
	}
	n := len(t.members)
	valid := xrange >= 1 && xcfg.valid() && ycfg.valid()
	xr := max(min(xrange, n), 1)
	x, err = t.split(ctx, splitArgs{splitRows, int64(xrange), int64(xcfg.NumContexts), int64(ycfg.NumContexts), 0}, valid, func(r int) int { return r / xr }, xcfg)
	if err == nil && valid {
		y, err = t.split(ctx, splitArgs{splitColumns, int64(xrange), int64(xcfg.NumContexts), int64(ycfg.NumContexts), 0}, valid, func(r int) int { return r % xr }, ycfg)
		if err != nil {
			x.Destroy()
			x = nil
		}
	}
	if err == nil && !valid {
		err = fmt.Errorf("%w: team split 2D (xrange %d, NumContexts %d and %d) of a team of %d", ErrBadArg, xrange, xcfg.NumContexts, ycfg.NumContexts, n)
	}
	return x, y, err
}

// TeamConfig is a team's configuration (shmem_team_config_t), given when
// it is split off and read back with Team.Config.
type TeamConfig struct {
	// NumContexts is the most communication contexts the program will
	// create on the team (SHMEM_TEAM_NUM_CONTEXTS); 0 is the default.
	// symchan has no context objects (each PE issues its routines in
	// order, on its own), so the number is checked (≥ 0) and kept, and
	// reserves nothing.
	NumContexts int
}

func (c TeamConfig) valid() bool { return c.NumContexts >= 0 }

// Config returns the configuration the team was split with
// (shmem_team_get_config); TeamWorld's and TeamNode's are the zero value.
func (t *Team) Config() TeamConfig {
	if t == nil {
		return TeamConfig{}
	}
	return t.cfg
}

// What a split asks for, compared across the members: its shape and
// four numbers (the configuration's included).
type splitArgs [5]int64

const (
	splitStrided = iota + 1
	splitRows
	splitColumns
)

func (a splitArgs) String() string {
	switch a[0] {
	case splitStrided:
		return fmt.Sprintf("(start %d, stride %d, size %d, NumContexts %d)", a[1], a[2], a[3], a[4])
	case splitRows, splitColumns:
		return fmt.Sprintf("a 2D split (xrange %d, NumContexts %d and %d)", a[1], a[2], a[3])
	}
	return fmt.Sprintf("split %v", [5]int64(a))
}

// split creates the teams group assigns t's members to (group(r) ≥ 0 is
// rank r's team, -1 none; each team ranks its members in t's order) and
// returns the caller's, or nil. With valid false it only agrees with the
// others and returns nil, nil: the caller reports its error.
func (t *Team) split(ctx context.Context, args splitArgs, valid bool, group func(r int) int, cfg TeamConfig) (*Team, error) {
	p := t.pe
	p.mu.Lock()
	defer p.mu.Unlock()

	// Agree on the arguments, on a slot for each new team free on every
	// one of its members, and on each team's id: each publishes (its free
	// slots, the arguments, a proposed id); each team takes the lowest
	// slot free on all its members and the largest id they proposed
	// (proposals are unique, so two teams never take the same one).
	const words = 1 + len(args) + 1
	var mine [words]uint64
	mine[0] = ^p.usedSlots()
	for i, a := range args {
		mine[1+i] = uint64(a)
	}
	mine[words-1] = p.newTeamID()
	if err := t.publish(syncSplit, mine[:]...); err != nil {
		return nil, err
	}
	if err := t.sync(ctx, syncSplit, nil); err != nil {
		return nil, err
	}
	free, id := map[int]uint64{}, map[int]uint64{}
	var other [words]uint64
	for r, m := range t.members {
		if err := t.scratchOf(syncSplit, m, other[:]); err != nil {
			return nil, err
		}
		if !slices.Equal(other[1:words-1], mine[1:words-1]) {
			// Every member read the same words: all return here.
			var theirs splitArgs
			for i := range theirs {
				theirs[i] = int64(other[1+i])
			}
			return nil, fmt.Errorf("%w: team split: rank %d asked for %v, rank %d for %v",
				ErrCollectiveMismatch, t.rank, args, r, theirs)
		}
		if !valid {
			continue // group may not be computable
		}
		if g := group(r); g >= 0 {
			if f, ok := free[g]; ok {
				free[g] = f & other[0]
			} else {
				free[g] = other[0]
			}
			id[g] = max(id[g], other[words-1])
		}
	}
	slotsFree := true
	for _, f := range free {
		slotsFree = slotsFree && bits.TrailingZeros64(f) < MaxTeams
	}
	var nt *Team
	g := -1
	if valid && slotsFree {
		g = group(t.rank)
	}
	if g >= 0 {
		// A reused slot's words hold its earlier teams' rounds and
		// verdict: start from zero. No member uses the new team before
		// the synchronisation below, and the old teams are gone on every
		// member.
		slot := bits.TrailingZeros64(free[g])
		var members []int
		for r, m := range t.members {
			if group(r) == g {
				members = append(members, m)
			}
		}
		// Shared before the synchronisation below, so that every member
		// is registered before any can end its part.
		nt = newTeam(p, slot, members, stridedOf(members))
		// Zero but for the team's struct symchan_team (teamdevice.go).
		var words [teamSlotBytes / 8]uint64
		img := nt.deviceImage()
		copy(words[teamDeviceOff/8:], img[:])
		nt.clearNotice()
		if err := p.w.tr.Put(p.id, p.id, nt.slotOff(), wordsBytes(words[:])); err != nil {
			return nil, t.abortNext(syncSplit, err)
		}
		nt.cfg = cfg
		nt.share(id[g])
	}
	// Nobody may overwrite the scratch words before all have read them,
	// nor use a new team before its words are zero (hence Quiet first:
	// the zeroing is complete).
	if err := t.barrier(ctx, syncSplit, nil); err != nil {
		if nt != nil {
			nt.end(endDestroyed)
		}
		return nil, err
	}
	if valid && !slotsFree {
		return nil, fmt.Errorf("%w: team split: no team slot is free on every member of a new team (a PE can be in %d teams at once; Destroy frees one)", ErrBadArg, MaxTeams)
	}
	if nt == nil {
		return nil, nil // not a member, or invalid arguments
	}
	p.teams = append(p.teams, nt)
	return nt, nil
}
