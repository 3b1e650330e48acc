//go:build cuda

package gpuop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/pgas/driver"
)

// The agent's memory layout; kernels/symchan.cu (symchan_agent) has the
// same numbers and describes them.
const (
	ringEntries  = 32
	entryBytes   = 256
	laneBytes    = ringEntries*entryBytes + 64
	slotBytes    = 16384 + agentWords*driver.MaxFetchBytes
	slotOut      = 128
	slotIdx      = 192
	slotValues   = 4352
	slotStatus   = 12544
	slotFetch    = 16384 // a Fetch's bytes, Bytes per index reported
	agentWords   = 1024
	scratchBytes = agentWords * 9
	// Slots, and two more per lane, is the number of waits the agent
	// runs at once; more go to the Waiter, a kernel launch each (see
	// slotsFor).
	Slots = 16
	// LanePayload is the most bytes one lane entry carries.
	LanePayload = entryBytes - 64
	// LaneMax is the most bytes a lane puts or gets in one routine, as
	// consecutive entries (a put's signal rides on the last). It covers a
	// default mailbox slot (1 KiB), so that messaging needs no stream
	// work: stream work behind a resident kernel (a kernel actor) on the
	// same hardware queue would wait for that kernel to end.
	LaneMax = 8 * LanePayload
	// LaneCopyMax is the most bytes a lane copies between two places of
	// GPU memory in one routine (Copy): up to it the agent's warp beats a
	// copy-engine copy and its stream synchronisation (2 KiB a memory
	// round trip against about 10 µs).
	LaneCopyMax = 4096
	// lifetime bounds one launch of the agent, and idle ends it once
	// all its warps have had nothing to do that long: it is launched
	// again on demand, so an idle GPU runs nothing of ours (a live launch
	// slows kernels beside it: a device ping-pong's 2.16 µs became 2.49),
	// and nothing of ours holds a hardware queue for long (see Waiter).
	lifetime = 5 * time.Millisecond
	idle     = 200 * time.Microsecond
	// ahead is how long before a busy launch's lifetime ends the next
	// one is queued behind it (see ensure).
	ahead    = time.Millisecond
	ctlBytes = 64 // the launch's control words, after the scratch
)

const (
	opPut        = 1
	opGet        = 2
	opAtomic     = 3
	opCopy       = 4
	sigSet       = 1
	sigAdd       = 2
	putClaim     = 1 // in a put's kind byte: AGENT_CLAIM
	putUnordered = 2 // in a put's kind byte: AGENT_UNORDERED
)

// Agent runs the small routines of the PEs on one GPU context in a
// resident kernel (abi.Agent) that the host talks to through mapped
// pinned memory: a lane per PE for its puts, gets, atomics and signals,
// and Slots wait slots, so that a routine costs a few PCIe round trips
// instead of a kernel launch and a stream synchronisation. A launch lives
// for at most 5 ms, or until its warps have been idle for 200 µs, and the
// host launches again when it hands work to a warp that has left (see
// symchan.cu for the hand-over).
type Agent struct {
	ctx      *device.Context
	fn       *device.Function
	st       *device.Stream
	copySt   *device.Stream // the fallback's Fetch copies (see waitFallback)
	mem      *device.HostMem
	scratch  device.Ptr
	lanes    []*Lane
	fallback *Waiter

	mu    sync.Mutex    // launches
	epoch atomic.Uint64 // of the latest launch (written under mu); 0 before the first
	// renew is when (ns since born) the next launch is due to be queued
	// behind the latest one, if requests still come (written under mu).
	renew atomic.Int64
	born  time.Time
	// queuing is set while a goroutine queues the next launch (see
	// ensure); failed keeps the error of one that failed, for the next
	// ensure to return; aheadWG counts those goroutines, for Close.
	queuing atomic.Bool
	failed  atomic.Pointer[error]
	aheadWG sync.WaitGroup

	slots   chan int // free wait slots
	slotSeq []uint64 // a slot's latest request
}

