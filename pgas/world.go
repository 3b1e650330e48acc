package pgas

import (
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/bootstrap"
	"github.com/symchan/symchan/pgas/driver"
)

// nodeMembers is a node team's members, shared by their handles, and
// their shape, found once for all of them.
type nodeMembers struct {
	ids   []int
	shape strided
}

// World is one run of an SPMD program: the PEs [Run] started, their
// backend and their symmetric heap.
type World struct {
	cfg Config
	tr  driver.Transport
	pt  driver.ParkTransport      // tr, where it runs Park; else nil
	ct  driver.ClaimTransport     // tr, where it claims and puts in one routine; else nil
	ut  driver.UnorderedTransport // tr, where a put-with-signal may leave out its order; else nil
	rt  driver.RegisterTransport  // tr, where it maps existing device memory into partitions; else nil
	n   int
	// span is the end of the offsets a PE's routines may name: the
	// heap's, or past it the registered buffers' where rt is set.
	span int64
	// small is the bytes of each of a team's two small-message buffers
	// on a GPU world (heap.go: smallBufBytes), 0 without them; smallOff
	// is where slot 0's lie, the allocator's end (the heap's, without
	// them).
	small, smallOff int64

	failed chan struct{} // closed when a PE fails
	// gpuAbort is why the GPU's own waits were ended (abortGPU); nil
	// while they wait as asked.
	gpuAbort atomic.Pointer[error]
	// gpuCalls are the goroutines blocked in a GPU stream's
	// synchronisation for a Stream (Stream.goGPU): the backend closes after
	// them.
	gpuCalls sync.WaitGroup
	failOnce sync.Once
	failErr  *PEError
	cancel   context.CancelCauseFunc // ends the PEs' contexts
	closed   atomic.Bool

	// Liveness (liveness.go): which local PEs have finished.
	done  []atomic.Bool
	nDone atomic.Int32
	ev    atomic.Pointer[chan struct{}]

	// ctxPEs is how many of this process's PEs run on each GPU context
	// (sharesGPU).
	ctxPEs map[*device.Context]int

	all   []int                // 0 … n-1: the world team's members
	nodes map[int]*nodeMembers // by node: the node team's members

	teamsMu sync.Mutex
	teams   map[uint64]*teamShare // live teams with members in this process
	teamIDs atomic.Uint64         // proposals for team ids (newTeamID)
}

// Ended reports whether the world has ended: its PEs' functions have
// returned and it refuses calls (ErrWorldEnded), or is about to.
func (w *World) Ended() bool { return w.closed.Load() }

// Config returns the resolved configuration of the world.
func (w *World) Config() Config { return w.cfg }

// NumPEs is the number of PEs in the world.
func (w *World) NumPEs() int { return w.n }

// LocalPEs lists the PEs whose functions run in this process, in
// increasing order: every PE on backends whose PEs share one process (host,
// cuda), this process's own on backends of one PE per process (nvshmem).
func (w *World) LocalPEs() []int { return slices.Clone(w.tr.LocalPEs()) }

func (w *World) fail(e *PEError) {
	w.failOnce.Do(func() {
		w.failErr = e
		close(w.failed)
		w.bump()
		w.cancel(e)
	})
}

// abortGrace is how long the GPUs' own waits go on after the PEs' context
// ended without a failure, so that what ends by itself then (a kernel
// actor taking its stop request) ends as asked, before abortGPU.
const abortGrace = 50 * time.Millisecond

// abortGPU ends, once, every wait the GPUs run on their own (stream-ordered
// waits, the runtime's kernels, device collectives: driver.AbortTransport)
// for cause, which Stream.Sync then reports.
func (w *World) abortGPU(cause error) {
	if w.gpuAbort.CompareAndSwap(nil, &cause) {
		if at, ok := w.tr.(driver.AbortTransport); ok {
			at.Abort()
		}
	}
}

// failureNews bounds how long learnFailure waits for a failure that
// another member already knew of to reach this process.
const failureNews = time.Second

// learnFailure reports whether this process knows which PE failed,
// waiting up to failureNews for the news: a member of another process
// that settled a collective as failed knew of a failure first, and its
// notice (driver.FailureNotifier) is on its way here.
func (w *World) learnFailure() bool {
	if isClosed(w.failed) {
		return true
	}
	t := time.NewTimer(failureNews)
	defer t.Stop()
	select {
	case <-w.failed:
		return true
	case <-t.C:
		return false
	}
}

// check returns an error for a nil PE, or ErrWorldEnded after the world ended.
func (p *PE) check() error {
	if p == nil {
		return errNilPE
	}
	return p.w.check()
}

