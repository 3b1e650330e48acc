//go:build cuda

package gpuop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/driver"
)

// Waiter runs waits on one GPU context, a launch of abi.Wait each, on a
// stream of its own: for wait sets too large for the Agent, or when its
// slots are busy. A launch gives up after the agent's lifetime and is
// launched again: a kernel that never ends can hold one of the few
// hardware queues a context's streams share, and the write it waits for
// can be queued behind it.
type Waiter struct {
	ctx  *device.Context
	wait *device.Function // abi.Wait in ctx

	mu   sync.Mutex
	idle []*slot
	all  []*slot
}

// New returns a Waiter launching wait (abi.Wait, loaded in ctx).
func New(ctx *device.Context, wait *device.Function) *Waiter {
	return &Waiter{ctx: ctx, wait: wait}
}

// A slot is what one wait needs: a stream for the waiting kernel and
// mapped pinned memory for its inputs (abort flag, comparands, mask) and
// its report (done, result, word, indices).
type slot struct {
	st      *device.Stream
	in, out *device.HostMem
}

const (
	inValues  = 8 // the abort flag is in[0:4]
	inStatus  = inValues + MaxWords*8
	inSize    = inStatus + MaxWords
	outIdx    = 24
	outSize   = outIdx + MaxWords*4
	maxShared = 40 << 10 // dynamic shared memory a wait may stage into
)

func (w *Waiter) getSlot() (*slot, error) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		s := w.idle[n-1]
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		return s, nil
	}
	w.mu.Unlock()
	s := &slot{}
	var err error
	if s.st, err = w.ctx.NewStream(); err != nil {
		return nil, err
	}
	if s.in, err = w.ctx.HostAlloc(inSize); err != nil {
		s.st.Destroy()
		return nil, err
	}
	if s.out, err = w.ctx.HostAlloc(outSize); err != nil {
		s.st.Destroy()
		s.in.Free()
		return nil, err
	}
	w.mu.Lock()
	w.all = append(w.all, s)
	w.mu.Unlock()
	return s, nil
}

func (w *Waiter) putSlot(s *slot) {
	w.mu.Lock()
	w.idle = append(w.idle, s)
	w.mu.Unlock()
}

func u64at(b []byte, i int) *uint64 { return (*uint64)(unsafe.Pointer(&b[i])) }

// Wait evaluates req over the words at address words (req.Off is
// ignored), blocking unless req.Test until it holds, ctx ends or abort is
// closed.
func (w *Waiter) Wait(ctx context.Context, abort <-chan struct{}, words device.Ptr, req driver.WaitRequest) (driver.WaitResult, error) {
	if req.N > MaxWords {
		return driver.WaitResult{}, fmt.Errorf("%w: GPU waits take at most %d words, not %d", pgas.ErrBadArg, MaxWords, req.N)
	}
	s, err := w.getSlot()
	if err != nil {
		return driver.WaitResult{}, err
	}
	defer w.putSlot(s)
	in, out := s.in.Bytes(), s.out.Bytes()
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&in[0])), 0)
	atomic.StoreUint64(u64at(out, 0), 0)
	hasValues, hasStatus := stage(in[inValues:], in[inStatus:], req)
	var values, status uint64
	shared := 0
	if hasValues {
		values = uint64(s.in.Ptr()) + inValues
		shared += 8 * req.N
	}
	if hasStatus {
		status = uint64(s.in.Ptr()) + inStatus
		shared += req.N
	}
	if shared > maxShared {
		shared = 0 // read from host memory on every pass instead
	}
	threads := min(256, (req.N+31)/32*32)
	done := u64at(out, 0)
	var cause error
	check := interrupt(ctx, abort, &cause, func() { atomic.StoreUint32((*uint32)(unsafe.Pointer(&in[0])), 1) })
	for {
		err = s.st.Launch(w.wait, device.D1(1), device.D1(threads), shared,
			uint64(words), uint64(req.N), spec(req), req.Value, values, status, uint64(req.Start),
			uint64(s.out.Ptr()), uint64(s.in.Ptr()), uint64(lifetime.Nanoseconds()))
		if err != nil {
			return driver.WaitResult{}, err
		}
		_ = spin(func() bool { return atomic.LoadUint64(done) != 0 }, check)
		state := atomic.LoadUint64(done)
		if state == 1 {
			break
		}
		if err := s.st.Sync(); err != nil {
			return driver.WaitResult{}, err
		}
		if state == 2 || cause != nil {
			return driver.WaitResult{}, cause
		}
		atomic.StoreUint64(done, 0) // 3: its lifetime ended; launch it again
	}
	return result(req, atomic.LoadUint64(u64at(out, 8)), atomic.LoadUint64(u64at(out, 16)), out[outIdx:]), nil
}

// Close releases the Waiter's streams and pinned memory; no wait may be
// in progress.
func (w *Waiter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	for _, s := range w.all {
		errs = append(errs, s.st.Destroy(), s.in.Free(), s.out.Free())
	}
	w.all, w.idle = nil, nil
	return errors.Join(errs...)
}