// NewAgent makes the agent of ctx, whose module mod holds symchan's
// kernels, with one lane for each of lanes PEs.
func NewAgent(ctx *device.Context, mod *device.Module, lanes int) (*Agent, error) {
	fn, err := mod.Function(abi.Agent)
	if err != nil {
		return nil, err
	}
	wait, err := mod.Function(abi.Wait)
	if err != nil {
		return nil, err
	}
	nslots := slotsFor(lanes)
	a := &Agent{ctx: ctx, fn: fn, fallback: New(ctx, wait), slots: make(chan int, nslots), slotSeq: make([]uint64, nslots), born: time.Now()}
	if a.st, err = ctx.NewStream(); err != nil {
		return nil, err
	}
	if a.copySt, err = ctx.NewStream(); err != nil {
		a.st.Destroy()
		return nil, err
	}
	if a.mem, err = ctx.HostAlloc(lanes*laneBytes + nslots*slotBytes); err != nil {
		a.st.Destroy()
		a.copySt.Destroy()
		return nil, err
	}
	clear(a.mem.Bytes())
	if a.scratch, err = ctx.Alloc(int64(nslots)*scratchBytes + ctlBytes); err != nil {
		a.mem.Free()
		a.st.Destroy()
		a.copySt.Destroy()
		return nil, err
	}
	mem := a.mem.Bytes()
	for i := range lanes {
		b := mem[i*laneBytes : (i+1)*laneBytes]
		st := ringEntries * entryBytes // the status line
		a.lanes = append(a.lanes, &Lane{a: a, ring: b[:st], done: u64at(b, st), gone: u64at(b, st+8), slow: u64at(b, st+16)})
	}
	for k := range nslots {
		a.slots <- k
	}
	return a, nil
}

// slotsFor is the number of wait slots of an agent of lanes lanes: two
// per lane beyond Slots, so that each PE's receiver and sender can wait
// at once without the Waiter, whose kernel launches could queue behind a
// resident kernel (a kernel actor) on the same hardware queue and never
// start.
func slotsFor(lanes int) int { return Slots + 2*lanes }

// slowReads counts the requests the agent had to read twice (symchan.cu's
// agent_fetch): one read is the rule.
func (a *Agent) slowReads() uint64 {
	var n uint64
	for _, l := range a.lanes {
		n += atomic.LoadUint64(l.slow)
	}
	mem := a.mem.Bytes()
	for k := range a.slotSeq {
		n += atomic.LoadUint64(u64at(mem, len(a.lanes)*laneBytes+k*slotBytes+slotOut+5*8))
	}
	return n
}

// Lane is lane i's handle.
func (a *Agent) Lane(i int) *Lane { return a.lanes[i] }