// check returns ErrWorldEnded after the world ended.
func (w *World) check() error {
	if w.closed.Load() {
		return ErrWorldEnded
	}
	return nil
}

// abortErr is the error of a blocking call ended by ctx, by a failed PE,
// or by the world's close (a kept handle's call in flight then).
func (w *World) abortErr(ctx context.Context, what string, err error) error {
	select {
	case <-w.failed:
		return fmt.Errorf("pgas: %s aborted: %w", what, w.failErr)
	default:
	}
	if errors.Is(err, driver.ErrClosed) {
		return fmt.Errorf("pgas: %s: %w", what, ErrWorldEnded)
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("pgas: %s: %w", what, context.Cause(ctx))
	}
	return err
}

// PE is one processing element, as its own function sees it. A PE may be
// used from several goroutines at once; collective calls (allocation,
// barriers, collectives, team split) must be made by one of them at a time,
// in the same order on every PE.
type PE struct {
	w  *World
	id int

	mu     sync.Mutex // guards the heap bookkeeping and teams
	heap   allocator
	regs   allocator   // offsets past the heap for registered buffers (RegisterSymmetric)
	live   []*allocRec // this PE's live allocations, by offset
	allocN uint64      // collective allocations and frees made so far
	teams  []*Team     // this PE's live teams (world and node included)

	world, node *Team

	// On the GPU backends: a word of mapped host memory per team slot, in
	// which the team's device collectives report a mismatch (struct
	// symchan_team's notice), so that Stream.Sync learns of none without
	// a read from the GPU.
	notices     *device.HostMem
	noticeWords []uint64
	work        gpuWork      // under mu
	nLaunched   atomic.Int32 // len(work.launched)
	// The stream the PE's blocking collectives run on (collective_device.go);
	// nil off the GPU backends.
	coll *Stream

	labels    pprof.LabelSet  // "pe": its id, on its goroutines (profiles, traces)
	bgCtx     context.Context // ends when the PE's function returns
	bgCancel  context.CancelFunc
	bg        sync.WaitGroup
	helperErr atomic.Pointer[error] // the first failure of a helper: a PE.Go goroutine's panic, or Fail
}

// Go runs fn in a goroutine bound to this PE: its context is cancelled
// when the PE's function returns (or the run is cancelled or fails), and
// Run waits for fn to return before it returns. Libraries use it for
// helpers such as receive loops, so that no goroutine outlives a run.
// Call it while the PE's function runs (from it or from its helpers).
//
// A panic in fn is recovered and fails the PE, as a panic in its function
// does: the others' blocking calls end with a *PEError naming it, and Run
// returns it.
func (p *PE) Go(fn func(ctx context.Context)) {
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		defer func() {
			if r := recover(); r != nil {
				var err error = NewPanicError(r, "a goroutine of PE.Go")
				p.helperErr.CompareAndSwap(nil, &err)
				p.w.fail(&PEError{PE: p.id, Err: err}) // cancels every PE's context
			}
		}()
		pprof.Do(p.bgCtx, p.labels, fn)
	}()
}

// Fail ends the PE's part in the run with err, from any goroutine, as if
// its function had returned err: every PE's context is cancelled, the
// others' blocking calls end with a *PEError wrapping err, and Run returns
// it. It is for helpers that learn their PE can no longer work (a kernel
// actor that failed on its GPU); the PE's function should then return. A
// nil err, a nil PE or a later call after the first does nothing more.
func (p *PE) Fail(err error) {
	if p == nil || err == nil {
		return
	}
	p.helperErr.CompareAndSwap(nil, &err)
	p.w.fail(&PEError{PE: p.id, Err: err})
}

// ID is the PE's number in the world, 0 ≤ ID < NumPEs (-1 for a nil PE).
func (p *PE) ID() int {
	if p == nil {
		return -1
	}
	return p.id
}

// NumPEs is the number of PEs in the world (0 for a nil PE).
func (p *PE) NumPEs() int {
	if p == nil {
		return 0
	}
	return p.w.n
}

// World returns the world the PE belongs to (nil for a nil PE).
func (p *PE) World() *World {
	if p == nil {
		return nil
	}
	return p.w
}

// TeamWorld is the team of all PEs (SHMEM_TEAM_WORLD); nil for a nil PE,
// which Team methods report as an error.
func (p *PE) TeamWorld() *Team {
	if p == nil {
		return nil
	}
	return p.world
}

// TeamNode is the team of the PEs on this PE's node (SHMEM_TEAM_SHARED);
// nil for a nil PE.
func (p *PE) TeamNode() *Team {
	if p == nil {
		return nil
	}
	return p.node
}

