package pgas

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// The host backend: PEs are goroutines of this process, each partition is
// ordinary memory, and every operation completes before it returns (NBI
// operations included, which the spec allows), so Fence and Quiet have
// nothing left to do.

func init() { Register("host", hostBackend{}) }

// DefaultHostPEs is the host backend's PE count when none is configured.
const DefaultHostPEs = 8

type hostBackend struct{}

func (hostBackend) Open(cfg Config) (Transport, error) {
	n := cfg.PEs
	if n == 0 {
		n = DefaultHostPEs
	}
	const maxPEs = 1 << 16
	if n > maxPEs {
		return nil, fmt.Errorf("%d PEs: the host backend runs at most %d", n, maxPEs)
	}
	size := alignUp(cfg.HeapSize, 8)
	h := &hostTransport{heaps: make([][]byte, n), parks: make([]parker, n), size: size, local: make([]int, n)}
	for i := range h.heaps {
		// Backed by uint64s so every partition is 8-byte aligned.
		words := make([]uint64, size/8)
		h.heaps[i] = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), size)
		h.parks[i].ch = make(chan struct{})
		h.local[i] = i
	}
	return h, nil
}

type hostTransport struct {
	heaps [][]byte
	parks []parker
	size  int64
	local []int
}

func (h *hostTransport) NumPEs() int        { return len(h.heaps) }
func (h *hostTransport) LocalPEs() []int    { return h.local }
func (h *hostTransport) Node(int) int       { return 0 }
func (h *hostTransport) HeapSize() int64    { return h.size }
func (h *hostTransport) Heap(pe int) []byte { return h.heaps[pe] }
func (h *hostTransport) Fence(int) error    { return nil }
func (h *hostTransport) Quiet(int) error    { return nil }
func (h *hostTransport) Close() error       { return nil }

func (h *hostTransport) Put(_, pe int, off int64, src []byte) error {
	copy(h.heaps[pe][off:], src)
	h.parks[pe].notify()
	return nil
}

func (h *hostTransport) Get(_, pe int, off int64, dst []byte) error {
	copy(dst, h.heaps[pe][off:])
	return nil
}

func (h *hostTransport) PutNBI(from, pe int, off int64, src []byte) error {
	return h.Put(from, pe, off, src)
}

func (h *hostTransport) GetNBI(from, pe int, off int64, dst []byte) error {
	return h.Get(from, pe, off, dst)
}

func (h *hostTransport) PutSignal(_, pe int, off int64, src []byte, sigOff int64, sig uint64, op SigOp, _ bool) error {
	heap := h.heaps[pe]
	copy(heap[off:], src)
	// The atomic signal update publishes the copy: a reader that loads the
	// new signal value sees the data.
	w := (*uint64)(unsafe.Pointer(&heap[sigOff]))
	if op == SignalAdd {
		atomic.AddUint64(w, sig)
	} else {
		atomic.StoreUint64(w, sig)
	}
	h.parks[pe].notify()
	return nil
}

func (h *hostTransport) Atomic(_, pe int, off int64, k Kind, op AtomicOp, v, cond uint64) (uint64, error) {
	p := unsafe.Pointer(&h.heaps[pe][off])
	var old uint64
	if k.Size() == 4 {
		old = uint64(atomic32(op, (*uint32)(p), uint32(v), uint32(cond)))
	} else {
		old = atomic64(op, (*uint64)(p), v, cond)
	}
	if op != OpFetch {
		h.parks[pe].notify()
	}
	return old, nil
}

func atomic32(op AtomicOp, p *uint32, v, cond uint32) uint32 {
	switch op {
	case OpFetch:
		return atomic.LoadUint32(p)
	case OpSet:
		atomic.StoreUint32(p, v)
		return 0
	case OpSwap:
		return atomic.SwapUint32(p, v)
	case OpCompareSwap:
		for {
			old := atomic.LoadUint32(p)
			if old != cond || atomic.CompareAndSwapUint32(p, old, v) {
				return old
			}
		}
	case OpFetchAdd:
		return atomic.AddUint32(p, v) - v
	case OpFetchAnd:
		return atomic.AndUint32(p, v)
	case OpFetchOr:
		return atomic.OrUint32(p, v)
	case OpFetchXor:
		for {
			old := atomic.LoadUint32(p)
			if atomic.CompareAndSwapUint32(p, old, old^v) {
				return old
			}
		}
	}
	panic(fmt.Sprintf("pgas/host: atomic op %d", op))
}

