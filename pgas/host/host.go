// Package host is symchan's built-in backend, "host": PEs are goroutines
// of this process, each partition is ordinary memory mapped outside the Go
// heap, and every operation completes before it returns (NBI operations
// included, which the spec allows), so Fence and Quiet have nothing left
// to do. It is the reference for the semantics.
//
// Package pgas registers it and uses it by default; programs never import
// this package.
package host

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/symchan/symchan/internal/racesync"
	"github.com/symchan/symchan/internal/sysmem"
	"github.com/symchan/symchan/pgas/driver"
)

// DefaultPEs is the host backend's PE count when none is configured.
const DefaultPEs = 8

// Backend is the host backend (a pgas/driver.Backend).
type Backend struct{}

// DefaultPEs is DefaultPEs: the PEs Open starts when cfg.PEs is 0
// (driver.DefaultSizer).
func (Backend) DefaultPEs() int { return DefaultPEs }

// Open maps cfg.PEs partitions of cfg.HeapSize bytes (rounded up to a word).
// Every PE is in this process: there is no remote path, and
// cfg.ForceRemote changes nothing.
func (Backend) Open(_ context.Context, cfg driver.Config) (driver.Transport, error) {
	n := cfg.PEs
	if n == 0 {
		n = DefaultPEs
	}
	size := (cfg.HeapSize + 7) &^ 7
	if err := checkHostFits(n, size, sysmem.Machine()); err != nil {
		return nil, err
	}
	h := &hostTransport{heaps: make([][]byte, n), parks: make([]parker, n), size: size, local: make([]int, n)}
	if !cfg.Park {
		h.spin = spinFor
	}
	for i := range h.parks {
		h.parks[i].init()
	}
	for i := range h.heaps {
		b, err := mapHeap(size)
		if err != nil {
			h.Close()
			return nil, fmt.Errorf("host backend, PE %d: %w (lower %s)", i, err, envSymmetricSize)
		}
		h.heaps[i] = b // page-aligned, so every word is aligned
		h.local[i] = i
	}
	return h, nil
}

// checkHostFits checks that n partitions of size bytes fit in mem bytes
// of memory (unknown when 0), and that their total does not overflow.
// The settings the size errors name (pgas.EnvSymmetricSize, pgas.EnvPEs).
const (
	envSymmetricSize = "SYMCHAN_SYMMETRIC_SIZE"
	envPEs           = "SYMCHAN_PES"
)

// The check counts peBytes per PE beside its partition: what a PE of the
// world costs in this process (its goroutine's stack, its pgas handles,
// its parker; about 9 KiB measured at 1,000 to 16,384 PEs), with room.
func checkHostFits(n int, size, mem int64) error {
	if size > math.MaxInt64/int64(n)-peBytes {
		return fmt.Errorf("host backend: %d PEs × %d bytes overflows; lower %s or %s", n, size, envSymmetricSize, envPEs)
	}
	if total := int64(n) * (size + peBytes); mem > 0 && total > mem {
		return fmt.Errorf("host backend: %d PEs × (%s heap + %s per PE) = %s, more than this machine's %s of memory; lower %s (driver.Config.HeapSize) or %s (driver.Config.PEs)",
			n, sysmem.Format(size), sysmem.Format(peBytes), sysmem.Format(total), sysmem.Format(mem), envSymmetricSize, envPEs)
	}
	return nil
}

const peBytes = 16 << 10

type hostTransport struct {
	heaps [][]byte
	parks []parker
	size  int64
	local []int
	spin  time.Duration // how long a wait yields and re-checks before it parks
}

func (h *hostTransport) NumPEs() int        { return len(h.heaps) }
func (h *hostTransport) LocalPEs() []int    { return h.local }
func (h *hostTransport) Node(int) int       { return 0 }
func (h *hostTransport) HeapSize() int64    { return h.size }
func (h *hostTransport) Heap(pe int) []byte { return h.heaps[pe] }
func (h *hostTransport) Fence(int) error    { return nil }
func (h *hostTransport) Quiet(int) error    { return nil }

// Close gives the partitions' memory back (releaseHeap) and leaves them
// mapped until nothing can reach the transport: a method of a kept
// Mailbox, Chan or System that passed its world's check just before the
// world ended, on another goroutine, still holds the transport through
// its PE, and reads zeros or writes into released pages rather than
// faulting. The mappings go when the garbage collector finds the
// transport unreachable.
func (h *hostTransport) Close() error {
	for i := range h.parks {
		h.parks[i].close()
	}
	var errs []error
	for _, b := range h.heaps {
		if b != nil {
			errs = append(errs, releaseHeap(b))
		}
	}
	heaps := h.heaps
	runtime.SetFinalizer(h, func(*hostTransport) {
		for _, b := range heaps {
			if b != nil {
				_ = unmapHeap(b)
			}
		}
	})
	return errors.Join(errs...)
}

