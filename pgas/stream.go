package pgas

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/driver"
)

// A Stream orders a PE's routines with the kernels it queues, as NVSHMEM's
// *_on_stream routines do: each *OnStream function checks its arguments,
// enqueues its routine and returns without waiting for it; the stream runs
// its routines and kernels in order, each once the earlier ones are
// complete. On the GPU backends it is a CUDA stream of the PE's GPU
// (Device; kernels queue on it with LaunchOnStream, and a loop of kernels
// and routines on it can be captured into a CUDA graph and replayed). On
// other backends the same routines run in order on a goroutine of the PE,
// so that programs stay portable.
//
// Sources and destinations are symmetric arrays (this PE's copy for the
// local side): their memory must stay allocated, and a source unchanged,
// until the routine has run (Sync). A routine that fails fails the
// stream: later ones are skipped and Sync returns the error. A collective
// whose members passed different arguments fails the stream, with an error
// wrapping ErrCollectiveMismatch that names the arguments and the members,
// on every member; on a GPU it moved no data, and the routines after it
// still run. A Stream is used by one goroutine at a time.
type Stream struct {
	p      *PE
	ds     driver.Stream // GPU backends
	host   *hostStream   // others
	closed bool
	// GPU backends: the teams whose collectives ran on the stream (its
	// own, and kernels' given the team) since the last Sync, which reads
	// whether their members differed; and the error that failed it.
	teams  []*Team
	failed error
	// GPU backends: Sync's goroutines still blocked in the stream's own
	// synchronisation (a Sync that returned with its context or a
	// failure leaves one); the stream is released after them.
	inflight sync.WaitGroup
	pending  atomic.Int32 // inflight's count
	// GPU backends: pinned memory that host copies go through
	// (streamhost.go), in use by queued work and free.
	stageUsed []staged
	stageFree []*device.HostMem
}

// NewStream makes a stream for PE p.
func NewStream(p *PE) (*Stream, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	s := &Stream{p: p}
	if st, ok := p.w.tr.(driver.StreamTransport); ok {
		ds, err := st.NewStream(p.id)
		if err != nil {
			return nil, fmt.Errorf("NewStream: %w", err)
		}
		s.ds = ds
	} else {
		s.host = newHostStream()
	}
	p.trackStream(s)
	return s, nil
}

// Device is the stream's CUDA stream on the GPU backends, for kernels and
// graph capture, and nil on others.
func (s *Stream) Device() *device.Stream {
	if s == nil || s.ds == nil {
		return nil
	}
	return s.ds.Device()
}

// Sync waits until everything enqueued on s so far has run, and returns
// the error of the routine that failed the stream, if one did. It also
// returns when ctx ends or a PE of the world fails (a stream waiting for a
// signal that PE would have sent never finishes), with a *PEError naming
// that PE. On the GPU backends the world's failure, the end of the PEs'
// context and the world's end also end every wait of the stream on the
// GPU (driver.AbortTransport), so that its work drains: what routines and
// collectives after an ended wait leave in memory is then undefined.
func (s *Stream) Sync(ctx context.Context) error {
	if err := s.usable(); err != nil {
		return err
	}
	if s.ds == nil {
		return s.host.sync(ctx)
	}
	done := make(chan error, 1)
	if finished, err := s.poll(ctx); finished {
		done <- err
	} else {
		s.goGPU(func() { done <- s.ds.Sync() })
	}
	select {
	case err := <-done:
		// A wait that the world's failure or end cut short let the
		// stream drain: that, not what the stream did after it, is the
		// answer.
		cause := s.p.w.gpuAbort.Load()
		s.unstage(err == nil && cause == nil)
		if cause != nil {
			return s.p.w.abortErr(ctx, "Stream.Sync", fmt.Errorf("pgas: Stream.Sync: the stream's waits were ended: %w", *cause))
		}
		if err == nil {
			err = s.teamsAgreed()
		}
		if err == nil {
			err = s.p.launchMismatch()
		}
		return err
	case <-ctx.Done():
		return fmt.Errorf("pgas: Stream.Sync: %w", context.Cause(ctx))
	case <-s.p.w.failed:
		return s.p.w.abortErr(ctx, "Stream.Sync", nil)
	}
}

// pollFor is how long a wait for a GPU stream polls it from the calling
// goroutine before it blocks in the driver on a goroutine of its own: a
// collective or a short kernel ends sooner than that goroutine would be
// woken (on four H100s small blocking collectives took mostly 0.74–0.92×
// the time, bench/results/2026-11-28-nvidia-h100-x4-poll-*).
const pollFor = 200 * time.Microsecond

