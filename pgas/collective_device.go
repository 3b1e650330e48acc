package pgas

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/pgas/driver"
)

// Blocking collectives on the GPU backends. Barrier, Sync, Broadcast,
// FCollect, AllToAll and ReduceAll called from Go enqueue the team's device
// collective (symchan.cu's symchan_team_step, the kernel the *OnStream
// forms run) on the PE's collective stream and wait for it: one launch per
// call, whatever the team's size. Collect, strided AllToAlls and
// ReduceAllComplex run their data steps from the host, after an agreement
// on the device (PART_AGREE), and so do collective allocation, free and
// team split before their host synchronisations (syncSig): every blocking
// collective of a team meets the others on the device, so that a mismatch
// between any two is found, whichever path each takes.
//
// Their guarantees are those of the host's synchronisations (teamsync.go):
//
//   - Arguments that differ: the collective's opening phase compares the
//     members' signatures; every member gets ErrCollectiveMismatch naming
//     the argument (deviceMismatch), and the team stays usable.
//   - Different collectives: as on the host, every member fails with the
//     same *CollectiveError (Mismatch), and the team is broken.
//   - Invalid arguments on a member: that member opens with the kind
//     collRefused instead, so the others' signatures differ from its: it
//     returns its own error, the others ErrBadArg, and no data moves.
//   - A member that abandons the collective (its context ends): every
//     blocking device collective has two phases, and the kernel decides on
//     its way to the second (symchan_team_decide moves the team's ctl word
//     to seq | CLOSING) unless the host decided first (seq | CANCELLED,
//     with the transport's atomic on the same word). A host that decided
//     writes the team's abort word on every member, which ends their
//     waits in the team; every member then fails with the same
//     *CollectiveError, and the team is broken. A kernel that decided
//     first completes with the others, and its host takes that outcome.
//     No member can complete while another abandons: completing needs
//     every member's second phase.
//   - A failing PE: the world's abort word ends every wait on the GPU,
//     and every member returns the same *CollectiveError wrapping its
//     *PEError, naming the first collective the failed PE did not
//     complete (failedSeq).
//   - A member that ended its part in the team (returned, destroyed it)
//     before entering: the callers fail at once, as in sync (devMissing),
//     or the run fails, naming it (Team.end).
//
// Where PEs share a GPU's context the members meet on the host before
// they launch (meetOnHost).

// devColl is one blocking collective as symchan_team_step runs it.
type devColl struct {
	sk       syncKind
	kind     uint64   // abi.Coll*, hostKind or collRefused
	dst, src int64    // this PE's offsets (agree: the root and the operator)
	n        int64    // bytes, or a reduction's elements
	arg      uint64   // a broadcast's root, a reduction's op | elem<<8 (agree: the element type)
	moved    int64    // bytes landing on each member
	agree    bool     // PART_AGREE: the agreement alone
	v        *vLayout // an AllToAllV's layout (abi.AllToAllVStep runs it); nil for the others
}

// vLayout is an AllToAllV's layout on the device (abi.AllToAllVStep's
// arguments past the source): its four arrays (this PE's offsets: send
// counts, send offsets, receive counts, receive offsets) and its dst's and
// src's elements. A devColl with one is an AllToAllV, n its element size.
type vLayout struct {
	arrays     [4]int64
	dstN, srcN int64
}

// Kinds of device collective that symchan.cuh leaves to pgas (from 16
// up): a synchronisation the host runs, agreed on the device first, and a
// member whose arguments were invalid.
const (
	hostKinds   = 16
	collRefused = hostKinds + uint64(numSyncKinds)
)

// symchan.cuh's largest kind (CollReduce) stays below hostKinds; a kind
// added there is to be added to collectives and checked here too.
var _ [hostKinds - 1 - abi.CollReduce]struct{}

// hostKind is the device kind of a synchronisation of kind k run by the
// host.
func hostKind(k syncKind) uint64 { return hostKinds + uint64(k) }

