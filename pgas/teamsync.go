package pgas

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/internal/errtext"
	"github.com/symchan/symchan/pgas/driver"
)

// Team synchronisation. Every barrier, collective and collective
// allocation runs one or two synchronisations of its team; OpenSHMEM
// leaves a collective that some member abandons (its context ended, its
// arguments or calls differ) undefined, and we define it: a
// synchronisation completes on every member or fails on every member with
// the same *CollectiveError, and a team whose members can no longer agree
// is broken: every later call on it returns that error.
//
// Two kinds of words in the team's control slot carry it:
//
//   - Round words, a dissemination barrier's: in round k of
//     synchronisation e a member Sets word (k, e mod 2) of the member 2^k
//     ranks ahead to e<<16 | mask, where mask holds the kinds of
//     collective it has seen so far (its own and those its earlier rounds
//     brought). After the last round every member holds the union of all
//     members' masks, so all see the same mismatch, or none. A word has
//     one writer and one write per synchronisation, and a writer is at
//     most one synchronisation ahead of its reader, so the two parities
//     never mix.
//   - The verdict word, on the team's rank 0: whoever finishes its rounds
//     first, or gives up first, settles synchronisation e with one
//     compare-and-swap from "e-1 completed"; everyone else reads what it
//     settled, and every member's outcome is the verdict's alone (a
//     completed verdict says whether a member's arguments were invalid,
//     and so does the next verdict for the one before it). A member that
//     gives up after e was settled as completed sends the round words it
//     still owes, without waiting, and takes that outcome. One that settles
//     e as failed wakes every member by Setting all their round words to
//     the poison value.
//
// A member that cannot go on — the run failed, another member has ended
// its part in the team (returned or destroyed it) before entering e — does
// not return an error of its own: it gives up through the verdict like a
// cancelled one, so that every member gets the same *CollectiveError.

const (
	// syncRounds bounds a team's size to 2^syncRounds PEs (MaxPEs).
	syncRounds = 16
	// Round k of parity p is 16 bytes at (2k+p)·16: its word, then the
	// union of the argument signatures seen (collargs.go), which a
	// collective's round puts with the word.
	teamRoundBytes = 16
	teamScratchOff = syncRounds * 2 * teamRoundBytes // after the rounds: Split's agreement
	teamVerdictOff = teamScratchOff + 64
	// A collective's arguments, two buffers by synchronisation parity,
	// read by the others only when the signatures differ.
	teamArgsOff = teamVerdictOff + 64
	// The team's struct symchan_team (teamdevice.go), after the two
	// argument buffers.
	teamDeviceOff = teamArgsOff + 2*64

	// MaxPEs is the largest number of PEs a world can have.
	MaxPEs = 1 << syncRounds
)

// syncKind is what a member does in a synchronisation.
type syncKind uint8

const (
	syncBarrier syncKind = iota
	syncSync
	syncAlloc // collective allocation and free: the requests are compared after
	syncSplit
	syncBroadcast
	syncReduce
	syncFCollect
	syncAllToAll // and AllToAlls: the strides are among the arguments compared
	syncCollect
	syncAllToAllV
	numSyncKinds
)

// collectives is the one table of the synchronisation kinds: each one's
// name in errors and, where symchan.cuh has a device form of it, its
// SYMCHAN_COLL_* code (abi.Coll*; noDevice where the host runs it,
// agreed on the device first: hostKind). Adding a collective takes its Go
// form, its device form and its entry here; TestCollectivesTable checks
// that every SYMCHAN_COLL_* code has one.
var collectives = [numSyncKinds]struct {
	name   string
	device uint64
}{
	syncBarrier:   {"barrier", abi.CollBarrier},
	syncSync:      {"sync", abi.CollSync},
	syncAlloc:     {"collective allocation", noDevice},
	syncSplit:     {"team split", noDevice},
	syncBroadcast: {"broadcast", abi.CollBroadcast},
	syncReduce:    {"reduction", abi.CollReduce},
	syncFCollect:  {"fcollect", abi.CollFCollect},
	syncAllToAll:  {"alltoall", abi.CollAllToAll},
	syncCollect:   {"collect", noDevice},
	syncAllToAllV: {"alltoallv", abi.CollAllToAllV},
}