// poll polls s's GPU stream until its work has completed (finished, with
// the stream's error), ctx ends, the world fails or pollFor passes.
func (s *Stream) poll(ctx context.Context) (finished bool, err error) {
	st := s.Device()
	if st == nil {
		return false, nil
	}
	w := s.p.w
	start := time.Now()
	for {
		done, err := st.Done()
		if done || err != nil {
			return true, err
		}
		if ctx.Err() != nil || isClosed(w.failed) || time.Since(start) > pollFor {
			return false, nil
		}
	}
}

// watch has Sync check team t's device collectives.
func (s *Stream) watch(t *Team) {
	if !slices.Contains(s.teams, t) {
		s.teams = append(s.teams, t)
	}
}

// teamsAgreed reports a device collective of a watched team, run since
// the last Sync, whose members' arguments differed; it fails s, and a
// failed s reports that error from then on.
func (s *Stream) teamsAgreed() error {
	for _, t := range s.teams {
		if s.failed != nil {
			break
		}
		s.failed = t.deviceMismatch()
	}
	s.teams = s.teams[:0]
	return s.failed
}

// Close syncs s and releases the stream.
func (s *Stream) Close(ctx context.Context) error {
	if err := s.usable(); err != nil {
		return err
	}
	err := s.Sync(ctx)
	s.closed = true
	return errors.Join(err, s.release())
}

// goGPU runs fn, which blocks on s's GPU stream, on a goroutine that s's
// release and the world's close wait for: the CUDA stream and its
// context must outlive the call. A wait on the GPU that a failed world
// cut short (abortGPU) lets it return.
func (s *Stream) goGPU(fn func()) {
	w := s.p.w
	w.gpuCalls.Add(1)
	s.inflight.Add(1)
	s.pending.Add(1)
	go func() {
		defer w.gpuCalls.Done()
		defer s.inflight.Done()
		defer s.pending.Add(-1)
		fn()
	}()
}

// release releases the stream: on the GPU backends once every goroutine
// of goGPU has returned, in the background if one has not, so that Close
// does not wait for the GPU beyond its Sync.
func (s *Stream) release() error {
	s.p.untrackStream(s)
	if s.ds == nil {
		s.host.close()
		return nil
	}
	ds := s.ds
	if s.pending.Load() == 0 {
		return errors.Join(ds.Close(), s.freeStaged())
	}
	w := s.p.w
	w.gpuCalls.Add(1)
	go func() {
		defer w.gpuCalls.Done()
		s.inflight.Wait()
		_ = errors.Join(ds.Close(), s.freeStaged()) // nobody is left to tell
	}()
	return nil
}

func (s *Stream) usable() error {
	if s == nil {
		return fmt.Errorf("%w: nil Stream", ErrBadArg)
	}
	if s.closed {
		return fmt.Errorf("%w: the Stream is closed", ErrBadArg)
	}
	return s.p.check()
}

// PutOnStream enqueues on s a copy of src, this PE's copy of a symmetric
// array, into dst on PE pe (nvshmemx_putmem_on_stream).
func PutOnStream[T any](s *Stream, dst, src Sym[T], pe int) error {
	return copyOnStream(s, dst, pe, src, s.pe(), 1, 1, src.n, "PutOnStream")
}

// GetOnStream enqueues on s a copy of src on PE pe into dst, this PE's
// copy of a symmetric array (nvshmemx_getmem_on_stream).
func GetOnStream[T any](s *Stream, dst, src Sym[T], pe int) error {
	return copyOnStream(s, dst, s.pe(), src, pe, 1, 1, dst.n, "GetOnStream")
}

// IPutOnStream enqueues on s a strided put: n elements of src (this PE's
// copy), taken at stride sst, into dst on PE pe at stride tst (on the GPU
// backends a copy per element).
func IPutOnStream[T any](s *Stream, dst, src Sym[T], tst, sst, n, pe int) error {
	return copyOnStream(s, dst, pe, src, s.pe(), tst, sst, n, "IPutOnStream")
}

// IGetOnStream enqueues on s a strided get: n elements of src on PE pe,
// taken at stride sst, into dst (this PE's copy) at stride tst (on the GPU
// backends a copy per element).
func IGetOnStream[T any](s *Stream, dst, src Sym[T], tst, sst, n, pe int) error {
	return copyOnStream(s, dst, s.pe(), src, pe, tst, sst, n, "IGetOnStream")
}

