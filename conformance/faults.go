package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// Randomized fault injection: many worlds of random programs (collectives,
// allocations, frees, a Free racing peers' Puts, Chan rounds over lanes
// claimed on first contact, future rounds, collectives and signal rounds
// on a stream, and on GPU backends a device collective in a user's kernel,
// on 2-16 PEs), each with at most one random fault — a context
// cancelled before or during a call, a PE that panics, returns early, or
// closes its Chan and returns, an argument invalid on one member — checked
// against the promises of pgas's and actors' Guarantees:
//
//   - every member of a collective gets the same outcome (success, the
//     same *CollectiveError, or an argument error on all);
//   - every call ends with a documented error, none by the world's
//     deadline (a hang), and none past its own deadline by more than a
//     bound;
//   - no message is lost or delivered twice, no reply is wrong, no Put
//     lands in a later allocation;
//   - nothing faults, and handles kept past the world return ErrClosed;
//   - with no fault, everything succeeds.
//
// Each world is named by a seed; a failure prints it, and
// Options.FaultSeed replays that world alone.

// errHang is the cause of a world's deadline: a call that ends with it
// was stuck.
var errHang = errors.New("the world's deadline passed: a call hung")

const (
	faultWorldTimeout = 20 * time.Second
	faultCallBound    = 2 * time.Second // how far past its deadline a call may end
)

type faultOp uint8

const (
	fopBarrier faultOp = iota
	fopAlloc
	fopFree
	fopReduce
	fopFCollect
	fopAllToAll
	fopCollect
	fopBroadcast
	fopChanRound
	fopFutureRound
	fopFreeRacingPut
	fopStreamReduce // ReduceAllOnStream, then Sync
	fopStreamRound  // a signal to the right and a wait for the left's, on a stream, then Sync
	numHostFaultOps
	// GPU backends' only (the world's program then draws from every op;
	// a host world's draws stay what they were, so that seeds replay).
	fopKernelReduce = numHostFaultOps // a user's kernel on the stream: a device reduction and a barrier (reduce_n), then Sync
	numFaultOps     = fopKernelReduce + 1
)

var faultOpNames = [...]string{"barrier", "alloc", "free", "reduce", "fcollect", "alltoall", "collect", "broadcast", "chan round", "future round", "free racing puts", "stream reduce", "stream round", "kernel reduce"}

func (o faultOp) String() string { return faultOpNames[o] }

// collective reports whether every member's outcome of o must agree. A
// stream's collective is not all-or-nothing: a member whose Sync its
// context ended reports that while the stream's collective goes on.
func (o faultOp) collective() bool {
	return o != fopChanRound && o != fopFutureRound && !o.onStream()
}

// onStream reports whether o runs on the PE's Stream: its Sync ends with
// the PE's context or a PE's failure, and a PE stops after it fails.
func (o faultOp) onStream() bool {
	return o == fopStreamReduce || o == fopStreamRound || o == fopKernelReduce
}

type faultKind uint8

const (
	faultNone faultKind = iota
	faultCancelBefore
	faultCancelDuring
	faultPanic
	faultReturn
	faultCloseReturn
	faultBadArg
	numFaultKinds
)

var faultKindNames = [...]string{"none", "context cancelled before", "context cancelled during", "panic", "return early", "close and return", "invalid argument"}

// faultWorld is one random program and its fault, the same on every PE.
type faultWorld struct {
	seed   uint64
	n      int
	ops    []faultOp
	sizes  []int // per op: the allocation's elements (alloc)
	kind   faultKind
	pe     int              // the PE the fault hits
	step   int              // the op it hits
	during time.Duration    // faultCancelDuring's timeout
	prog   *kernels.Program // a GPU world's kernels (mismatchSource); nil elsewhere
}

func (w *faultWorld) String() string {
	return fmt.Sprintf("seed %d: %d PEs, ops %v, fault %q on PE %d at op %d", w.seed, w.n, w.ops, faultKindNames[w.kind], w.pe, w.step)
}