// ensure launches the agent unless its current launch is running and the
// warp whose leaving epoch is at gone has not left. Callers write their
// request first (Go's atomic stores are full fences on every platform Go
// supports) and then call ensure: the warp writes gone, fences, and looks
// for requests once more, so one of the two sees the other. Every post
// calls it: the common case (the warp is there) takes no lock.
//
// While requests keep coming, ensure also queues the next launch on the
// stream ahead of the current one's end, so that it starts as that one
// ends: otherwise, once every lifetime, a request finds the warps gone and
// waits for the host to launch again (tens of µs: the round trips' p99.9
// tail). An idle agent queues nothing, and a launch that ended early
// (idle) is launched again on demand as before. The cost: stream work of
// another stream that shares the agent's hardware queue and comes after
// the queued launch waits for it too, up to a lifetime more. A goroutine
// of its own queues it: the host takes 10–17 µs to queue a launch behind
// a running one (BenchmarkAgentRelaunch), which the request that happened
// to be due would otherwise wait for.
func (a *Agent) ensure(gone *uint64) error {
	if e := a.epoch.Load(); e != 0 && atomic.LoadUint64(gone) != e {
		if err := a.failed.Load(); err != nil {
			return *err
		}
		if time.Since(a.born).Nanoseconds() >= a.renew.Load() && a.queuing.CompareAndSwap(false, true) {
			a.aheadWG.Add(1)
			go a.queueNext(e)
		}
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.epoch.Load()
	if e != 0 && atomic.LoadUint64(gone) != e {
		return nil // launched again meanwhile
	}
	return a.launch(e, time.Since(a.born).Nanoseconds())
}

// queueNext queues the launch after e, expected to start when e's
// lifetime ends (see ensure).
func (a *Agent) queueNext(e uint64) {
	defer a.aheadWG.Done()
	defer a.queuing.Store(false)
	a.mu.Lock()
	defer a.mu.Unlock()
	if e != a.epoch.Load() || time.Since(a.born).Nanoseconds() < a.renew.Load() {
		return // launched again meanwhile
	}
	if err := a.launch(e, a.renew.Load()+ahead.Nanoseconds()); err != nil {
		a.failed.Store(&err)
	}
}

// launch queues launch e+1 on the agent's stream, expected to start at
// start (ns since born). Callers hold a.mu.
func (a *Agent) launch(e uint64, start int64) error {
	a.epoch.Store(e + 1)
	a.renew.Store(start + (lifetime - ahead).Nanoseconds())
	if err := a.st.Memset(a.scratch+device.Ptr(len(a.slotSeq)*scratchBytes), 0, ctlBytes); err != nil {
		return err
	}
	return a.st.Launch(a.fn, device.D1(len(a.lanes)+len(a.slotSeq)), device.D1(32), 0,
		uint64(a.mem.Ptr()), uint64(len(a.lanes)), uint64(len(a.slotSeq)), uint64(a.scratch), e+1,
		uint64(lifetime.Nanoseconds()), uint64(idle.Nanoseconds()))
}

// spin waits until done() holds (see spin); when it checks, it calls stop
// (when not nil), keeps the agent launched (gone as for ensure) and
// reports a kernel fault.
func (a *Agent) spin(done func() bool, gone *uint64, stop func() error) error {
	return spin(done, func() error {
		if stop != nil {
			if err := stop(); err != nil {
				return err
			}
		}
		if err := a.ensure(gone); err != nil {
			return err
		}
		if _, err := a.st.Done(); err != nil {
			return fmt.Errorf("gpuop: agent kernel failed: %w", err)
		}
		return nil
	})
}

// Close waits for the agent's launches to end (at most two lifetimes: one
// may be queued behind the current one) and
// frees its memory; no routine may be in progress.
func (a *Agent) Close() error {
	a.aheadWG.Wait()
	errs := []error{a.st.Sync()}
	errs = append(errs, a.fallback.Close(), a.ctx.Free(a.scratch), a.mem.Free(), a.st.Destroy(), a.copySt.Destroy())
	return errors.Join(errs...)
}

// Wait runs req over the words at address words on the agent, or on the
// fallback Waiter when every slot is busy; as Waiter.Wait. A set larger
// than a slot holds runs in windows (waitWindows).
func (a *Agent) Wait(ctx context.Context, abort <-chan struct{}, words device.Ptr, req driver.WaitRequest) (driver.WaitResult, error) {
	var k int
	select {
	case k = <-a.slots:
	default:
		return a.waitFallback(ctx, abort, words, req)
	}
	run := a.onSlot
	if req.N > agentWords {
		run = a.waitWindows
	}
	r, reusable, err := run(ctx, abort, k, words, req)
	// The slot goes back once its request is answered; after an error
	// (a launch that failed, a faulted kernel) it is not used again, as
	// its warp may still be on the request.
	if reusable {
		a.slots <- k
	}
	return r, err
}

// waitWindows runs req, a wait over more words than a slot holds, on slot
// k a window of at most agentWords words at a time, so that a wait over a
// large world's words (a mailbox of 1024 PEs × 16 slots waits on 16384)
// stays on the agent: the fallback Waiter's launches can queue behind a
// resident kernel actor. An all-wait waits for each window in turn (as
// NVSHMEM's wait_until_all loops over its words: the words a wait is for
// only move towards the condition); an any- or some-wait tests every
// window in a pass, an any-wait's from Start round to Start, until a pass
// finds some, pausing between passes (1 µs, doubling up to 64 µs) and
// ending with ctx or abort. It reports as onSlot.
func (a *Agent) waitWindows(ctx context.Context, abort <-chan struct{}, k int, words device.Ptr, req driver.WaitRequest) (driver.WaitResult, bool, error) {
	size, f := req.Kind.Size(), req.Fetch
	// The windows in pass order: [lo, hi) ranges.
	var wins [][2]int
	split := func(lo, hi int) {
		for ; lo < hi; lo += agentWords {
			wins = append(wins, [2]int{lo, min(lo+agentWords, hi)})
		}
	}
	start := 0
	if req.Mode == driver.WaitAny && req.Start > 0 && req.Start < req.N {
		start = req.Start
	}
	split(start, req.N)
	split(0, start)
	// window is the request for words [lo, hi); reported indices and
	// fetched bytes go after the first got.
	window := func(lo, hi, got int, test bool) (device.Ptr, driver.WaitRequest) {
		sub := req
		sub.Test, sub.Off, sub.N, sub.Start = test, req.Off+int64(lo)*size, hi-lo, 0
		if req.Status != nil {
			sub.Status = req.Status[lo:hi]
		}
		if req.Values != nil {
			sub.Values = req.Values[lo:hi]
		}
		if req.Mode == driver.WaitSome {
			sub.Indices = req.Indices[got:]
		}
		if f.Bytes > 0 {
			sub.Fetch = driver.Fetch{Off: f.Off + int64(lo)*f.Stride, Stride: f.Stride, Bytes: f.Bytes, Into: f.Into[got*f.Bytes:]}
		}
		return words + device.Ptr(int64(lo)*size), sub
	}
	if req.Mode == driver.WaitAll {
		for _, w := range wins {
			at, sub := window(w[0], w[1], 0, req.Test)
			r, reusable, err := a.onSlot(ctx, abort, k, at, sub)
			if err != nil || r.N == 0 { // failed, or a test that found the window unsatisfied
				return driver.WaitResult{}, reusable, err
			}
		}
		return driver.WaitResult{N: 1}, true, nil
	}
	for pause := time.Microsecond; ; pause = min(2*pause, 64*time.Microsecond) {
		got := 0
		for _, w := range wins {
			at, sub := window(w[0], w[1], got, true)
			r, reusable, err := a.onSlot(ctx, abort, k, at, sub)
			if err != nil {
				return driver.WaitResult{}, reusable, err
			}
			if req.Mode == driver.WaitAny && r.N != driver.NoIndex {
				return driver.WaitResult{N: w[0] + r.N, Word: r.Word}, true, nil
			}
			if req.Mode == driver.WaitSome {
				for i := range r.N {
					req.Indices[got+i] += w[0]
				}
				got += r.N
			}
		}
		if got > 0 || req.Test {
			if req.Mode == driver.WaitAny {
				got = driver.NoIndex
			}
			return driver.WaitResult{N: got}, true, nil
		}
		select {
		case <-ctx.Done():
			return driver.WaitResult{}, true, ctx.Err()
		case <-abort:
			return driver.WaitResult{}, true, ErrAborted
		case <-time.After(pause):
		}
	}
}

// onSlot runs req (at most agentWords words) on wait slot k. It also
// reports whether the slot may be used again: not after an error that
// may leave its warp on the request.
func (a *Agent) onSlot(ctx context.Context, abort <-chan struct{}, k int, words device.Ptr, req driver.WaitRequest) (driver.WaitResult, bool, error) {
	slot := a.mem.Bytes()[len(a.lanes)*laneBytes+k*slotBytes:][:slotBytes]
	rq := unsafe.Slice((*uint64)(unsafe.Pointer(&slot[0])), 16)
	out := unsafe.Slice((*uint64)(unsafe.Pointer(&slot[slotOut])), 8)
	hasValues, hasStatus := stage(slot[slotValues:], slot[slotStatus:], req)
	flags := uint64(0)
	if hasValues {
		flags |= 1
	}
	if hasStatus {
		flags |= 2
	}
	var faddr, fstride uint64
	if f := req.Fetch; f.Bytes > 0 {
		flags |= 4
		faddr, fstride = uint64(words)-uint64(req.Off)+uint64(f.Off), uint64(f.Stride)
		rq[9], rq[10], rq[11] = faddr, fstride, uint64(f.Bytes)
	}
	rq[1], rq[2], rq[3], rq[4], rq[5], rq[6] = uint64(words), uint64(req.N), spec(req), req.Value, flags, uint64(req.Start)
	// answered reports whether out holds the answer to request seq whole,
	// and keeps it in got: the words its hash vouched for.
	var got answer
	answered := func(seq uint64) bool {
		if atomic.LoadUint64(&out[0]) != seq {
			return false
		}
		got = answer{seq: seq, state: atomic.LoadUint64(&out[1]), res: atomic.LoadUint64(&out[2]),
			word: atomic.LoadUint64(&out[3]), hash: atomic.LoadUint64(&out[6])}
		nidx, cnt := carried(&req, got.state, got.res)
		sealed := answerSealed(got.state, nidx, cnt, req.Fetch.Bytes, faddr, fstride)
		if sealed {
			got.idx = unsafe.Slice((*uint32)(unsafe.Pointer(&slot[slotIdx])), nidx)
			got.data = unsafe.Slice((*uint64)(unsafe.Pointer(&slot[slotFetch])), cnt*req.Fetch.Bytes/8)
		}
		return got.whole(sealed)
	}
	var cause error
	for {
		a.slotSeq[k]++
		seq := a.slotSeq[k]
		rq[7] = entryHash(rq[:8], seq)
		atomic.StoreUint64(&rq[0], seq)
		if err := a.ensure(&out[4]); err != nil {
			return driver.WaitResult{}, false, err
		}
		err := a.spin(func() bool { return answered(seq) }, &out[4],
			interrupt(ctx, abort, &cause, func() { atomic.StoreUint64(&rq[8], seq) }))
		if err != nil {
			return driver.WaitResult{}, false, err
		}
		switch got.state {
		case 3: // the launch ended first: hand the wait to the next one
			if cause != nil {
				return driver.WaitResult{}, true, cause
			}
			continue
		case 2:
			return driver.WaitResult{}, true, cause
		}
		r := result(req, got.res, got.word, slot[slotIdx:])
		if f := req.Fetch; f.Bytes > 0 {
			driver.Reported(&req, r, func(k, _ int) {
				copy(f.Into[k*f.Bytes:(k+1)*f.Bytes], slot[slotFetch+k*f.Bytes:])
			})
		}
		return r, true, nil
	}
}

// waitFallback runs req on the fallback Waiter, then reads its Fetch's
// bytes with copies (the Waiter's kernel has ended: what it saw is
// visible to them) on a stream of their own: a context-wide copy would
// wait for every kernel of the context, resident kernel actors included.
func (a *Agent) waitFallback(ctx context.Context, abort <-chan struct{}, words device.Ptr, req driver.WaitRequest) (driver.WaitResult, error) {
	r, err := a.fallback.Wait(ctx, abort, words, req)
	f := req.Fetch
	if err != nil || f.Bytes == 0 {
		return r, err
	}
	base := words - device.Ptr(req.Off) + device.Ptr(f.Off)
	driver.Reported(&req, r, func(k, i int) {
		if err == nil {
			err = a.copySt.CopyOut(f.Into[k*f.Bytes:(k+1)*f.Bytes], base+device.Ptr(int64(i)*f.Stride))
		}
	})
	if err == nil {
		err = a.copySt.Sync()
	}
	return r, err
}

// Lane runs one PE's small routines in order on the agent. Its methods
// must not be called concurrently (the PE's lock serialises them).
//
// The lane and the PE's stream are two queues; Lane keeps the PE's
// routines in program order across them: before stream work the backend
// calls StreamOp, which waits for the lane's routines, and before a lane
// routine after stream work the lane calls the drain function given to
// Bind, which waits for the stream. Fence is then free.
type Lane struct {
	a          *Agent
	ring       []byte
	done, gone *uint64
	slow       *uint64 // see Agent.slowReads
	issued     uint64
	dirty      bool         // stream work since the last drain
	drain      func() error // completes the PE's stream work
}

// Bind sets the function that completes the PE's stream work.
func (l *Lane) Bind(drain func() error) { l.drain = drain }

// StreamOp is called before the PE queues stream work: it waits for the
// lane's routines.
func (l *Lane) StreamOp() error {
	l.dirty = true
	return l.Quiet()
}

// StreamSynced is called after the PE's stream was synchronised: the next
// routine need not wait for it again.
func (l *Lane) StreamSynced() { l.dirty = false }

// Quiet waits until every routine the lane was given has completed.
func (l *Lane) Quiet() error { return l.wait(l.issued) }

func (l *Lane) wait(seq uint64) error {
	if atomic.LoadUint64(l.done) >= seq {
		return nil
	}
	return l.a.spin(func() bool { return atomic.LoadUint64(l.done) >= seq }, l.gone, nil)
}

// post hands the lane a routine (the header words after the sequence and
// the payload) and returns its entry.
func (l *Lane) post(code, addr, sig, operand, cond, swap uint64, payload []byte) ([]uint64, uint64, error) {
	if l.dirty {
		if err := l.drain(); err != nil {
			return nil, 0, err
		}
		l.dirty = false
	}
	seq := l.issued + 1
	if seq > ringEntries {
		if err := l.wait(seq - ringEntries); err != nil { // the entry's last use
			return nil, 0, err
		}
	}
	e := unsafe.Slice((*uint64)(unsafe.Pointer(&l.ring[int(seq%ringEntries)*entryBytes])), entryBytes/8)
	e[1], e[2], e[3], e[4], e[5], e[6] = code|uint64(len(payload))<<32, addr, sig, operand, cond, swap
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&e[8])), LanePayload), payload)
	// The hash covers the header and a put's payload words (agent_fetch).
	hashed := 8
	if code&0xff == opPut {
		hashed += (len(payload) + 7) / 8
	}
	e[7] = entryHash(e[:hashed], seq)
	atomic.StoreUint64(&e[0], seq)
	l.issued = seq
	return e, seq, l.a.ensure(l.gone)
}