// PutSignalOnStream enqueues on s a put of src (this PE's copy) into dst
// on PE pe, then the update of sig's first word there with op and val
// (nvshmemx_putmem_signal_on_stream): a PE that observes the update sees
// the data. The signal word must not overlap the data.
func PutSignalOnStream[T any](s *Stream, dst, src Sym[T], sig Sym[uint64], val uint64, op SigOp, pe int) error {
	const name = "PutSignalOnStream"
	if err := s.usable(); err != nil {
		return err
	}
	p := s.p
	if err := checkSignal(p, name, sig, op, pe); err != nil {
		return err
	}
	if err := checkCopy(p, dst, pe, src, p.id, 1, 1, src.n, name); err != nil {
		return err
	}
	nb := src.Bytes()
	if err := signalApart(name, sig, dst.off, nb); err != nil {
		return err
	}
	if s.ds != nil {
		return s.ds.PutSignal(pe, dst.off, src.off, nb, sig.off, val, op)
	}
	return s.host.enqueue(func(context.Context) error { return PutSignalSym(p, dst, src, sig, val, op, pe) })
}

// SignalOpOnStream enqueues on s the update of sig's first word on PE pe
// with op and val (nvshmemx_signal_op_on_stream).
func SignalOpOnStream(s *Stream, sig Sym[uint64], val uint64, op SigOp, pe int) error {
	if err := s.usable(); err != nil {
		return err
	}
	p := s.p
	if err := checkSignal(p, "SignalOpOnStream", sig, op, pe); err != nil {
		return err
	}
	if s.ds != nil {
		return s.ds.PutSignal(pe, sig.off, 0, 0, sig.off, val, op)
	}
	return s.host.enqueue(func(context.Context) error { return SignalOp(p, sig, val, op, pe) })
}

// SignalWaitUntilOnStream makes s's later work wait until sig's first word
// on this PE compares as cmp says to val
// (nvshmemx_signal_wait_until_on_stream).
func SignalWaitUntilOnStream(s *Stream, sig Sym[uint64], cmp Cmp, val uint64) error {
	if err := s.usable(); err != nil {
		return err
	}
	if !cmp.Valid() {
		return fmt.Errorf("%w: SignalWaitUntilOnStream: comparison %v", ErrBadArg, cmp)
	}
	if err := s.p.checkRMA(sig.rec, s.p.id); err != nil {
		return fmt.Errorf("SignalWaitUntilOnStream: %w", err)
	}
	if sig.n < 1 {
		return fmt.Errorf("%w: SignalWaitUntilOnStream: empty signal Sym", ErrBadSize)
	}
	if s.ds != nil {
		return s.ds.Wait(sig.off, cmp, val)
	}
	p := s.p
	return s.host.enqueue(func(ctx context.Context) error {
		_, err := SignalWaitUntil(ctx, p, sig, cmp, val)
		return err
	})
}

// AtomicFetchAddOnStream enqueues on s an atomic add of v to dst's first
// element on PE pe; the previous value goes to fetch's first element (this
// PE's copy) unless fetch is the zero Sym.
func AtomicFetchAddOnStream[T Word](s *Stream, fetch, dst Sym[T], v T, pe int) error {
	return atomicOnStream(s, fetch, dst, pe, driver.OpFetchAdd, v, 0, "AtomicFetchAddOnStream")
}

// AtomicCompareSwapOnStream enqueues on s a store of v into dst's first
// element on PE pe if it equals cond; the previous value goes to fetch
// unless fetch is the zero Sym.
func AtomicCompareSwapOnStream[T Word](s *Stream, fetch, dst Sym[T], cond, v T, pe int) error {
	return atomicOnStream(s, fetch, dst, pe, driver.OpCompareSwap, v, cond, "AtomicCompareSwapOnStream")
}

// AtomicSwapOnStream enqueues on s an atomic store of v into dst's first
// element on PE pe; the previous value goes to fetch unless fetch is the
// zero Sym.
func AtomicSwapOnStream[T Word](s *Stream, fetch, dst Sym[T], v T, pe int) error {
	return atomicOnStream(s, fetch, dst, pe, driver.OpSwap, v, 0, "AtomicSwapOnStream")
}

// AtomicFetchOnStream enqueues on s an atomic load of dst's first element
// on PE pe into fetch.
func AtomicFetchOnStream[T Word](s *Stream, fetch, dst Sym[T], pe int) error {
	if fetch.rec == nil {
		return fmt.Errorf("%w: AtomicFetchOnStream: the zero Sym to fetch into", ErrBadArg)
	}
	return atomicOnStream(s, fetch, dst, pe, driver.OpFetch, 0, 0, "AtomicFetchOnStream")
}