// newFaultWorld makes the world of seed (procs: the test's processes;
// prog: the kernels of a GPU world, nil elsewhere).
func newFaultWorld(seed uint64, procs int, prog *kernels.Program) *faultWorld {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	w := &faultWorld{seed: seed, n: 2 + rng.IntN(15), prog: prog}
	ops := numHostFaultOps
	if prog != nil {
		ops = numFaultOps
	}
	if procs > 1 {
		w.n = procs
	}
	live := 0
	for range 4 + rng.IntN(12) {
		op := faultOp(rng.IntN(int(ops)))
		if op == fopFree && live == 0 {
			op = fopAlloc
		}
		switch op {
		case fopAlloc:
			live++
		case fopFree:
			live--
		}
		w.ops = append(w.ops, op)
		w.sizes = append(w.sizes, 1+rng.IntN(64))
	}
	if rng.IntN(8) != 0 { // most worlds have a fault
		w.kind = faultKind(1 + rng.IntN(int(numFaultKinds)-1))
		if procs > 1 && (w.kind == faultReturn || w.kind == faultCloseReturn) {
			// A member in another process is not seen to return: the
			// others would wait for their contexts (see pgas.Run).
			w.kind = faultPanic
		}
		w.pe, w.step = rng.IntN(w.n), rng.IntN(len(w.ops))
		w.during = time.Duration(rng.IntN(300)) * time.Microsecond
		if w.kind == faultBadArg && w.ops[w.step] == fopBarrier {
			w.ops[w.step] = fopReduce // a barrier has no argument to spoil
		}
		if w.kind == faultReturn || w.kind == faultCloseReturn {
			// Waits end with ErrNoWriters once every PE that could satisfy
			// them has returned; PEs blocked on each other in a ring that
			// a returned PE broke deadlock, as goroutines would. So a PE
			// returns where every other PE learns of it: at a collective,
			// or in a round of two PEs, followed by a collective.
			// A stream's wait names no writers: a PE returning at a
			// stream round would leave its neighbour's stream waiting.
			if (w.n > 2 || w.ops[w.step].onStream()) && !w.ops[w.step].collective() {
				w.ops[w.step] = fopBarrier
			}
			if w.step+1 < len(w.ops) {
				w.ops[w.step+1] = fopBarrier
			}
		}
	}
	return w
}

// faultPE is one PE's state in a fault world.
type faultPE struct {
	w       *faultWorld
	pe      *pgas.PE
	ch      *actors.Chan[uint64]
	replyTo *actors.Chan[actors.ReplyTo]
	sys     *actors.System
	a, b    pgas.Sym[int64]  // the collectives' buffers: 8·n elements each
	st      *pgas.Stream     // the stream ops' stream
	mod     *device.Module   // a GPU world's kernels, loaded on the PE's GPU
	heap    device.Ptr       // a GPU world's heap descriptor, reduce_n's first argument
	res     pgas.Sym[int32]  // reduce_n's results
	sig     pgas.Sym[uint64] // the stream rounds' word: the left adds 1 a round
	rounds  uint64           // stream rounds so far
	live    []pgas.Sym[int64]
	sent    uint64 // messages sent to the right
	got     uint64 // messages received from the left
	out     []error
	reached int // ops entered
}

func (ck *kit) testRandomFaults(t *testing.T) {
	worlds := 300
	switch {
	case ck.FaultWorlds > 0:
		worlds = ck.FaultWorlds
	case ck.CostlyWorlds:
		worlds = 30 // a short run: every world starts a backend
	case testing.Short():
		worlds = 100
	}
	if ck.maxPEs() < 2 {
		t.Skipf("needs 2 PEs; Options.MaxPEs is %d", ck.maxPEs())
	}
	base := ck.FaultSeed
	if base == 0 {
		base = uint64(time.Now().UnixNano())
		if ck.procs() > 1 {
			base = 1 // every process must run the same worlds
		}
		fmt.Fprintf(os.Stderr, "conformance: RandomFaults: %d worlds from seed %d (Options.FaultSeed, the tests binary's -faultseed=N, replays world N)\n", worlds, base)
	} else {
		worlds = 1
	}
	t.Run("2-16", func(t *testing.T) { ck.faultWorlds(t, base, worlds, 0, ck.faultKernels(t)) })
	if ck.LargeWorlds {
		// Ten worlds of 512 PEs: the same programs and faults, in a
		// world where a Chan's lanes are claimed among hundreds of PEs.
		t.Run("512", func(t *testing.T) {
			ck.needPEs(t, 512)
			ck.faultWorlds(t, base, min(10, worlds), 512, nil) // replayed with SYMCHAN_TEST_LARGE_WORLDS=1
		})
	}
}

// faultKernels is the fault worlds' kernels where the backend's PEs are
// GPUs, else nil.
func (ck *kit) faultKernels(t *testing.T) *kernels.Program {
	if ck.notGPUs(t, max(2, ck.procs())) != "" {
		return nil
	}
	prog := compile(t, "mismatch.cu", mismatchSource)
	return &prog
}