var errAborted = errors.New("aborted: a PE failed")

func (h *hostTransport) Put(_, pe int, off int64, src []byte) error {
	copy(h.heaps[pe][off:], src)
	h.parks[pe].notify(off, off+int64(len(src)))
	return nil
}

func (h *hostTransport) Copy(_, dstPE int, dstOff int64, srcPE int, srcOff int64, n int64) error {
	copy(h.heaps[dstPE][dstOff:dstOff+n], h.heaps[srcPE][srcOff:srcOff+n])
	h.parks[dstPE].notify(dstOff, dstOff+n)
	return nil
}

func (h *hostTransport) Get(_, pe int, off int64, dst []byte) error {
	copy(dst, h.heaps[pe][off:])
	return nil
}

func (h *hostTransport) PutStrided(_, pe int, off, stride, elem int64, n int, src []byte, _ bool) error {
	stridedCopy(h.heaps[pe][off:], stride, src, elem, elem, n)
	h.parks[pe].notify(off, off+int64(n-1)*stride+elem)
	return nil
}

func (h *hostTransport) GetStrided(_, pe int, off, stride, elem int64, n int, dst []byte) error {
	stridedCopy(dst, elem, h.heaps[pe][off:], stride, elem, n)
	return nil
}

// stridedCopy copies n elements of elem bytes, src's sst bytes apart, to
// dst, tst bytes apart. Words of 4 and 8 bytes move as one load and store
// (little-endian on both sides: the bytes are copied as they are).
func stridedCopy(dst []byte, tst int64, src []byte, sst, elem int64, n int) {
	switch elem {
	case 8:
		for i := range int64(n) {
			binary.LittleEndian.PutUint64(dst[i*tst:], binary.LittleEndian.Uint64(src[i*sst:]))
		}
	case 4:
		for i := range int64(n) {
			binary.LittleEndian.PutUint32(dst[i*tst:], binary.LittleEndian.Uint32(src[i*sst:]))
		}
	default:
		for i := range int64(n) {
			copy(dst[i*tst:i*tst+elem], src[i*sst:])
		}
	}
}

func (h *hostTransport) PutNBI(from, pe int, off int64, src []byte) error {
	return h.Put(from, pe, off, src)
}

func (h *hostTransport) GetNBI(from, pe int, off int64, dst []byte) error {
	return h.Get(from, pe, off, dst)
}

func (h *hostTransport) PutSignal(_, pe int, off int64, src []byte, sigOff int64, sig uint64, op driver.SigOp, _ bool) error {
	heap := h.heaps[pe]
	copy(heap[off:], src)
	// The atomic signal update publishes the copy: a reader that loads the
	// new signal value sees the data.
	w := (*uint64)(unsafe.Pointer(&heap[sigOff]))
	racesync.Release()
	if op == driver.SignalAdd {
		atomic.AddUint64(w, sig)
	} else {
		atomic.StoreUint64(w, sig)
	}
	h.notify(pe, off, src, sigOff)
	return nil
}

// notify wakes the waits on pe's signal word at sigOff and on the data
// put at off.
func (h *hostTransport) notify(pe int, off int64, src []byte, sigOff int64) {
	if n := int64(len(src)); n == 0 || off == sigOff+8 {
		h.parks[pe].notify(sigOff, sigOff+8+n) // one range: the data follows its signal (a mailbox's line)
	} else {
		h.parks[pe].notify(sigOff, sigOff+8)
		h.parks[pe].notify(off, off+n)
	}
}

// ClaimPutSignal is driver.ClaimTransport's: the claim, the copy and the
// signal, then one wake-up for the word and the data. A waiter parked on
// the word is woken once, by the final value, rather than first by the
// claim (a future's reply would otherwise wake its awaiting goroutine
// twice).
func (h *hostTransport) ClaimPutSignal(_, pe int, off int64, src []byte, sigOff int64, cond, claim, v uint64) (uint64, error) {
	heap := h.heaps[pe]
	w := (*uint64)(unsafe.Pointer(&heap[sigOff]))
	racesync.Release()
	for !atomic.CompareAndSwapUint64(w, cond, claim) {
		// The value that failed the claim, unless it went back to cond
		// meanwhile: then claim again.
		if old := atomic.LoadUint64(w); old != cond {
			racesync.Acquire()
			return old, nil
		}
	}
	copy(heap[off:], src)
	racesync.Release()
	atomic.StoreUint64(w, v)
	h.notify(pe, off, src, sigOff)
	return cond, nil
}