// Put writes src (at most LaneMax bytes) to dst, any memory the GPU
// addresses, and then, with signal, updates the word at sig by v with op.
// It returns once src may be reused; Quiet completes it. A src of more
// than LanePayload bytes takes several entries, the signal on the last:
// the agent runs a lane's entries in order and fences each before the
// next, so the signal follows all of the data.
func (l *Lane) Put(dst device.Ptr, src []byte, signal bool, sig device.Ptr, v uint64, op driver.SigOp) error {
	return l.put(dst, src, signal, sig, v, op, 0)
}

// PutSignalUnordered is Put with a signal, without the fence between the
// last entry's data and the signal (driver.UnorderedTransport): a reader
// that sees the signal may read older bytes at dst for a while.
func (l *Lane) PutSignalUnordered(dst device.Ptr, src []byte, sig device.Ptr, v uint64, op driver.SigOp) error {
	return l.put(dst, src, true, sig, v, op, putUnordered<<16)
}

func (l *Lane) put(dst device.Ptr, src []byte, signal bool, sig device.Ptr, v uint64, op driver.SigOp, kind uint64) error {
	if len(src) > LaneMax {
		return fmt.Errorf("gpuop: lane put of %d bytes (at most %d)", len(src), LaneMax)
	}
	sigCode := uint64(0)
	switch {
	case !signal:
	case op == driver.SignalAdd:
		sigCode = sigAdd << 8
	default:
		sigCode = sigSet << 8
	}
	for at := 0; ; at += LanePayload {
		n := min(LanePayload, len(src)-at)
		last := at+n == len(src)
		code, s, sv := uint64(opPut), uint64(0), uint64(0)
		if last {
			code, s, sv = code|sigCode|kind, uint64(sig), v
		}
		if _, _, err := l.post(code, uint64(dst)+uint64(at), s, sv, 0, 0, src[at:at+n]); err != nil || last {
			return err
		}
	}
}