// noDevice is the device code of a kind with no device form.
const noDevice = 0

func (k syncKind) String() string {
	if k < numSyncKinds {
		return collectives[k].name
	}
	return fmt.Sprintf("syncKind(%d)", uint8(k))
}

// Round-word masks (the low 16 bits of a round word).
const (
	maskKinds  = 1<<numSyncKinds - 1
	maskBadArg = 1 << 14 // a member's arguments were invalid
	maskPoison = 1 << 15 // the team broke: read the verdict
	poisonWord = ^uint64(0)
	// maxEpoch keeps e<<16 from overflowing a round word.
	maxEpoch = 1<<48 - 1
)

// The kinds' bits stay below the flags: a fifteenth kind fails to compile
// here rather than sharing maskBadArg's bit.
var _ [maskBadArg - 1<<numSyncKinds]struct{}

// The verdict word: e (mod 2^36) << 28 | info << 4 | state, where state's
// low two bits say how e ended and its flags carry the invalid-argument
// outcome, which members that did not finish their rounds cannot read from
// them.
const (
	stateOK = iota
	stateAborted
	stateMismatch

	stateBadArg     = 1 << 2 // e completed, and a member's arguments were invalid
	statePrevBadArg = 1 << 3 // e-1 completed with stateBadArg
	stateHow        = 3

	verdictEpochBits = 36
	verdictEpochMask = 1<<verdictEpochBits - 1
)

// Why a member gave up a synchronisation (in an aborted verdict's info).
const (
	whyCanceled = iota
	whyDeadline
	whyFailed // a PE failed: the run is ending
	whyError  // an operation failed
	whyEnded  // the PE named had ended its part in the team before e
)

func verdict(e uint64, info uint64, state uint64) uint64 {
	return (e&verdictEpochMask)<<28 | info<<4 | state
}

func verdictEpoch(v uint64) uint64 { return v >> 28 }
func verdictInfo(v uint64) uint64  { return v >> 4 & (1<<24 - 1) }
func verdictState(v uint64) uint64 { return v & stateHow }

// completedAs reports whether v settles synchronisation e as completed.
func completedAs(v, e uint64) bool {
	return verdictEpoch(v) == e&verdictEpochMask && verdictState(v) == stateOK
}

// laterThan reports whether verdict epoch a comes after e (mod 2^36).
func laterThan(a, e uint64) bool {
	d := (a - e) & verdictEpochMask
	return d != 0 && d < 1<<(verdictEpochBits-1)
}

func (t *Team) roundOff(k int, e uint64) int64 {
	return t.slotOff() + int64(2*k+int(e&1))*teamRoundBytes
}

func (t *Team) verdictOff() int64 { return t.slotOff() + teamVerdictOff }

// syncState is how far a member got in its rounds of one synchronisation.
type syncState struct {
	e    uint64
	k    int    // the round being run
	sent bool   // round k's word was Set
	acc  uint64 // the union of the masks seen
	sig  uint64 // the union of the argument signatures seen (0: none)
}

// sync runs the next synchronisation of t as a collective of kind. bad,
// when not nil, is this member's own argument error: every member then
// returns an error (bad here, ErrBadArg on the others) and the team stays
// usable.
func (t *Team) sync(ctx context.Context, kind syncKind, bad error) error {
	return t.syncSig(ctx, kind, bad, 0)
}