func atomic64(op AtomicOp, p *uint64, v, cond uint64) uint64 {
	switch op {
	case OpFetch:
		return atomic.LoadUint64(p)
	case OpSet:
		atomic.StoreUint64(p, v)
		return 0
	case OpSwap:
		return atomic.SwapUint64(p, v)
	case OpCompareSwap:
		for {
			old := atomic.LoadUint64(p)
			if old != cond || atomic.CompareAndSwapUint64(p, old, v) {
				return old
			}
		}
	case OpFetchAdd:
		return atomic.AddUint64(p, v) - v
	case OpFetchAnd:
		return atomic.AndUint64(p, v)
	case OpFetchOr:
		return atomic.OrUint64(p, v)
	case OpFetchXor:
		for {
			old := atomic.LoadUint64(p)
			if atomic.CompareAndSwapUint64(p, old, old^v) {
				return old
			}
		}
	}
	panic(fmt.Sprintf("pgas/host: atomic op %d", op))
}

func load(heap []byte, off int64, k Kind) uint64 {
	p := unsafe.Pointer(&heap[off])
	if k.Size() == 4 {
		return uint64(atomic.LoadUint32((*uint32)(p)))
	}
	return atomic.LoadUint64((*uint64)(p))
}

// eval checks req once against heap; ok reports whether a blocking wait
// may return with r.
func eval(heap []byte, req *WaitRequest) (r WaitResult, ok bool) {
	sz := req.Kind.Size()
	val := func(i int) uint64 {
		if req.Values != nil {
			return req.Values[i]
		}
		return req.Value
	}
	in := func(i int) bool { return req.Status == nil || req.Status[i] == 0 }
	switch req.Mode {
	case WaitAll:
		var w uint64
		for i := range req.N {
			if !in(i) {
				continue
			}
			w = load(heap, req.Off+int64(i)*sz, req.Kind)
			if !req.Cmp.Compare(req.Kind, w, val(i)) {
				return WaitResult{N: 0}, false
			}
		}
		return WaitResult{N: 1, Word: w}, true
	case WaitAny:
		for j := range req.N {
			i := (req.Start + j) % req.N
			if !in(i) {
				continue
			}
			w := load(heap, req.Off+int64(i)*sz, req.Kind)
			if req.Cmp.Compare(req.Kind, w, val(i)) {
				return WaitResult{N: i, Word: w}, true
			}
		}
		return WaitResult{N: NoIndex}, false
	default: // WaitSome
		n := 0
		for i := range req.N {
			if in(i) && req.Cmp.Compare(req.Kind, load(heap, req.Off+int64(i)*sz, req.Kind), val(i)) {
				req.Indices[n] = i
				n++
			}
		}
		return WaitResult{N: n}, n > 0
	}
}

// Spinning before parking keeps the round trip of a busy ping-pong in the
// hundreds of nanoseconds; parking keeps an idle wait off the CPU.
const (
	spinChecks = 64                    // tight checks before yielding
	spinFor    = 50 * time.Microsecond // then yield between checks this long
)

func (h *hostTransport) Wait(ctx context.Context, pe int, abort <-chan struct{}, req WaitRequest) (WaitResult, error) {
	heap := h.heaps[pe]
	r, ok := eval(heap, &req)
	if ok || req.Test {
		return r, nil
	}
	for range spinChecks {
		if r, ok = eval(heap, &req); ok {
			return r, nil
		}
	}
	deadline := time.Now().Add(spinFor)
	for i := 0; ; i++ {
		runtime.Gosched()
		if r, ok = eval(heap, &req); ok {
			return r, nil
		}
		if i%16 == 15 && time.Now().After(deadline) {
			break
		}
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	pk := &h.parks[pe]
	done := ctx.Done()
	for {
		ch := pk.arm()
		if r, ok = eval(heap, &req); ok {
			pk.disarm()
			return r, nil
		}
		select {
		case <-ch:
		case <-done:
			pk.disarm()
			return r, ctx.Err()
		case <-abort:
			pk.disarm()
			return r, fmt.Errorf("aborted")
		}
		pk.disarm()
	}
}

// parker wakes the goroutines parked in waits on one partition whenever a
// word there may have changed. Writers pay one atomic load when nobody
// waits.
type parker struct {
	waiters atomic.Int32
	mu      sync.Mutex
	ch      chan struct{} // closed and replaced by notify
}

// arm registers a waiter and returns the channel notify will close. The
// caller re-checks its condition after arm: Go's atomics are sequentially
// consistent, so either the writer sees the waiter or the waiter sees the
// write.
func (p *parker) arm() <-chan struct{} {
	p.waiters.Add(1)
	p.mu.Lock()
	ch := p.ch
	p.mu.Unlock()
	return ch
}

func (p *parker) disarm() { p.waiters.Add(-1) }

func (p *parker) notify() {
	if p.waiters.Load() == 0 {
		return
	}
	p.mu.Lock()
	close(p.ch)
	p.ch = make(chan struct{})
	p.mu.Unlock()
}