// agreeColl is the agreement on the device of a collective of device kind
// kind whose steps run from the host, carrying its arguments (a strided
// AllToAlls's strides in the root's and the operator's places).
func agreeColl(sk syncKind, kind uint64, a collArgs) devColl {
	if a.tst != -1 {
		a.root, a.op = a.tst, a.sst
	}
	return devColl{sk: sk, kind: kind, n: a.count, dst: a.root, src: a.op, arg: uint64(a.elem), agree: true}
}

// onGPU reports whether t's blocking collectives run on the device: on a
// GPU world, for a team whose members device code can name.
func (t *Team) onGPU() bool { return t.pe.coll != nil && t.shape.ok }

// The team's abort word: why<<60 | kind<<56 | PE<<32 | seq, never 0 (seq
// counts from 1).
func abortWord(why uint64, sk syncKind, pe int, seq uint64) uint64 {
	return why<<60 | uint64(sk)<<56 | uint64(uint32(pe)&0xffffff)<<32 | seq&0xffffffff
}

// deviceCollective runs c on t's PE's collective stream and waits for it.
// bad is this member's own argument error, if any.
func (t *Team) deviceCollective(ctx context.Context, c devColl, bad error) error {
	if b := t.broken.Load(); b != nil {
		return b
	}
	p := t.pe
	w := p.w
	seq := t.devSeq.Add(1)
	defer t.devLeft.Store(seq)
	if seq >= 1<<32 {
		return fmt.Errorf("pgas: %s: the team ran out of collective numbers", c.sk)
	}
	if bad == nil {
		bad = p.launchMismatch()
	}
	if isClosed(w.failed) {
		return t.failedErr(ctx, c.sk, seq, nil)
	}
	if err := t.devAbsent(ctx, c.sk, seq); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return t.abandon(ctx, c.sk, seq, whyOf(ctx), p.id, context.Cause(ctx))
	}
	if c.sk != syncSync {
		if err := w.tr.Quiet(p.id); err != nil {
			return t.abandon(ctx, c.sk, seq, whyError, p.id, err)
		}
	}
	if bad != nil {
		c = devColl{sk: c.sk, kind: collRefused, agree: true}
	}
	if w.sharesGPU() {
		if err := t.meetOnHost(ctx, c.sk, seq); err != nil {
			return err
		}
	}
	if err := t.launchColl(c, seq); err != nil {
		return t.abandon(ctx, c.sk, seq, whyError, p.id, err)
	}
	if err := t.awaitColl(ctx, c.sk, seq); err != nil {
		return t.failedErr(ctx, c.sk, seq, err)
	}
	mm := t.deviceMismatch()
	var ce *CollectiveError
	var kd *kindsDiffer
	switch {
	case errors.As(mm, &ce):
		return mm
	case errors.As(mm, &kd):
		// Different collectives break the team, as on the host.
		return t.broke(&CollectiveError{Op: "synchronisation", Seq: seq, Size: len(t.members), PE: -1, Mismatch: true,
			Reason: "the members' calls do not match: " + kd.kinds})
	case bad != nil:
		return bad
	}
	if mm == nil {
		t.devDone.Store(seq)
	}
	return mm
}