// syncSig is sync carrying sig, this member's argument signature
// (collArgs.sig; 0 for none): when the members' differ, every member
// that ran its rounds returns an *argsDiffer (the others ErrBadArg).
func (t *Team) syncSig(ctx context.Context, kind syncKind, bad error, sig uint64) error {
	// A broken team runs no more rounds: its words may hold poison or a
	// late member's writes. Every member learnt of the break in the
	// synchronisation that broke it (or will, when it gets there).
	if b := t.broken.Load(); b != nil {
		return b
	}
	if (kind == syncAlloc || kind == syncSplit) && t.onGPU() {
		// Where the team's other blocking collectives meet
		// (collective_device.go): a member in another one fails there.
		if err := t.deviceCollective(ctx, devColl{sk: kind, kind: hostKind(kind), agree: true}, nil); err != nil {
			return err
		}
	}
	e := t.epoch.Add(1)
	defer t.left.Store(e)
	if e > maxEpoch {
		return t.abort(kind, e, whyError, fmt.Errorf("team ran out of synchronisation numbers (%d)", uint64(maxEpoch)))
	}
	if bad == nil {
		// A kernel's collective that went wrong since (Launch) fails this
		// call on every member, as a bad argument does.
		bad = t.pe.launchMismatch()
	}
	st := syncState{e: e, acc: 1 << kind, sig: sig}
	if bad != nil {
		st.acc |= maskBadArg
	}
	// Ended before it arrived: the others must not complete without it.
	if w := t.pe.w; isClosed(w.failed) {
		return t.giveUp(ctx, kind, &st, bad, w.failErr)
	}
	if err := t.missing(e); err != nil {
		return t.giveUp(ctx, kind, &st, bad, err)
	}
	if err := ctx.Err(); err != nil {
		return t.giveUp(ctx, kind, &st, bad, err)
	}
	if err := t.rounds(ctx, t.pe.w.failed, &st); err != nil {
		return t.giveUp(ctx, kind, &st, bad, err)
	}
	return t.settle(kind, &st, bad)
}

// rounds runs st's rounds from where they stopped; it stops early at a
// poisoned word (the verdict then says why).
func (t *Team) rounds(ctx context.Context, abort <-chan struct{}, st *syncState) error {
	tr, me := t.pe.w.tr, t.pe.id
	for ; 1<<st.k < len(t.members); st.k++ {
		if !st.sent {
			if err := t.send(st, st.k); err != nil {
				return err
			}
			st.sent = true
		}
		off := t.roundOff(st.k, st.e)
		req := driver.WaitRequest{Mode: driver.WaitAll, Kind: driver.KindUint64, Off: off, N: 1, Cmp: driver.CmpGE, Value: st.e << 16}
		var heap []byte
		if st.sig != 0 {
			heap = tr.Heap(me)
		}
		if st.sig != 0 && heap == nil {
			// Device memory: the signature word comes with the wait (an
			// any-wait's fetch), not with a round trip of its own.
			req.Mode, req.Fetch = driver.WaitAny, driver.Fetch{Off: off + 8, Stride: 8, Bytes: 8, Into: t.sigIn[:]}
		}
		r, err := tr.Wait(ctx, me, abort, req)
		if err != nil {
			return err
		}
		st.sent = false
		st.acc |= r.Word & 0xffff
		switch {
		case st.sig == 0 || r.Word == poisonWord:
		case heap != nil:
			st.sig |= binary.LittleEndian.Uint64(heap[off+8 : off+16]) // put before the word it saw
		default:
			st.sig |= binary.LittleEndian.Uint64(t.sigIn[:])
		}
		if st.acc&maskPoison != 0 {
			return nil
		}
	}
	return nil
}

// settle decides synchronisation st.e after this member's rounds ended.
func (t *Team) settle(kind syncKind, st *syncState, bad error) error {
	if len(t.members) == 1 {
		return bad
	}
	// (After a poisoned word the verdict is settled already: want loses.)
	want := verdict(st.e, 0, stateOK)
	if st.acc&maskBadArg != 0 {
		want |= stateBadArg
	}
	// Arguments that differ fail every member: those that ran their
	// rounds see it in the signatures, the others in the verdict.
	differ := st.acc&maskPoison == 0 && sigsDiffer(st.sig)
	if differ {
		want |= stateBadArg
	}
	if kinds := st.acc & maskKinds; st.acc&maskPoison == 0 && kinds != 1<<kind {
		want = verdict(st.e, kinds, stateMismatch)
	}
	v, _, err := t.decide(st.e, want)
	if err != nil {
		return t.broke(t.noVerdict(kind, st.e, err))
	}
	err = t.outcome(kind, v, st.e, bad, nil)
	if differ && completedAs(v, st.e) && bad == nil && st.acc&maskBadArg == 0 {
		// No member's arguments were invalid: every member that ran its
		// rounds reads the others' to say how they differ.
		return &argsDiffer{e: st.e}
	}
	return err
}