// faultWorlds runs worlds of the seeds from base on, of n PEs (0: the
// seed's size); prog as newFaultWorld takes it.
func (ck *kit) faultWorlds(t *testing.T, base uint64, worlds, n int, prog *kernels.Program) {
	for i := range worlds {
		w := newFaultWorld(base+uint64(i), ck.procs(), prog)
		if n > 0 {
			w.n, w.pe = n, w.pe*n/max(1, w.n) // the faulty PE, scaled
		}
		if w.n > ck.maxPEs() {
			continue
		}
		if problems := ck.runFaultWorld(w); len(problems) > 0 {
			t.Fatalf("world %d of %d, %v (replay: -faultseed=%d):\n%v", i+1, worlds, w, w.seed, errors.Join(problems...))
		}
	}
}

// runFaultWorld runs w and returns every broken promise it saw.
func (ck *kit) runFaultWorld(w *faultWorld) (problems []error) {
	var mu sync.Mutex
	bad := func(format string, args ...any) {
		mu.Lock()
		problems = append(problems, fmt.Errorf(format, args...))
		mu.Unlock()
	}
	pes := make([]*faultPE, w.n)
	ctx, cancel := context.WithTimeoutCause(context.Background(), faultWorldTimeout, errHang)
	defer cancel()
	start := time.Now()
	runErr := pgas.Run(ctx, pgas.Config{Backend: ck.backend(), PEs: w.n, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		f := &faultPE{w: w, pe: pe, out: make([]error, len(w.ops))}
		if err := f.setup(ctx); err != nil {
			bad("PE %d: setup: %v", pe.ID(), err)
			return err
		}
		pes[pe.ID()] = f
		return f.program(ctx, bad)
	})
	if took := time.Since(start); took > faultWorldTimeout-faultCallBound {
		bad("the world took %v", took)
	}
	if w.kind == faultNone && runErr != nil {
		bad("no fault, yet Run returned %v", runErr)
	}
	if runErr != nil && !documented(runErr) {
		bad("Run returned an undocumented error: %v", runErr)
	}
	// Every member of a collective got the same outcome; an argument
	// invalid on one member failed every member's call.
	for s, op := range w.ops {
		if !op.collective() {
			continue
		}
		if w.kind == faultBadArg && w.step == s {
			for _, f := range pes {
				if f != nil && f.reached > s && f.out[s] == nil {
					bad("op %d (%v): PE %d succeeded, though PE %d's argument was invalid", s, op, f.pe.ID(), w.pe)
				}
			}
		}
		var first *faultPE
		for _, f := range pes {
			if f == nil || f.reached <= s || (w.kind == faultBadArg && f.pe.ID() == w.pe && s == w.step) {
				continue // not there, or the member whose own argument was bad
			}
			if first == nil {
				first = f
				continue
			}
			if !sameOutcome(first.out[s], f.out[s]) {
				bad("op %d (%v): PE %d got %v; PE %d got %v", s, op, first.pe.ID(), first.out[s], f.pe.ID(), f.out[s])
			}
		}
	}
	// Handles kept past the world (of a PE that did not close its Chan).
	for _, f := range pes {
		if f == nil || f.pe.ID() == w.pe {
			continue
		}
		for name, err := range map[string]error{
			"Chan.TrySend": f.ch.TrySend((f.pe.ID()+1)%w.n, 0),
			"Chan.TryRecv": func() error { _, _, err := f.ch.TryRecv(); return err }(),
			"NewFuture":    func() error { _, err := actors.NewFuture[uint64](f.sys); return err }(),
			"Put":          pgas.Put(f.pe, f.a, []int64{1}, 0),
			"Barrier":      f.pe.Barrier(context.Background()),
			"Stream.Sync":  f.st.Sync(context.Background()),
		} {
			if !errors.Is(err, pgas.ErrWorldEnded) {
				bad("PE %d: %s after the world ended: %v, want ErrClosed", f.pe.ID(), name, err)
			}
		}
		break
	}
	return problems
}