// Barrier is a barrier over all PEs (barrier_all): it completes this PE's
// outstanding operations (Quiet) and returns when every PE has called it.
func (p *PE) Barrier(ctx context.Context) error { return p.TeamWorld().Barrier(ctx) }

// Sync is a barrier over all PEs that does not complete outstanding
// operations (sync_all).
func (p *PE) Sync(ctx context.Context) error { return p.TeamWorld().Sync(ctx) }

// Fence orders delivery: this PE's operations to any one PE issued before
// Fence are delivered before its later operations to that PE. It does not
// complete them (see Quiet).
func (p *PE) Fence() error {
	if err := p.check(); err != nil {
		return err
	}
	return p.w.tr.Fence(p.id)
}

// Quiet completes every outstanding operation this PE issued (NBI
// included): afterwards their effects are visible to every PE and the
// buffers of NBI calls may be reused.
func (p *PE) Quiet() error {
	if err := p.check(); err != nil {
		return err
	}
	return p.w.tr.Quiet(p.id)
}

func (p *PE) checkPE(pe int) error {
	if uint(pe) >= uint(p.w.n) {
		return badPE(pe, p.w.n)
	}
	return nil
}

// Run starts a world as cfg says and calls fn on every PE, each in its own
// goroutine, with a context that is cancelled when ctx is or when any PE
// fails. ctx also bounds the start (on backends whose PEs run in several
// processes, the processes meet there). It returns when every PE's fn has
// returned, with a *RunError holding the failing PEs' errors (each a
// *PEError; errors.As finds them) and naming alike failures once; nil
// when all succeeded. A panic in fn is recovered and reported as that PE's error.
// [Start] runs a world in the background instead. The PEs' goroutines
// (their functions and those of [PE.Go]) carry the pprof label "pe" with
// the PE's id, so that CPU profiles and execution traces tell PEs apart.
//
// When one PE fails, the blocking calls of the others (waits, barriers,
// collectives, allocations) return errors wrapping its *PEError at once;
// on backends whose PEs run in several processes (driver.FailureNotifier) the
// failure reaches the other processes too, its error as a *RemoteError.
// A barrier, collective or collective allocation that a member of the team
// will never join, because its function returned or it destroyed the
// team, ends with an error wrapping ErrCollectiveMismatch. (This is seen
// for members in this process; one in another process is waited for
// until ctx ends or the run fails.)
func Run(ctx context.Context, cfg Config, fn func(ctx context.Context, pe *PE) error) error {
	w, err := open(ctx, cfg)
	if err != nil {
		return err
	}
	return w.run(ctx, fn)
}

// open resolves cfg and opens its backend: a world ready to run.
func open(ctx context.Context, cfg Config) (*World, error) {
	cfg, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	b, err := cfg.backendOf()
	if err != nil {
		return nil, err
	}
	if !cfg.ProcessLocal {
		if err := oneWorldPerJob(cfg.Backend, b); err != nil {
			return nil, err
		}
	}
	if cfg.PEs > MaxPEs {
		return nil, fmt.Errorf("pgas: %d PEs: a world has at most %d (%s or Config.PEs)", cfg.PEs, MaxPEs, EnvPEs)
	}
	tr, err := b.Open(ctx, driver.Config{Name: cfg.Backend, PEs: cfg.PEs, HeapSize: cfg.HeapSize, Park: cfg.Blocking == BlockPark, ForceRemote: cfg.ForceRemote})
	if err != nil {
		return nil, fmt.Errorf("pgas: open %s backend: %w", cfg.Backend, err)
	}
	if n := tr.NumPEs(); n > MaxPEs {
		tr.Close()
		return nil, fmt.Errorf("pgas: the %s backend opened %d PEs; a world has at most %d", cfg.Backend, n, MaxPEs)
	}
	if tr.HeapSize() < minHeapSize {
		tr.Close()
		return nil, fmt.Errorf("pgas: %s backend heap of %d bytes is below the minimum %d", cfg.Backend, tr.HeapSize(), minHeapSize)
	}
	w := &World{cfg: cfg, tr: tr, n: tr.NumPEs(), failed: make(chan struct{}), teams: map[uint64]*teamShare{}}
	w.pt, _ = tr.(driver.ParkTransport)
	w.ct, _ = tr.(driver.ClaimTransport)
	w.ut, _ = tr.(driver.UnorderedTransport)
	w.span = tr.HeapSize()
	w.smallOff = tr.HeapSize()
	if _, ok := tr.(driver.GPUTransport); ok {
		w.small = smallBufBytes(tr.HeapSize())
		w.smallOff -= 2 * smallSlots * w.small
	}
	if rt, ok := tr.(driver.RegisterTransport); ok {
		if lo, hi, _ := rt.RegisterSpan(); hi > lo { // else it cannot register here
			w.rt, w.span = rt, hi
		}
	}
	w.cfg.PEs = w.n
	w.done = make([]atomic.Bool, w.n)
	// The world and node teams' member lists, shared by the PEs' handles:
	// per PE, a world costs O(1) of them, not O(N).
	w.all, w.nodes = make([]int, w.n), map[int]*nodeMembers{}
	for i := range w.all {
		w.all[i] = i
		nd := tr.Node(i)
		if w.nodes[nd] == nil {
			w.nodes[nd] = &nodeMembers{}
		}
		w.nodes[nd].ids = append(w.nodes[nd].ids, i)
	}
	for _, nd := range w.nodes {
		nd.shape = stridedOf(nd.ids)
	}
	ev := make(chan struct{})
	w.ev.Store(&ev)
	return w, nil
}