// Get reads len(dst) bytes (at most LaneMax) from src into dst: the
// entries are posted together and read back once the last is done.
func (l *Lane) Get(dst []byte, src device.Ptr) error {
	if len(dst) > LaneMax {
		return fmt.Errorf("gpuop: lane get of %d bytes (at most %d)", len(dst), LaneMax)
	}
	var es [LaneMax / LanePayload][]uint64
	var seq uint64
	nent := 0
	for at := 0; at < len(dst) || nent == 0; at += LanePayload {
		n := min(LanePayload, len(dst)-at)
		e, s, err := l.post(opGet|uint64(n)<<32, uint64(src)+uint64(at), 0, 0, 0, 0, nil)
		if err != nil {
			return err
		}
		es[nent], seq = e, s
		nent++
	}
	if err := l.wait(seq); err != nil {
		return err
	}
	for i, e := range es[:nent] {
		at := i * LanePayload
		copy(dst[at:], unsafe.Slice((*byte)(unsafe.Pointer(&e[8])), min(LanePayload, len(dst)-at)))
	}
	return nil
}

// Copy copies n bytes (at most LaneCopyMax) from src to dst, both memory
// the GPU addresses (its own, or a peer's), and returns once they are
// in dst.
func (l *Lane) Copy(dst, src device.Ptr, n int) error {
	if n < 0 || n > LaneCopyMax {
		return fmt.Errorf("gpuop: lane copy of %d bytes (0 … %d)", n, LaneCopyMax)
	}
	_, seq, err := l.post(opCopy|uint64(n)<<32, uint64(dst), uint64(src), 0, 0, 0, nil)
	if err == nil {
		err = l.wait(seq)
	}
	return err
}