// outcome is this member's result of synchronisation e, settled by v:
// nil, an argument error, or the *CollectiveError of a failed one. cause
// is this member's own reason to have given up, if any.
func (t *Team) outcome(kind syncKind, v, e uint64, bad, cause error) error {
	var argsBad bool
	switch {
	case completedAs(v, e):
		argsBad = v&stateBadArg != 0
	case laterThan(verdictEpoch(v), e):
		// e completed; the verdict is of e+1 (e+2 needs this member).
		argsBad = v&statePrevBadArg != 0
	default:
		return t.broke(t.verdictErr(v, e, cause))
	}
	switch {
	case bad != nil:
		return bad
	case argsBad:
		return fmt.Errorf("%w: %s: another member's arguments were invalid", ErrBadArg, kind)
	}
	return nil
}

// giveUp ends this member's part in synchronisation st.e, whose rounds
// failed with cause (its context ended, a PE failed, an operation
// failed): it settles st.e as aborted unless it was settled already. bad
// is as for sync.
func (t *Team) giveUp(ctx context.Context, kind syncKind, st *syncState, bad, cause error) error {
	w := t.pe.w
	why, who := uint64(whyError), t.pe.id
	var ended *memberEnded
	switch {
	case isClosed(w.failed):
		why, cause = whyFailed, w.abortErr(ctx, kind.String(), cause)
	case errors.As(cause, &ended):
		why, who = whyEnded, ended.pe
	case errors.Is(cause, context.DeadlineExceeded):
		why, cause = whyDeadline, fmt.Errorf("pgas: %s: %w", kind, context.Cause(ctx))
	case errors.Is(cause, context.Canceled):
		why, cause = whyCanceled, fmt.Errorf("pgas: %s: %w", kind, context.Cause(ctx))
	}
	if len(t.members) == 1 {
		return cause
	}
	v, won, err := t.claimAbort(kind, st.e, why, who)
	if err != nil {
		return t.broke(t.noVerdict(kind, st.e, errors.Join(cause, err)))
	}
	if !won && (completedAs(v, st.e) || laterThan(verdictEpoch(v), st.e)) {
		// Completed on another member: every member has arrived. The
		// members still in their rounds need this one's words.
		t.owe(st)
	}
	return t.outcome(kind, v, st.e, bad, cause)
}

// owe sends, without waiting, the round words of st.e this member has not
// sent yet: st.e was settled as completed, so their receivers have arrived
// and only wait for them.
func (t *Team) owe(st *syncState) {
	for k := st.k; 1<<k < len(t.members); k++ {
		if k != st.k || !st.sent {
			_ = t.send(st, k)
		}
	}
}

// send Sets round k's word of synchronisation st.e at the member 2^k
// ranks ahead to st.e<<16 | st.acc, with the signatures seen as the data
// after it when the synchronisation carries them.
func (t *Team) send(st *syncState, k int) error {
	to := t.members[(t.rank+1<<k)%len(t.members)]
	off := t.roundOff(k, st.e)
	var data []byte
	if st.sig != 0 {
		binary.LittleEndian.PutUint64(t.sigOut[:], st.sig)
		data = t.sigOut[:]
	}
	return t.pe.w.tr.PutSignal(t.pe.id, to, off+8, data, off, st.e<<16|st.acc, driver.SignalSet, false)
}