// meetOnHost returns once every other member of t has arrived at
// blocking collective seq, or a member abandoned it (this member's
// kernel, launched next, then ends at once with the others' outcome). It
// returns an error where this member abandons it instead: its context
// ended, the world failed, a member ended its part in the team.
//
// Worlds whose PEs share a GPU's context (World.sharesGPU) meet here
// before they launch: a collective's kernel spins until every member's
// kernel arrives, and on a shared context it would hold up another
// member's work that has to finish before that member arrives (a
// cuMemFree waits for the whole context; two streams may share a
// hardware queue). Every member is in this process there. A member has
// arrived when its host entered this blocking collective (Team.devSeq;
// one that entered and launched is counted twice, but none launches
// before the others have arrived) or its kernel, a stream's collective
// or a user's, has begun the phase that opens it on the GPU (the low
// half of this PE's arrivals word of that phase's parity: see
// symchan.cuh's symchan_team_phase).
func (t *Team) meetOnHost(ctx context.Context, sk syncKind, seq uint64) error {
	p, sh := t.pe, t.shared
	if sh == nil {
		return nil
	}
	var st [abi.SizeofTeam / 8]uint64
	word := func(off int) uint64 { return st[off/8] }
	tick := time.NewTimer(0)
	defer tick.Stop()
	failed := func() error { return t.failedErr(ctx, sk, seq, nil) }
	for d := time.Microsecond; ; d = min(2*d, time.Millisecond) {
		if isClosed(p.w.failed) {
			return failed()
		}
		arrived := 0
		for r, m := range sh.member {
			if r != t.rank && m != nil && m.devSeq.Load() >= seq {
				arrived++
			}
		}
		if arrived < len(t.members)-1 {
			if err := p.w.tr.Get(p.id, p.id, t.deviceOff(), wordsBytes(st[:])); err != nil {
				return t.abandon(ctx, sk, seq, whyError, p.id, err)
			}
			if word(abi.OffsetofTeamAbort) != 0 {
				return nil // the kernel ends at once and reports it
			}
			q := (word(abi.OffsetofTeamPhases) + 1) & 1
			arrived += int(uint32(word(abi.OffsetofTeamArrivals+8*int(q)) - word(abi.OffsetofTeamSeen+8*int(q))))
		}
		if arrived >= len(t.members)-1 {
			return nil
		}
		if err := t.devAbsent(ctx, sk, seq); err != nil {
			return err
		}
		tick.Reset(d)
		select {
		case <-tick.C:
		case <-p.w.failed:
			return failed()
		case <-ctx.Done():
			if isClosed(p.w.failed) {
				return failed() // the failure cancelled ctx (World.fail closes failed first)
			}
			return t.abandon(ctx, sk, seq, whyOf(ctx), p.id, context.Cause(ctx))
		}
	}
}

// kindsDiffer is deviceMismatch's error when members ran different
// collectives; kinds names them, in syncKind order.
type kindsDiffer struct {
	text, kinds string
}

func (k *kindsDiffer) Error() string { return k.text }
func (k *kindsDiffer) Unwrap() error { return ErrCollectiveMismatch }

// launchColl enqueues c, collective seq of t, on the PE's collective
// stream, as Stream.collective enqueues an *OnStream one.
func (t *Team) launchColl(c devColl, seq uint64) error {
	s := t.pe.coll
	g, err := t.pe.GPU()
	if err != nil {
		return err
	}
	team, err := t.onDevice(g)
	if err != nil {
		return err
	}
	if c.v != nil {
		return launchAllToAllV(s.Device(), g, t.pe, team, c.dst, c.src, c.n, c.v, c.moved, seq)
	}
	dst, src := uint64(c.dst), uint64(c.src)
	if !c.agree {
		dst, src = uint64(g.Addr(t.pe.id, c.dst)), uint64(g.Addr(t.pe.id, c.src))
	}
	launch, err := stepLauncher(s.Device(), g, abi.TeamStep, team, seq, c.kind, dst, src, uint64(c.n), c.arg)
	if err != nil {
		return err
	}
	if c.agree {
		return launch(1, abi.PartAgree)
	}
	return launchParts(t.pe.w, c.moved, launch)
}

// awaitColl waits for collective seq of t, of kind sk, on the collective
// stream. When ctx ends first, the PE abandons it unless its kernel went
// on to close. A wait that the world's failure or end cut short returns
// errGPUEnded.
func (t *Team) awaitColl(ctx context.Context, sk syncKind, seq uint64) error {
	p := t.pe
	s := p.coll
	w := p.w
	ended := func(err error) error {
		if err == nil && w.gpuAbort.Load() != nil {
			err = errGPUEnded
		}
		return err
	}
	if finished, err := s.poll(ctx); finished {
		return ended(err)
	}
	if ctx.Done() == nil && !isClosed(w.failed) {
		// Nothing but the world's failure or end ends this wait, and
		// those end the GPU's waits (abortGPU): no goroutine needed.
		return ended(s.ds.Sync())
	}
	done := make(chan error, 1)
	s.goGPU(func() { done <- s.ds.Sync() })
	select {
	case err := <-done:
		return ended(err)
	case <-w.failed:
		return errGPUEnded
	case <-ctx.Done():
		if isClosed(w.failed) {
			return errGPUEnded // the failure cancelled ctx (World.fail closes failed first)
		}
	}
	won, err := t.decideCancel(seq)
	if err != nil || won {
		if err == nil {
			err = context.Cause(ctx)
		}
		return t.abandonDecided(sk, seq, whyOf(ctx), p.id, err)
	}
	// The kernel decided first: the collective completes, or another
	// member abandons it; either way soon, as every member has arrived.
	select {
	case err := <-done:
		return ended(err)
	case <-w.failed:
		return errGPUEnded
	}
}