// ClaimPut compare-and-swaps the 8-byte word at sig from cond to claim
// and, only if it held cond, writes src (at most LanePayload bytes) to dst
// and then sets the word to v, the data before the signal: one routine on
// the GPU, with no round trip to the host between the claim and the data.
// It returns the word's old value once all of it is done. A larger src
// is refused with an error wrapping errors.ErrUnsupported, having done
// nothing.
func (l *Lane) ClaimPut(dst device.Ptr, src []byte, sig device.Ptr, cond, claim, v uint64) (uint64, error) {
	if len(src) > LanePayload {
		return 0, fmt.Errorf("gpuop: claimed put of %d bytes (at most %d): %w", len(src), LanePayload, errors.ErrUnsupported)
	}
	e, seq, err := l.post(opPut|sigSet<<8|putClaim<<16, uint64(dst), uint64(sig), v, cond, claim, src)
	if err == nil {
		err = l.wait(seq)
	}
	if err != nil {
		return 0, err
	}
	return atomic.LoadUint64(&e[8]), nil
}

// Atomic performs op of kind k on the word at addr and returns the old
// value.
func (l *Lane) Atomic(addr device.Ptr, k driver.Kind, op driver.AtomicOp, operand, cond uint64) (uint64, error) {
	e, seq, err := l.post(opAtomic|uint64(k)<<16|uint64(op)<<24, uint64(addr), 0, operand, cond, 0, nil)
	if err == nil {
		err = l.wait(seq)
	}
	if err != nil {
		return 0, err
	}
	old := atomic.LoadUint64(&e[8])
	if k.Size() == 4 {
		old &= 0xffffffff
	}
	return old, nil
}