// run calls fn on every local PE of the opened world w and closes it when
// they have all returned (see Run).
func (w *World) run(ctx context.Context, fn func(ctx context.Context, pe *PE) error) error {
	tr, cfg := w.tr, w.cfg
	// Every failure (w.fail) cancels gctx, the PEs' context: a PE's
	// error or panic, a PE.Go goroutine's panic, another process's report.
	gctx, cancelRun := context.WithCancelCause(ctx)
	defer cancelRun(nil)
	w.cancel = cancelRun
	var g sync.WaitGroup
	local := tr.LocalPEs()
	pes := make([]*PE, len(local))
	for i, id := range local {
		pes[i] = newPE(w, id)
		pes[i].bgCtx, pes[i].bgCancel = context.WithCancel(gctx)
	}
	// The world's and the node's struct symchan_team, before any PE's
	// code can use them.
	for _, pe := range pes {
		if err := errors.Join(pe.allocNotices(), pe.newCollStream(), pe.world.writeDevice(), pe.node.writeDevice(), tr.Quiet(pe.id)); err != nil {
			w.closed.Store(true)
			return errors.Join(fmt.Errorf("pgas: %s backend: %w", cfg.Backend, err), freeNotices(pes), tr.Close())
		}
	}

	w.ctxPEs = contextPEs(pes)

	// A GPU's own waits (streams, kernels) end when a PE fails, once the
	// PEs' context has ended (gctx: every failure cancels it) and
	// abortGrace passed, and at the end.
	ended := make(chan struct{})
	stopAbort := context.AfterFunc(gctx, func() {
		grace := time.NewTimer(abortGrace)
		defer grace.Stop()
		select {
		case <-w.failed:
		case <-grace.C:
		case <-ended:
		}
		w.abortGPU(context.Cause(gctx))
	})
	defer stopAbort()

	notifier, _ := tr.(driver.FailureNotifier)
	watchDone := make(chan struct{})
	watchCtx, stopWatch := context.WithCancel(context.Background())
	if notifier != nil {
		go func() {
			defer close(watchDone)
			notifier.WatchFailures(watchCtx, func(pe int, msg string) {
				w.fail(&PEError{PE: pe, Err: &RemoteError{Msg: msg}})
			})
		}()
	} else {
		close(watchDone)
	}

	errs := make([]*PEError, len(pes))
	for i, pe := range pes {
		g.Add(1)
		go func() {
			defer g.Done()
			var err error
			defer func() {
				if r := recover(); r != nil {
					err = NewPanicError(r, "")
				}
				// The PE's helpers end with it.
				pe.bgCancel()
				pe.bg.Wait()
				if herr := pe.helperErr.Load(); herr != nil {
					err = errors.Join(err, *herr)
				}
				if err != nil && stoppedBy(gctx, err) {
					err = nil // the PE's answer to Handle.Stop, not a failure
				}
				if err != nil {
					pe := &PEError{PE: pe.id, Err: err}
					w.fail(pe)
					if notifier != nil {
						notifier.NotifyFailure(rootFailure(pe))
					}
					errs[i] = pe
				}
				// After a failure is reported, so that it, not the
				// collectives this PE leaves, is what the others see.
				pe.endTeams()
				if err == nil {
					// Its operations complete, then the waits that only it
					// could end learn that it has finished.
					_ = tr.Quiet(pe.id)
					w.finished(pe.id)
				}
			}()
			if pe.coll != nil && len(local) < w.n {
				// Every process has written its PEs' team structs
				// (writeDevice) before any PE's device collective adds
				// to them.
				if err = pe.world.sync(gctx, syncBarrier, nil); err != nil {
					return
				}
			}
			pprof.Do(gctx, pe.labels, func(ctx context.Context) { err = fn(ctx, pe) })
		}()
	}
	g.Wait()
	stopWatch()
	<-watchDone
	w.abortGPU(ErrWorldEnded) // what still waits on a GPU waits for PEs that have returned
	close(ended)
	var drained []error
	for _, pe := range pes {
		drained = append(drained, pe.drainGPU())
	}
	w.gpuCalls.Wait() // streams' synchronisations, drained by the abort
	w.closed.Store(true)
	end := []error{errors.Join(drained...), freeNotices(pes)}
	if cerr := tr.Close(); cerr != nil {
		end = append(end, fmt.Errorf("pgas: close %s backend: %w", cfg.Backend, cerr))
	}
	return newRunError(errs, end...)
}