// abort settles synchronisation e, which this member never entered, as
// aborted: a member that cannot go on with a collective (an operation
// between its synchronisations failed) ends it for all. (Since it never
// arrived, e cannot have completed elsewhere.)
func (t *Team) abort(kind syncKind, e uint64, why uint64, cause error) error {
	if len(t.members) == 1 {
		return cause
	}
	v, _, err := t.claimAbort(kind, e, why, t.pe.id)
	if err != nil {
		return t.broke(t.noVerdict(kind, e, errors.Join(cause, err)))
	}
	return t.broke(t.verdictErr(v, e, cause))
}

// claimAbort tries to settle synchronisation e as aborted by this
// member's call of kind, for reason why, naming PE who; if it wins, it
// wakes every member (poison). It returns the verdict that holds.
func (t *Team) claimAbort(kind syncKind, e, why uint64, who int) (v uint64, won bool, err error) {
	v, won, err = t.decide(e, verdict(e, uint64(who)<<8|uint64(kind)<<4|why, stateAborted))
	if won {
		t.poison()
	}
	return v, won, err
}

// noVerdict is the error of a synchronisation whose verdict word could
// not be reached.
func (t *Team) noVerdict(kind syncKind, e uint64, err error) *CollectiveError {
	return &CollectiveError{Op: kind.String(), Seq: e, Size: len(t.members), PE: t.pe.id, Reason: "the verdict word could not be reached", Err: err}
}

// abortNext ends the team's next synchronisation for all members; see
// abort.
func (t *Team) abortNext(kind syncKind, cause error) error {
	e := t.epoch.Add(1)
	defer t.left.Store(e)
	return t.abort(kind, e, whyError, cause)
}

// publish puts words (8 at most) in this member's scratch words of t, for
// the others to read (scratchOf) after the synchronisation that follows;
// the one after that orders their reads before a later collective of
// kind publishes again. A failed put ends the collective for every member.
func (t *Team) publish(kind syncKind, words ...uint64) error {
	p := t.pe
	if err := p.w.tr.Put(p.id, p.id, t.slotOff()+teamScratchOff, wordsBytes(words)); err != nil {
		return t.abortNext(kind, err)
	}
	return nil
}

// scratchOf reads into w what member PE m published (publish).
func (t *Team) scratchOf(kind syncKind, m int, w []uint64) error {
	p := t.pe
	if err := p.w.tr.Get(p.id, m, t.slotOff()+teamScratchOff, wordsBytes(w)); err != nil {
		return t.abortNext(kind, err)
	}
	return nil
}

// decide compare-and-swaps the verdict of e from "e-1 completed" to want
// (carrying e-1's invalid-argument flag) and returns the verdict that
// holds, and whether it is this member's.
func (t *Team) decide(e, want uint64) (v uint64, won bool, err error) {
	old := verdict(e-1, 0, stateOK)
	tr, root, off := t.pe.w.tr, t.members[0], t.verdictOff()
	if tr.Heap(t.pe.id) != nil {
		// Host memory: a load first lets the members after the first
		// leave the word's cache line shared rather than take it for a
		// swap that fails. (On GPUs each is a round trip: swap at once.)
		got, err := tr.Atomic(t.pe.id, root, off, driver.KindUint64, driver.OpFetch, 0, 0)
		if err != nil || !completedAs(got, e-1) {
			return got, false, err
		}
		old = got
	}
	for {
		mine := want
		if old&stateBadArg != 0 {
			mine |= statePrevBadArg
		}
		got, err := tr.Atomic(t.pe.id, root, off, driver.KindUint64, driver.OpCompareSwap, mine, old)
		switch {
		case err != nil:
			return 0, false, err
		case got == old:
			return mine, true, nil
		case completedAs(got, e-1):
			old = got // e-1 completed with other flags: swap from those
		default:
			return got, false, nil
		}
	}
}