func (h *hostTransport) Atomic(_, pe int, off int64, k driver.Kind, op driver.AtomicOp, v, cond uint64) (uint64, error) {
	p := unsafe.Pointer(&h.heaps[pe][off])
	if op != driver.OpFetch {
		racesync.Release()
	}
	old := atomicOp(op, p, k.Size(), v, cond)
	racesync.Acquire()
	if op != driver.OpFetch {
		h.parks[pe].notify(off, off+k.Size())
	}
	return old, nil
}

// atomicOp performs op on the word of size bytes (4 or 8) at p and returns
// its previous value (0 for OpSet), the two sizes in one switch: a generic
// fold over sync/atomic's typed words calls their methods through a
// dictionary, twice as slow for a load.
func atomicOp(op driver.AtomicOp, p unsafe.Pointer, size int64, v, cond uint64) uint64 {
	p32, p64 := (*uint32)(p), (*uint64)(p)
	narrow := size == 4
	switch op {
	case driver.OpFetch:
		if narrow {
			return uint64(atomic.LoadUint32(p32))
		}
		return atomic.LoadUint64(p64)
	case driver.OpSet:
		if narrow {
			atomic.StoreUint32(p32, uint32(v))
		} else {
			atomic.StoreUint64(p64, v)
		}
		return 0
	case driver.OpSwap:
		if narrow {
			return uint64(atomic.SwapUint32(p32, uint32(v)))
		}
		return atomic.SwapUint64(p64, v)
	case driver.OpFetchAdd:
		if narrow {
			return uint64(atomic.AddUint32(p32, uint32(v)) - uint32(v))
		}
		return atomic.AddUint64(p64, v) - v
	case driver.OpFetchAnd:
		if narrow {
			return uint64(atomic.AndUint32(p32, uint32(v)))
		}
		return atomic.AndUint64(p64, v)
	case driver.OpFetchOr:
		if narrow {
			return uint64(atomic.OrUint32(p32, uint32(v)))
		}
		return atomic.OrUint64(p64, v)
	case driver.OpCompareSwap, driver.OpFetchXor:
		// Compare-and-swap loops: a compare-and-swap that fails on a
		// word unchanged since its load is a spurious one, tried again.
		for {
			var old uint64
			if narrow {
				old = uint64(atomic.LoadUint32(p32))
			} else {
				old = atomic.LoadUint64(p64)
			}
			next := old ^ v
			if op == driver.OpCompareSwap {
				if old != cond {
					return old
				}
				next = v
			}
			if narrow && atomic.CompareAndSwapUint32(p32, uint32(old), uint32(next)) || !narrow && atomic.CompareAndSwapUint64(p64, old, next) {
				return old
			}
		}
	}
	panic(fmt.Sprintf("pgas/host: atomic op %d", op))
}

// evaluator checks a driver.WaitRequest against a partition, or runs the
// predicate of a Park. It is built once per wait, so spinning re-checks do
// no allocation or setup.
type evaluator struct {
	ready func() bool // a Park's predicate; nil for a wait
	req   *driver.WaitRequest
	base  unsafe.Pointer // word 0
	wide  bool           // 8-byte words
	val   uint64         // normalised comparand
	vals  []uint64       // normalised comparands of a vector wait

	// active lists the words a status mask leaves in (see activeWords);
	// nil without a mask: check every word.
	active []int
}

// activeLists recycles the evaluators' active lists.
var activeLists sync.Pool

// activeWords lists the words req's status mask leaves in, in index order,
// so that a wait's checks visit only them: a mailbox laid out one word per
// cache line masks seven words of every eight. It returns nil without a
// mask. releaseActive gives the list back.
//
// The list is kept out of the evaluator until the wait sets it: putting
// the evaluator's own field back into the pool would make escape analysis
// move the whole evaluator, and the request it points to, to the heap (an
// allocation per wait, +120 ns on a ping-pong).
func activeWords(req *driver.WaitRequest) (act []int, pooled *[]int) {
	if req.Status == nil {
		return nil, nil
	}
	p, _ := activeLists.Get().(*[]int)
	if p == nil {
		p = new([]int)
	}
	act = (*p)[:0]
	for i, st := range req.Status[:req.N] {
		if st == 0 {
			act = append(act, i)
		}
	}
	return act, p
}

func releaseActive(act []int, pooled *[]int) {
	if pooled != nil {
		*pooled = act[:0]
		activeLists.Put(pooled)
	}
}