// rootFailure is what the other processes are told of local PE e.PE's
// failure: where its error is another PE's failure (a collective that PE
// broke, a wait it ended), that PE and its error, as that PE's own
// process tells them. Told that PE e.PE failed, a process that had not
// yet heard of the first failure would name e.PE as the failing PE.
func rootFailure(e *PEError) (int, error) {
	var cause *PEError
	if !errors.As(e.Err, &cause) || cause.PE == e.PE {
		return e.PE, e.Err
	}
	var remote *RemoteError
	if errors.As(cause.Err, &remote) {
		return cause.PE, errors.New(remote.Msg)
	}
	return cause.PE, cause.Err
}

func newPE(w *World, id int) *PE {
	p := &PE{w: w, id: id, labels: pprof.Labels("pe", strconv.Itoa(id))}
	p.heap.init(ControlBytes, w.smallOff)
	node := w.nodes[w.tr.Node(id)]
	p.world = newTeam(p, worldTeamSlot, w.all, strided{stride: 1, ok: true})
	p.node = newTeam(p, nodeTeamSlot, node.ids, node.shape)
	p.world.share(worldTeamID)
	p.node.share(nodeTeamID)
	p.teams = []*Team{p.world, p.node}
	return p
}

// endTeams ends the PE's part in its live teams when its function has
// returned: see teamShare.
func (p *PE) endTeams() {
	p.mu.Lock()
	teams := p.teams
	p.teams = nil
	p.mu.Unlock()
	for _, t := range teams {
		t.end(endReturned)
	}
}

// stoppedBy reports whether err is a PE's answer to Handle.Stop: ctx, the
// PEs' context, was cancelled by Stop, and err is that cancellation or
// what it does to the calls under way — a collective the stop broke
// (ErrTeamBroken), one that a member left by returning
// (ErrCollectiveMismatch), a wait whose writers returned (ErrNoWriters).
func stoppedBy(ctx context.Context, err error) bool {
	if !errors.Is(context.Cause(ctx), ErrStopped) {
		return false
	}
	for _, e := range []error{context.Canceled, ErrStopped, ErrTeamBroken, ErrCollectiveMismatch, ErrNoWriters} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// oneWorldPerJob refuses a backend whose PEs all live in one process in a
// process that symrun started as one of several ranks: every rank would
// open a world of its own, and nothing would say so.
func oneWorldPerJob(name string, b driver.Backend) error {
	info, err := bootstrap.FromEnv()
	if err != nil || info.Source != "symrun" || info.Size < 2 {
		return nil
	}
	if mp, ok := b.(driver.MultiProcess); ok && mp.MultiProcess() {
		return nil
	}
	return fmt.Errorf("pgas: symrun started this process as rank %d of %d, but the %s backend runs all its PEs in one process (each rank would open a world of its own): run it without symrun (%s sets its PE count), or use a backend whose PEs are processes (nvshmem); Config.ProcessLocal says such a world is meant", info.Rank, info.Size, name, EnvPEs)
}

// sharesGPU reports whether some of the world's PEs in this process share
// a GPU context: their blocking device collectives meet on the host first
// (meetOnHost), and every device collective runs as one kernel
// (launchParts).
func (w *World) sharesGPU() bool {
	for _, n := range w.ctxPEs {
		if n > 1 {
			return true
		}
	}
	return false
}

// contextPEs counts pes by the GPU context they run on (none where they
// are not GPUs).
func contextPEs(pes []*PE) map[*device.Context]int {
	n := map[*device.Context]int{}
	for _, pe := range pes {
		g, err := pe.GPU()
		if err != nil {
			return nil // no GPU backend
		}
		n[g.Context()]++
	}
	return n
}