// errGPUEnded is what awaitColl returns when the world's failure or end
// ended the wait (failedErr says which).
var errGPUEnded = errors.New("pgas: the collective's waits on the GPU were ended")

// failedErr is the error of collective seq of kind sk that the world's
// failure ended (err, from awaitColl, else nil): as the host's
// synchronisations report it, a *CollectiveError naming the failed PE and
// wrapping its *PEError, the same on every member, and the team is
// broken. Another err (the world's end, a stream's error, an abandoned
// collective's *CollectiveError) is returned as it is.
func (t *Team) failedErr(ctx context.Context, sk syncKind, seq uint64, err error) error {
	w := t.pe.w
	if err != nil && err != errGPUEnded {
		return err
	}
	if isClosed(w.failed) {
		// A member that abandoned the collective set rank 0's abort word
		// first, then the other members' copies, and a member that saw
		// its copy fails with that outcome: it may fail the world before
		// this member's copy is written. Rank 0's word decides, the same
		// for every member.
		if v, err := t.abortWord(t.members[0]); err == nil && v != 0 {
			return t.broke(t.abortedErr(v))
		}
		return t.broke(&CollectiveError{Op: sk.String(), Seq: t.failedSeq(seq), Size: len(t.members), PE: w.failErr.PE,
			Reason: "it failed: " + w.failErr.Err.Error(), Err: w.failErr})
	}
	if cause := w.gpuAbort.Load(); cause != nil {
		return w.abortErr(ctx, sk.String(), fmt.Errorf("pgas: %s: the collective's waits were ended: %w", sk, *cause))
	}
	return w.abortErr(ctx, sk.String(), err)
}

// ctlOff is the heap offset of the team's ctl word on its PE.
func (t *Team) ctlOff() int64 { return t.deviceOff() + abi.OffsetofTeamCtl }

// decideCancel decides collective seq as abandoned on t's PE unless its
// kernel decided first (symchan_team_decide); won reports the host's.
func (t *Team) decideCancel(seq uint64) (won bool, err error) {
	tr, id := t.pe.w.tr, t.pe.id
	c, err := tr.Atomic(id, id, t.ctlOff(), driver.KindUint64, driver.OpFetch, 0, 0)
	for err == nil && c>>2 < seq {
		var was uint64
		was, err = tr.Atomic(id, id, t.ctlOff(), driver.KindUint64, driver.OpCompareSwap, seq<<2|abi.CtlCancelled, c)
		if was == c {
			return err == nil, err
		}
		c = was
	}
	return err == nil && c&3 == abi.CtlCancelled, err
}

// abandon abandons collective seq of t, whose kernel was never enqueued.
func (t *Team) abandon(ctx context.Context, sk syncKind, seq uint64, why uint64, pe int, cause error) error {
	if why != whyEnded && ctx.Err() == nil && isClosed(t.pe.w.failed) {
		return t.failedErr(ctx, sk, seq, nil)
	}
	return t.abandonDecided(sk, seq, why, pe, cause)
}