func newEvaluator(heap []byte, req *driver.WaitRequest) evaluator {
	e := evaluator{req: req, base: unsafe.Pointer(&heap[req.Off]), wide: req.Kind.Size() == 8, val: norm(req.Kind, req.Value)}
	switch {
	case req.Values == nil:
	case req.Kind.Signed():
		e.vals = make([]uint64, len(req.Values))
		for i, v := range req.Values {
			e.vals[i] = norm(req.Kind, v)
		}
	default:
		e.vals = req.Values // unsigned words compare as they are
	}
	return e
}

// sat loads word i and reports whether it is satisfied.
func (e *evaluator) sat(i int) (word uint64, ok bool) {
	if e.wide {
		word = atomic.LoadUint64((*uint64)(unsafe.Add(e.base, i*8)))
	} else {
		word = uint64(atomic.LoadUint32((*uint32)(unsafe.Add(e.base, i*4))))
	}
	v := e.val
	if e.vals != nil {
		v = e.vals[i]
	}
	return word, holds(e.req.Cmp, norm(e.req.Kind, word), v)
}

// eval checks the request once; ok reports whether a blocking wait may
// return with r.
func (e *evaluator) eval() (r driver.WaitResult, ok bool) {
	if e.ready != nil {
		return r, e.ready()
	}
	req := e.req
	n := req.N
	if n == 1 && req.Mode == driver.WaitAll && req.Status == nil {
		// One word (a signal word, a mailbox's credit): no scan.
		if w, sat := e.sat(0); sat {
			return driver.WaitResult{N: 1, Word: w}, true
		}
		return driver.WaitResult{}, false
	}
	if e.wide && req.Status == nil && req.Mode == driver.WaitSome && !req.Kind.Signed() {
		return e.someWide()
	}
	if e.wide && req.Status == nil && req.Mode == driver.WaitAny && e.vals == nil {
		return e.anyWide()
	}
	if e.wide && e.active != nil && req.Mode == driver.WaitSome && e.vals != nil && !req.Kind.Signed() {
		return e.someMasked()
	}
	// The words to visit: e.active under a status mask, else 0 … n-1.
	act := e.active
	m := n
	if req.Status != nil {
		m = len(act)
	}
	at := func(k int) int {
		if act != nil {
			return act[k]
		}
		return k
	}
	switch req.Mode {
	case driver.WaitAll:
		var last uint64
		for k := range m {
			w, sat := e.sat(at(k))
			if !sat {
				return driver.WaitResult{N: 0}, false
			}
			last = w
		}
		return driver.WaitResult{N: 1, Word: last}, true
	case driver.WaitAny:
		from := req.Start
		if act != nil {
			from = sort.SearchInts(act, req.Start)
		}
		for k := range m {
			i := at((from + k) % m)
			if w, sat := e.sat(i); sat {
				return driver.WaitResult{N: i, Word: w}, true
			}
		}
		return driver.WaitResult{N: driver.NoIndex}, false
	default: // driver.WaitSome
		k := 0
		for j := range m {
			i := at(j)
			if _, sat := e.sat(i); sat {
				req.Indices[k] = i
				k++
			}
		}
		return driver.WaitResult{N: k}, k > 0
	}
}

// someWide is the some-wait over unsigned 64-bit words with no status
// mask: the mailbox's scan, kept free of per-word branches on the request.
func (e *evaluator) someWide() (driver.WaitResult, bool) {
	req := e.req
	words := unsafe.Slice((*uint64)(e.base), req.N)
	k := 0
	if e.vals != nil {
		vals := e.vals[:len(words)]
		for i := range words {
			if holds(req.Cmp, atomic.LoadUint64(&words[i]), vals[i]) {
				req.Indices[k] = i
				k++
			}
		}
	} else {
		for i := range words {
			if holds(req.Cmp, atomic.LoadUint64(&words[i]), e.val) {
				req.Indices[k] = i
				k++
			}
		}
	}
	return driver.WaitResult{N: k}, k > 0
}

// someMasked is the some-wait over unsigned 64-bit words with one
// comparand each, visiting only the words a status mask leaves in: a
// mailbox's wait where its slot words lie one per cache line.
func (e *evaluator) someMasked() (driver.WaitResult, bool) {
	req := e.req
	k := 0
	for _, i := range e.active {
		if holds(req.Cmp, atomic.LoadUint64((*uint64)(unsafe.Add(e.base, i*8))), e.vals[i]) {
			req.Indices[k] = i
			k++
		}
	}
	return driver.WaitResult{N: k}, k > 0
}