// atomicOnStream checks an atomic's arguments and enqueues it.
func atomicOnStream[T Word](s *Stream, fetch, dst Sym[T], pe int, op driver.AtomicOp, operand, cond T, name string) error {
	if err := s.usable(); err != nil {
		return err
	}
	p := s.p
	if err := p.checkRMA(dst.rec, pe); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if dst.n < 1 {
		return fmt.Errorf("%w: %s: empty Sym", ErrBadSize, name)
	}
	resultOff := int64(-1)
	if fetch.rec != nil {
		if err := p.checkRMA(fetch.rec, p.id); err != nil {
			return fmt.Errorf("%s's fetch: %w", name, err)
		}
		if fetch.n < 1 {
			return fmt.Errorf("%w: %s: empty fetch Sym", ErrBadSize, name)
		}
		if sizeOf[T]() != 8 {
			// The stream's atomic stores the old value as 8 bytes.
			return fmt.Errorf("%w: %s: a stream's atomic fetches 8-byte words only, not %d-byte ones", ErrBadArg, name, sizeOf[T]())
		}
		resultOff = fetch.off
	}
	if s.ds != nil {
		return s.ds.Atomic(pe, dst.off, kindOf[T](), op, bitsOf(operand), bitsOf(cond), resultOff)
	}
	return s.host.enqueue(func(context.Context) error {
		old, err := atomicOp(p, dst, pe, op, operand, cond)
		if err != nil || fetch.rec == nil {
			return err
		}
		return Put(p, fetch, []T{old}, p.id)
	})
}

// copyOnStream checks a contiguous or strided copy between symmetric
// arrays, as copySym does, and enqueues it.
func copyOnStream[T any](s *Stream, dst Sym[T], dstPE int, src Sym[T], srcPE int, tst, sst, n int, name string) error {
	if err := s.usable(); err != nil {
		return err
	}
	p := s.p
	if err := checkCopy(p, dst, dstPE, src, srcPE, tst, sst, n, name); err != nil || n == 0 {
		return err
	}
	if s.ds == nil {
		return s.host.enqueue(func(context.Context) error { return copySym(p, dst, dstPE, src, srcPE, tst, sst, n, name) })
	}
	return copySpans(dst.off, src.off, tst, sst, n, sizeOf[T](), func(d, sr, b int64) error {
		return s.ds.Copy(dstPE, d, srcPE, sr, b)
	})
}

// pe is the stream's PE's number (-1 for a nil stream, which usable
// refuses before it matters).
func (s *Stream) pe() int {
	if s == nil {
		return -1
	}
	return s.p.id
}

// A hostStream runs a PE's stream routines in order on a goroutine of its
// own, where the backend has no GPU streams.
type hostStream struct {
	mu      sync.Mutex
	queue   []func(context.Context) error
	running bool
	idle    *sync.Cond // signalled when the queue empties
	err     error      // the first routine's error; later ones are skipped
	ctx     context.Context
	stop    context.CancelFunc
}

func newHostStream() *hostStream {
	h := &hostStream{}
	h.idle = sync.NewCond(&h.mu)
	h.ctx, h.stop = context.WithCancel(context.Background())
	return h
}

// enqueue adds op to the queue, starting the runner when it is idle. It
// cannot fail; it returns an error, nil, as driver.Stream's methods do, so
// that each routine ends the same way on both kinds of stream.
func (h *hostStream) enqueue(op func(context.Context) error) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.queue = append(h.queue, op)
	if !h.running {
		h.running = true
		go h.run()
	}
	return nil
}

// run runs the queue until it is empty.
func (h *hostStream) run() {
	h.mu.Lock()
	for len(h.queue) > 0 {
		op := h.queue[0]
		h.queue[0] = nil
		h.queue = h.queue[1:]
		failed := h.err != nil
		h.mu.Unlock()
		var err error
		if !failed {
			err = op(h.ctx)
		}
		h.mu.Lock()
		if err != nil && h.err == nil {
			h.err = err
		}
	}
	h.running = false
	h.idle.Broadcast()
	h.mu.Unlock()
}

// sync waits until the queue is empty and idle, or ctx ends.
func (h *hostStream) sync(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		h.mu.Lock()
		h.idle.Broadcast()
		h.mu.Unlock()
	})
	defer stop()
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.running && ctx.Err() == nil {
		h.idle.Wait()
	}
	if h.running {
		return context.Cause(ctx)
	}
	return h.err
}

// close ends the routines still waiting (their context) and drops the rest.
func (h *hostStream) close() {
	h.stop()
	h.mu.Lock()
	h.queue = nil
	h.mu.Unlock()
}