// poison wakes every member from its rounds: their words become the
// poison value, and they read the verdict.
func (t *Team) poison() {
	tr, me := t.pe.w.tr, t.pe.id
	n := len(t.members)
	for _, m := range t.members {
		for k := 0; 1<<k < n; k++ {
			for par := range uint64(2) {
				off := t.roundOff(k, par)
				_ = tr.PutSignal(me, m, off, nil, off, poisonWord, driver.SignalSet, false)
			}
		}
	}
}

// broke marks t broken (the first failure stays) and returns err. Later
// calls get the failure without this call's own cause (its context).
func (t *Team) broke(err *CollectiveError) error {
	kept := *err
	if !errors.As(err.Err, new(*PEError)) {
		kept.Err = nil
	}
	t.broken.CompareAndSwap(nil, &kept)
	return err
}

// verdictErr is the error of a synchronisation settled as failed by v.
func (t *Team) verdictErr(v uint64, e uint64, cause error) *CollectiveError {
	info := verdictInfo(v)
	ce := &CollectiveError{Seq: e, Size: len(t.members), PE: -1, Err: cause}
	switch {
	case verdictState(v) == stateAborted && info&0xf == whyEnded:
		ce.PE, ce.Op, ce.Mismatch = int(info>>8), syncKind(info>>4&0xf).String(), true
		ce.Reason = fmt.Sprintf("PE %d had returned from its function or destroyed the team before it", ce.PE)
	case verdictState(v) == stateMismatch:
		var kinds []string
		for k := range syncKind(numSyncKinds) {
			if info&(1<<k) != 0 {
				kinds = append(kinds, k.String())
			}
		}
		ce.Op, ce.Mismatch = "synchronisation", true
		ce.Reason = "the members' calls do not match: " + strings.Join(kinds, ", ")
	default:
		ce.PE, ce.Op = int(info>>8), syncKind(info>>4&0xf).String()
		ce.Reason = whyText(info & 0xf)
		if w := t.pe.w; info&0xf == whyFailed && w.learnFailure() {
			// Every member names the PE that failed, and its error.
			ce.PE, ce.Reason, ce.Err = w.failErr.PE, "it failed: "+w.failErr.Err.Error(), w.failErr
		}
	}
	return ce
}

func whyText(why uint64) string {
	switch why {
	case whyCanceled:
		return "its context was canceled"
	case whyDeadline:
		return "its context's deadline passed"
	case whyFailed:
		return "a PE failed"
	}
	return "an operation failed"
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// CollectiveError is what every member of a team gets from a barrier,
// collective, collective allocation or team split that did not complete:
// the same Op, Seq, PE and Reason on every member, and the team is broken
// (every later call on it returns this error). It wraps ErrTeamBroken,
// ErrCollectiveMismatch when the members' calls did not match, and Err.
type CollectiveError struct {
	Op       string // the call of the member that ended it ("barrier", "reduction", …)
	Seq      uint64 // which synchronisation of the team, counting from 1
	Size     int    // the team's size
	PE       int    // the world id of the PE whose call ended it; -1 for a mismatch
	Reason   string // why it ended
	Mismatch bool   // the members made different calls
	// Err is what ended it, where this PE knows: on the PE whose context
	// ended, that context's error; on every PE, a failed PE's *PEError.
	Err error
}

// Error describes the failed synchronisation; it reads the same on every
// member.
func (e *CollectiveError) Error() string {
	if e.Mismatch {
		return fmt.Sprintf("pgas: synchronisation #%d of a team of %d failed: %s; the team is broken", e.Seq, e.Size, e.Reason)
	}
	return fmt.Sprintf("pgas: %s (synchronisation #%d of a team of %d) ended by PE %d: %s; the team is broken", e.Op, e.Seq, e.Size, e.PE, errtext.OneLine(e.Reason))
}

// Unwrap returns ErrTeamBroken, ErrCollectiveMismatch for a mismatch, and
// Err.
func (e *CollectiveError) Unwrap() []error {
	errs := []error{ErrTeamBroken}
	if e.Mismatch {
		errs = append(errs, ErrCollectiveMismatch)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}