// anyWide is the any-wait over 64-bit words with no status mask and one
// comparand: a scan without per-word branches on the request, from
// req.Start round to it.
func (e *evaluator) anyWide() (driver.WaitResult, bool) {
	req := e.req
	words := unsafe.Slice((*uint64)(e.base), req.N)
	c, v := req.Cmp, e.val
	flip := norm(req.Kind, 0) // norm of a 64-bit word is w ^ flip
	for _, part := range [2][2]int{{req.Start, len(words)}, {0, req.Start}} {
		// The comparison is chosen once, outside the loop: EQ and NE
		// (the mailbox's and most waits') get loops of their own.
		var i int
		switch c {
		case driver.CmpEQ:
			i = scanEQ(words, part[0], part[1], v^flip)
		case driver.CmpNE:
			i = scanNE(words, part[0], part[1], v^flip)
		default:
			for i = part[0]; i < part[1] && !holds(c, atomic.LoadUint64(&words[i])^flip, v); i++ {
			}
		}
		if i < part[1] {
			return driver.WaitResult{N: i, Word: atomic.LoadUint64(&words[i])}, true
		}
	}
	return driver.WaitResult{N: driver.NoIndex}, false
}

// scanEQ returns the first i in [lo, hi) whose word equals v, else hi.
func scanEQ(words []uint64, lo, hi int, v uint64) int {
	w := words[lo:hi] // no bounds checks in the loop
	for i := range w {
		if atomic.LoadUint64(&w[i]) == v {
			return lo + i
		}
	}
	return hi
}

// scanNE returns the first i in [lo, hi) whose word differs from v, else hi.
func scanNE(words []uint64, lo, hi int, v uint64) int {
	w := words[lo:hi]
	for i := range w {
		if atomic.LoadUint64(&w[i]) != v {
			return lo + i
		}
	}
	return hi
}

// norm maps a word of kind k to a uint64 whose unsigned order is the
// word's order, so that one comparison serves every kind.
func norm(k driver.Kind, v uint64) uint64 {
	switch k {
	case driver.KindInt32:
		return uint64(int64(int32(v))) ^ 1<<63
	case driver.KindUint32:
		return uint64(uint32(v))
	case driver.KindInt64:
		return v ^ 1<<63
	}
	return v
}

func holds(c driver.Cmp, a, b uint64) bool {
	switch c {
	case driver.CmpEQ:
		return a == b
	case driver.CmpNE:
		return a != b
	case driver.CmpGT:
		return a > b
	case driver.CmpGE:
		return a >= b
	case driver.CmpLT:
		return a < b
	}
	return a <= b
}

// Spinning before parking keeps the round trip of a busy ping-pong in the
// hundreds of nanoseconds; parking keeps an idle wait off the CPU.
const (
	spinChecks = 64                    // tight checks before yielding
	spinFor    = 50 * time.Microsecond // then yield between checks this long
)

func (h *hostTransport) Wait(ctx context.Context, pe int, abort <-chan struct{}, req driver.WaitRequest) (driver.WaitResult, error) {
	r, err := h.wait(ctx, pe, abort, &req)
	if err == nil {
		racesync.Acquire()
	}
	if f := req.Fetch; f.Bytes > 0 && err == nil {
		heap := h.heaps[pe]
		driver.Reported(&req, r, func(k, i int) {
			at := f.Off + int64(i)*f.Stride
			copy(f.Into[k*f.Bytes:(k+1)*f.Bytes], heap[at:at+int64(f.Bytes)])
		})
	}
	return r, err
}

func (h *hostTransport) wait(ctx context.Context, pe int, abort <-chan struct{}, req *driver.WaitRequest) (driver.WaitResult, error) {
	e := newEvaluator(h.heaps[pe], req)
	act, pooled := activeWords(req)
	e.active = act
	r, err := h.block(ctx, pe, abort, &e)
	releaseActive(act, pooled)
	return r, err
}

// block runs e until it holds: at once, then while it polls (unless the
// world parks at once), then parked.
func (h *hostTransport) block(ctx context.Context, pe int, abort <-chan struct{}, e *evaluator) (driver.WaitResult, error) {
	r, ok := e.eval()
	if ok || e.req.Test {
		return r, nil
	}
	if h.spin > 0 {
		for range spinChecks {
			if r, ok = e.eval(); ok {
				return r, nil
			}
		}
		deadline := time.Now().Add(h.spin)
		for i := 0; ; i++ {
			runtime.Gosched()
			if r, ok = e.eval(); ok {
				return r, nil
			}
			if i%16 == 15 && time.Now().After(deadline) {
				break
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	req := e.req
	return h.parks[pe].wait(ctx, abort, req.Off, req.Off+int64(req.N)*req.Kind.Size(), e)
}