func (f *faultPE) setup(ctx context.Context) (err error) {
	n := f.w.n
	// Two lanes: a PE hears only from its left neighbour, so on every
	// backend the Chan's lanes are claimed (a first message), racing the
	// faults (a close, which reaches PEs without a lane through their
	// control word; a PE failing or returning).
	if f.ch, err = actors.NewChan[uint64](ctx, f.pe, actors.Lanes(2)); err != nil {
		return err
	}
	if f.replyTo, err = actors.NewChan[actors.ReplyTo](ctx, f.pe, actors.Lanes(2)); err != nil {
		return err
	}
	if f.sys, err = actors.NewSystem(ctx, f.pe); err != nil {
		return err
	}
	if f.a, err = pgas.AllocZeroed[int64](ctx, f.pe, 8*n); err != nil {
		return err
	}
	if f.sig, err = pgas.AllocZeroed[uint64](ctx, f.pe, 1); err != nil {
		return err
	}
	if f.st, err = pgas.NewStream(f.pe); err != nil {
		return err
	}
	if f.b, err = pgas.AllocZeroed[int64](ctx, f.pe, 8*n); err != nil {
		return err
	}
	if f.w.prog == nil {
		return nil
	}
	g, err := f.pe.GPU()
	if err != nil {
		return err
	}
	if f.mod, err = g.Load(*f.w.prog); err != nil {
		return err
	}
	f.heap = g.HeapDescriptor()
	f.res, err = pgas.AllocZeroed[int32](ctx, f.pe, 2)
	return err
}

// program runs the ops; a PE stops at its first error, unless it is the
// argument error of a collective (the team stays usable).
func (f *faultPE) program(ctx context.Context, bad func(string, ...any)) error {
	w, me := f.w, f.pe.ID()
	for s, op := range w.ops {
		callCtx, badArg := ctx, false
		if w.kind != faultNone && w.pe == me && w.step == s {
			switch w.kind {
			case faultCancelBefore:
				c, cancel := context.WithCancel(ctx)
				cancel()
				callCtx = c
			case faultCancelDuring:
				c, cancel := context.WithTimeout(ctx, w.during)
				defer cancel()
				callCtx = c
			case faultPanic:
				panic("injected fault")
			case faultReturn:
				return nil
			case faultCloseReturn:
				_ = f.ch.Close(ctx)
				_ = f.replyTo.Close(ctx)
				return nil
			case faultBadArg:
				badArg = true
			}
		}
		f.reached = s + 1
		began := time.Now()
		err := f.step(callCtx, s, op, badArg, bad)
		f.out[s] = err
		if err == nil {
			continue
		}
		if !documented(err) {
			bad("PE %d, op %d (%v): undocumented error %v", me, s, op, err)
		}
		if errors.Is(err, errHang) {
			bad("PE %d, op %d (%v) hung: %v", me, s, op, err)
		}
		if d, ok := callCtx.Deadline(); ok && callCtx != ctx && time.Since(d) > faultCallBound && time.Since(began) > faultCallBound {
			bad("PE %d, op %d (%v) ended %v after its deadline", me, s, op, time.Since(d))
		}
		switch {
		case op.collective() && isArgErr(err) && w.kind == faultBadArg && w.step == s:
			continue // every member failed, and the team is usable
		case op.collective() && callCtx != ctx:
			// The member whose context ended goes on: its next calls must
			// not disturb the others. (After a failed point-to-point
			// round it stops: its neighbours wait for it.)
			continue
		}
		return err
	}
	return nil
}