// abandonDecided ends collective seq of t for every member: the first
// abandon of the team to reach rank 0's abort word sets it (one
// compare-and-swap from 0), and every abandoning member then stores that
// word in every other member's copy, which ends their waits in the team.
// Every copy holds the one winning word, so every member reports the same
// *CollectiveError (this one's with cause, where its own decided).
func (t *Team) abandonDecided(sk syncKind, seq uint64, why uint64, pe int, cause error) error {
	word := abortWord(why, sk, pe, seq)
	tr, id, off := t.pe.w.tr, t.pe.id, t.deviceOff()+abi.OffsetofTeamAbort
	old, err := tr.Atomic(id, t.members[0], off, driver.KindUint64, driver.OpCompareSwap, word, 0)
	errs := []error{err}
	if err == nil && old != 0 {
		word, cause = old, nil // another member decided first: its outcome
	}
	for _, m := range t.members[1:] {
		_, err := tr.Atomic(id, m, off, driver.KindUint64, driver.OpSwap, word, 0)
		errs = append(errs, err)
	}
	ce := t.abortedErr(word)
	ce.Err = errors.Join(append([]error{cause}, errs...)...)
	return t.broke(ce)
}

// failedSeq is the collective a failure ended, as every member names it:
// the first the failed PE did not complete, where that PE is a member in
// this process (a member whose wait the world's abort ended a moment
// before the failed PE's last collective completed on it names the next
// one, as the others do); else seq, this member's.
func (t *Team) failedSeq(seq uint64) uint64 {
	sh := t.shared
	r, ok := slices.BinarySearch(t.members, t.pe.w.failErr.PE)
	if sh == nil || !ok || sh.member[r] == nil {
		return seq
	}
	return sh.member[r].devDone.Load() + 1
}

// abortedErr is the *CollectiveError of abort word v, the same on every
// member.
func (t *Team) abortedErr(v uint64) *CollectiveError {
	why, sk, pe, seq := v>>60, syncKind(v>>56&0xf), int(v>>32&0xffffff), v&0xffffffff
	ce := &CollectiveError{Op: sk.String(), Seq: seq, Size: len(t.members), PE: pe, Reason: whyText(why)}
	if why == whyEnded {
		ce.Mismatch = true
		ce.Reason = fmt.Sprintf("PE %d had returned from its function or destroyed the team before it", pe)
	}
	return ce
}

// teamAborted reads t's abort word on its PE: the *CollectiveError of a
// collective a member abandoned, nil if none was.
func (t *Team) teamAborted() error {
	v, err := t.abortWord(t.pe.id)
	if err != nil || v == 0 {
		return err
	}
	return t.broke(t.abortedErr(v))
}

// abortWord reads t's abort word on member pe (0: no member abandoned).
func (t *Team) abortWord(pe int) (uint64, error) {
	var w [1]uint64
	err := t.pe.w.tr.Get(t.pe.id, pe, t.deviceOff()+abi.OffsetofTeamAbort, wordsBytes(w[:]))
	return w[0], err
}

// whyOf is why a member whose context ended gives up.
func whyOf(ctx context.Context) uint64 {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return whyDeadline
	}
	return whyCanceled
}

// devAbsent abandons blocking device collective seq of t, for every member,
// if a member has ended its part in t before entering it (devMissing);
// nil if none has. A member that failed is reported before its teams end
// (World.run): where the world has failed by then, the failure is the
// answer, as on every path.
func (t *Team) devAbsent(ctx context.Context, sk syncKind, seq uint64) error {
	m := t.devMissing(seq)
	switch {
	case m == nil:
		return nil
	case isClosed(t.pe.w.failed):
		return t.failedErr(ctx, sk, seq, nil)
	}
	return t.abandon(ctx, sk, seq, whyEnded, m.pe, m)
}

// devMissing returns a *memberEnded if a member has ended its part in t
// before entering blocking device collective seq.
func (t *Team) devMissing(seq uint64) *memberEnded {
	sh := t.shared
	if sh == nil {
		return nil
	}
	for r := range sh.endedDev {
		if m := sh.endedDev[r].Load(); m != 0 && m-1 < seq {
			return &memberEnded{pe: t.members[r], how: endHow(sh.ended[r].Load()), after: m - 1, size: len(t.members), e: seq}
		}
	}
	return nil
}

// newCollStream gives p, on a GPU backend, the stream its blocking
// collectives run on (made with the world, so that no member can lack
// it).
func (p *PE) newCollStream() error {
	if p.notices == nil {
		return nil // no GPU: the host runs the collectives
	}
	s, err := NewStream(p)
	if err != nil {
		return err
	}
	p.coll = s
	return nil
}