func (f *faultPE) step(ctx context.Context, s int, op faultOp, badArg bool, bad func(string, ...any)) error {
	pe, n, me := f.pe, f.w.n, f.pe.ID()
	tm := pe.TeamWorld()
	right, left := (me+1)%n, (me+n-1)%n
	short := func(x pgas.Sym[int64], need int) pgas.Sym[int64] {
		if badArg {
			return x.Slice(0, need-1)
		}
		return x
	}
	switch op {
	case fopBarrier:
		return pe.Barrier(ctx)

	case fopAlloc:
		size := f.w.sizes[s]
		if badArg {
			size = -1
		}
		x, err := pgas.AllocZeroed[int64](ctx, pe, size)
		if err == nil {
			f.live = append(f.live, x)
		}
		return err
	case fopFree:
		x := f.live[len(f.live)-1]
		if badArg {
			return pgas.Free(ctx, pe, x.Slice(0, 0))
		}
		err := pgas.Free(ctx, pe, x)
		if err == nil {
			f.live = f.live[:len(f.live)-1]
		}
		return err
	case fopReduce:
		return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, short(f.a, 8), f.b, 8)
	case fopFCollect:
		return pgas.FCollect(ctx, tm, short(f.a, 8*n), f.b, 8)
	case fopAllToAll:
		return pgas.AllToAll(ctx, tm, short(f.a, 8*n), f.b, 8)
	case fopCollect:
		_, err := pgas.Collect(ctx, tm, short(f.a, 8*n), f.b, 8)
		return err
	case fopBroadcast:
		return pgas.Broadcast(ctx, tm, short(f.a, 8), f.b, 8, 0)
	case fopChanRound:
		to := right
		if badArg {
			to = n // out of range: fails on this PE only, which then stops
		}
		if err := f.ch.Send(ctx, to, uint64(me)<<32|f.sent); err != nil {
			return err
		}
		f.sent++
		v, from, err := f.ch.RecvFrom(ctx)
		if err != nil {
			return err
		}
		if from != left || v != uint64(left)<<32|f.got {
			bad("PE %d: message %d from PE %d: got %#x from PE %d (lost or delivered twice)", me, f.got, left, v, from)
		}
		f.got++
		return nil
	case fopFutureRound:
		fut, err := actors.NewFuture[uint64](f.sys)
		if err != nil {
			return err
		}
		to := right
		if badArg {
			to = -1
		}
		if err := f.replyTo.Send(ctx, to, fut.ReplyTo()); err != nil {
			fut.Abandon()
			return err
		}
		rt, err := f.replyTo.Recv(ctx)
		if err != nil {
			fut.Abandon()
			return err
		}
		if err := actors.Reply(f.sys, rt, rt.Gen<<16|uint64(me)); err != nil {
			fut.Abandon()
			return err
		}
		v, err := fut.Await(ctx)
		if err == nil && v != fut.ReplyTo().Gen<<16|uint64(right) {
			bad("PE %d: future %d answered %#x, want PE %d's answer", me, fut.ReplyTo().Gen, v, right)
		}
		return err
	case fopFreeRacingPut:
		broken, err := putRacingFree(ctx, pe, right, 64, badArg)
		if broken != nil {
			bad("%v", broken)
		}
		return err
	case fopStreamReduce:
		if err := pgas.ReduceAllOnStream(f.st, tm, pgas.ReduceSum, short(f.a, 8), f.b, 8); err != nil {
			return err
		}
		return f.st.Sync(ctx)
	case fopStreamRound:
		to := right
		if badArg {
			to = n // out of range: fails on this PE only, which then stops
		}
		if err := pgas.SignalOpOnStream(f.st, f.sig, 1, pgas.SignalAdd, to); err != nil {
			return err
		}
		f.rounds++
		if err := pgas.SignalWaitUntilOnStream(f.st, f.sig, pgas.CmpGE, f.rounds); err != nil {
			return err
		}
		return f.st.Sync(ctx)
	case fopKernelReduce:
		// The invalid argument is another count on one member, which the
		// device finds: every member's Sync fails alike.
		count := 8
		if badArg {
			count = 4
		}
		if err := pgas.Put(pe, f.res, []int32{-1, -1}, me); err != nil {
			return err
		}
		if err := pgas.LaunchOnStream(f.st, f.mod, "reduce_n", device.D1(1), device.D1(64), 0, f.heap, tm, f.a, f.b, count, f.res); err != nil {
			return err
		}
		if err := f.st.Sync(ctx); err != nil {
			return err
		}
		got := make([]int32, 2)
		if err := pgas.Get(pe, got, f.res, me); err != nil {
			return err
		}
		if got[0] != 0 || got[1] != 0 {
			bad("PE %d, op %d: the kernel's reduction and barrier returned %v after Sync succeeded, want [0 0]", me, s, got)
		}
		return nil
	}
	return fmt.Errorf("unknown op %v", op)
}

// documented reports whether err is one of the errors the Guarantees name.
func documented(err error) bool {
	var ce *pgas.CollectiveError
	var pe *pgas.PEError
	if errors.As(err, &ce) || errors.As(err, &pe) {
		return true
	}
	for _, e := range []error{context.Canceled, context.DeadlineExceeded, pgas.ErrTeamBroken, pgas.ErrCollectiveMismatch,
		pgas.ErrNoWriters, pgas.ErrWorldEnded, actors.ErrClosed, actors.ErrAbandoned, pgas.ErrBadSym} {
		if errors.Is(err, e) {
			return true
		}
	}
	return isArgErr(err)
}

func isArgErr(err error) bool {
	return errors.Is(err, pgas.ErrBadArg) || errors.Is(err, pgas.ErrBadSize) || errors.Is(err, pgas.ErrBadPE)
}

// sameOutcome reports whether two members' results of one collective
// agree: both succeeded, both failed with the same *CollectiveError, or
// both failed on arguments (one member's own, the others' ErrBadArg).
func sameOutcome(a, b error) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	if a == nil {
		return true
	}
	var ca, cb *pgas.CollectiveError
	if errors.As(a, &ca) != errors.As(b, &cb) {
		return false
	}
	if ca != nil {
		return ca.Error() == cb.Error()
	}
	return isArgErr(a) == isArgErr(b)
}
