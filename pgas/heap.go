package pgas

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/symchan/symchan/internal/plain"
)

// Layout of the control region at the start of every partition. The
// runtime's own words live here so that barriers, allocation agreement and
// team creation work on every backend through ordinary signal operations.
const (
	allocDescOff  = 0   // 2 slots × 4 words: the last collective allocation request
	teamSlotsOff  = 64  // MaxTeams slots of teamSlotBytes
	teamSlotBytes = 960 // rounds, split scratch, verdict, arguments (teamsync.go), device struct (teamdevice.go)

	// MaxTeams is how many teams a PE can be a member of at once,
	// TeamWorld and TeamNode included; Destroy gives a team's slot back.
	// (One 64-bit word holds a PE's free slots for the split agreement.)
	MaxTeams = 64

	// ControlBytes is the part of every partition the runtime reserves;
	// the rest is for symmetric allocations.
	ControlBytes = 64 << 10
	minHeapSize  = ControlBytes + 4096

	worldTeamSlot = 0
	nodeTeamSlot  = 1
)

// The teams' small-message buffers (symchan.cuh: the small-message
// path). On the GPU backends each of the first smallSlots team slots
// (the world's, the node's, the first teams split from them) owns two
// buffers of smallBufBytes at the end of every partition, the same
// offset on every PE, through which a device collective whose data fits
// moves it with its opening phase (one phase instead of two). They take
// at most 1/smallHeapShare of the heap; a buffer holds at most
// smallMaxBytes (what lands on each member: a broadcast's bytes, an
// fcollect's or alltoall's n × members), and none is smaller than
// smallMinBytes: a heap too small for them, and a team in a later slot,
// take two phases for every collective.
const (
	smallSlots     = 8
	smallMaxBytes  = 16 << 10
	smallMinBytes  = 256
	smallHeapShare = 64
)

// smallBufBytes is the size of each small-message buffer in a heap of
// size bytes: a power of two, or 0 for none.
func smallBufBytes(size int64) int64 {
	b := int64(smallMaxBytes)
	for b >= smallMinBytes && 2*smallSlots*b > size/smallHeapShare {
		b /= 2
	}
	if b < smallMinBytes {
		return 0
	}
	return b
}

// minAlign is the smallest alignment of an allocation: every Sym can hold
// 64-bit words (signals, atomics).
const minAlign = 8

// Sym is a symmetric array of n elements of T: the same offset in every
// PE's partition of the heap. Collective allocation returns one on each PE;
// a Sym is a small value, copied freely. T must be a fixed-size type
// without pointers (numbers, arrays and structs of them).
//
// Scalar operations (P, G, atomics, signal operations, single waits) act on
// a Sym's first element; use Index or Slice to name another.
type Sym[T any] struct {
	rec *allocRec
	off int64 // byte offset of element 0 in a partition
	n   int
}

type allocRec struct {
	w          *World
	off        int64
	size       int64 // bytes reserved
	n          int   // elements allocated
	registered bool  // a buffer RegisterSymmetric mapped, not an allocation
	// use counts the operations using the allocation now; its freedBit
	// is set by Free, which then waits for the count to drain before the
	// bytes can be reallocated: an operation racing Free either lands in
	// the old allocation or fails, never in the next one. Every operation
	// of this PE writes it: it has a cache line of its own, so that the
	// records of two PEs, allocated side by side by the same collective
	// call, do not bounce one line between their cores.
	_   [64]byte
	use atomic.Int64
	_   [56]byte
	// cursors: where the next any-wait over each wait set in this
	// allocation scans from ([2]int64{offset, words} → *atomic.Int64), so
	// that fairness holds per wait set, whatever else the PE waits on.
	// last is the cursor used last: the one a PE waiting on one set
	// finds without a map look-up.
	cursors sync.Map
	last    atomic.Pointer[waitCursor]
}

type waitCursor struct {
	off int64
	n   int
	atomic.Int64
}

// cursor returns the any-wait cursor of the wait set of n words at off.
func (r *allocRec) cursor(off int64, n int) *atomic.Int64 {
	if c := r.last.Load(); c != nil && c.off == off && c.n == n {
		return &c.Int64
	}
	key := [2]int64{off, int64(n)}
	v, ok := r.cursors.Load(key)
	if !ok {
		v, _ = r.cursors.LoadOrStore(key, &waitCursor{off: off, n: n})
	}
	c := v.(*waitCursor)
	r.last.Store(c)
	return &c.Int64
}

// Len is the number of elements.
func (s Sym[T]) Len() int { return s.n }

// Offset is the byte offset of the first element in a PE's partition.
func (s Sym[T]) Offset() int64 { return s.off }

// Bytes is the size of the array in bytes.
func (s Sym[T]) Bytes() int64 { return int64(s.n) * sizeOf[T]() }

// Valid reports whether s came from an allocation that has not been freed.
func (s Sym[T]) Valid() bool { return s.rec != nil && !s.rec.isFreed() }

const freedBit = 1 << 62

func (r *allocRec) isFreed() bool { return r.use.Load()&freedBit != 0 }

// hold marks an operation on the allocation as under way; release ends
// it. It fails once Free has begun.
func (r *allocRec) hold() error {
	if r.use.Add(1)&freedBit != 0 {
		return r.refuse()
	}
	return nil
}

// refuse undoes a hold that came too late (kept out of hold, so that
// hold inlines into every operation).
func (r *allocRec) refuse() error {
	r.use.Add(-1)
	return fmt.Errorf("%w: Sym at offset %d was freed", ErrBadSym, r.off)
}

func (r *allocRec) release() { r.use.Add(-1) }

// revive undoes retire, for a Free that failed.
func (r *allocRec) revive() { r.use.And(^int64(freedBit)) }

// retire marks the allocation freed and waits for the operations under
// way to finish.
func (r *allocRec) retire() {
	r.use.Or(freedBit)
	for r.use.Load() != freedBit {
		runtime.Gosched()
	}
}

// Slice returns elements [lo, hi) as a Sym. Like slicing, it panics unless
// 0 ≤ lo ≤ hi ≤ Len().
func (s Sym[T]) Slice(lo, hi int) Sym[T] {
	if uint(hi) > uint(s.n) || uint(lo) > uint(hi) {
		panic(sliceError{lo, hi, s.n}) // a value, not a call: Slice inlines
	}
	return Sym[T]{rec: s.rec, off: s.off + int64(lo)*sizeOf[T](), n: hi - lo}
}

// sliceError is Slice's panic value.
type sliceError struct{ lo, hi, n int }

func (e sliceError) Error() string {
	return fmt.Sprintf("pgas: Sym slice [%d:%d] out of range [0:%d]", e.lo, e.hi, e.n)
}

// Index returns element i as a one-element Sym. It panics unless
// 0 ≤ i < Len().
func (s Sym[T]) Index(i int) Sym[T] { return s.Slice(i, i+1) }

// String describes the Sym for messages: element type, offset, length.
func (s Sym[T]) String() string {
	var z T
	return fmt.Sprintf("Sym[%T]{off %d, len %d}", z, s.off, s.n)
}

func sizeOf[T any]() int64 {
	var z T
	return int64(unsafe.Sizeof(z))
}

// checkSym validates a Sym for use by p.
func (p *PE) checkSym(r *allocRec) error {
	if p.symOK(r) {
		return nil
	}
	return p.symErr(r)
}

// symOK reports whether checkSym passes r: the common case, inlined where
// a message's path checks.
func (p *PE) symOK(r *allocRec) bool { return r != nil && r.w == p.w && !r.isFreed() }

// symErr says what is wrong with a Sym that checkSym refused.
func (p *PE) symErr(r *allocRec) error {
	switch {
	case r == nil:
		return fmt.Errorf("%w: zero Sym (not from an allocation)", ErrBadSym)
	case r.w != p.w:
		return fmt.Errorf("%w: Sym belongs to another world", ErrBadSym)
	case r.isFreed():
		return fmt.Errorf("%w: Sym at offset %d was freed", ErrBadSym, r.off)
	}
	return nil
}

// Alloc collectively allocates n elements of T on every PE (shmem_malloc).
// Every PE must call it with the same n, in the same order relative to its
// other collective calls; otherwise every PE gets an error wrapping
// ErrCollectiveMismatch. The contents are unspecified; see AllocZeroed.
// Alloc returns once every PE has allocated, so the caller may write into
// other PEs' copies at once.
func Alloc[T any](ctx context.Context, p *PE, n int) (Sym[T], error) {
	return alloc[T](ctx, p, n, 0, false)
}

// AllocZeroed is Alloc with every element zero on every PE (shmem_calloc).
func AllocZeroed[T any](ctx context.Context, p *PE, n int) (Sym[T], error) {
	return alloc[T](ctx, p, n, 0, true)
}

// AllocAligned is Alloc with the first element aligned to align bytes, a
// power of two (shmem_align).
func AllocAligned[T any](ctx context.Context, p *PE, n int, align int) (Sym[T], error) {
	if align <= 0 {
		// Reported after agreement so every PE returns the same error.
		align = -1
	}
	return alloc[T](ctx, p, n, int64(align), false)
}

const (
	opAlloc      = 1
	opFree       = 2
	opRealloc    = 3
	opRegister   = 4 // RegisterSymmetric's call
	opRegistered = 5 // … and whether this PE mapped its buffer
	opUnregister = 6
)

func alloc[T any](ctx context.Context, p *PE, n int, align int64, zero bool) (Sym[T], error) {
	if err := p.check(); err != nil {
		return Sym[T]{}, err
	}
	var z T
	typ := reflect.TypeOf(&z).Elem()
	esize := int64(typ.Size())

	// Check locally, agree collectively, and only then report: every PE
	// then returns the same verdict.
	var bad error
	switch {
	case !plain.Is(typ):
		bad = fmt.Errorf("%w: element type %v holds pointers or is not fixed-size", ErrBadArg, typ)
	case n <= 0:
		bad = fmt.Errorf("%w: allocation of %d elements", ErrBadSize, n)
	case esize > 0 && int64(n) > math.MaxInt64/esize:
		bad = fmt.Errorf("%w: %d elements of %d bytes overflow", ErrBadSize, n, esize)
	case align < 0 || align&(align-1) != 0:
		bad = fmt.Errorf("%w: alignment %d is not a positive power of two", ErrBadArg, align)
	}
	nbytes := int64(n) * esize
	if nbytes == 0 {
		nbytes = 1 // zero-size element types still get a distinct address
	}
	align = max(align, int64(typ.Align()), minAlign)

	p.mu.Lock()
	defer p.mu.Unlock()
	off := int64(-1)
	if bad == nil {
		// Tentative: the heaps of all PEs are identical, so the same
		// request gets the same offset everywhere.
		off, bad = p.heap.alloc(nbytes, align)
		if bad == nil && zero {
			if err := p.w.tr.Put(p.id, p.id, off, make([]byte, nbytes)); err != nil {
				p.heap.free(off, nbytes)
				return Sym[T]{}, err
			}
		}
	}
	req := [4]uint64{opAlloc, uint64(n), uint64(esize), uint64(align)}
	if err := p.agree(ctx, req); err != nil {
		if off >= 0 {
			p.heap.free(off, nbytes)
		}
		return Sym[T]{}, err
	}
	if bad != nil {
		return Sym[T]{}, bad
	}
	return Sym[T]{rec: p.track(off, nbytes, n), off: off, n: n}, nil
}

// track records a new allocation of this PE (callers hold p.mu).
func (p *PE) track(off, size int64, n int) *allocRec {
	rec := &allocRec{w: p.w, off: off, size: size, n: n}
	i, _ := slices.BinarySearchFunc(p.live, off, func(r *allocRec, off int64) int { return cmp.Compare(r.off, off) })
	p.live = slices.Insert(p.live, i, rec)
	return rec
}

// untrack retires allocation r and gives its bytes back to the heap (a
// registered buffer's to the span past it; callers hold p.mu).
func (p *PE) untrack(r *allocRec) {
	r.retire()
	if r.registered {
		p.regs.free(r.off, r.size)
	} else {
		p.heap.free(r.off, r.size)
	}
	p.live = slices.DeleteFunc(p.live, func(x *allocRec) bool { return x == r })
}

// retireWhole ends the whole allocation (Free, op opFree) or registered
// buffer (UnregisterSymmetric, op opUnregister) that the Sym at off of n
// elements of r must be, collectively: this PE's operations on it (NBI
// ones included) end before the members agree, so that once they have,
// none is under way on any member: none can land in what a member hands
// out next of these bytes (and zeroes) as soon as it returns. A bad Sym,
// or a failed quiet, goes as an invalid request, so that every member
// fails; r then stays usable. Once they agree, end (if not nil) runs, and
// the bytes go back.
func (p *PE) retireWhole(ctx context.Context, name string, r *allocRec, off int64, n int, op uint64, end func() error) error {
	if err := p.check(); err != nil {
		return err
	}
	bad := p.wholeArg(name, r, off, n, op == opUnregister)
	p.mu.Lock()
	defer p.mu.Unlock()
	req := [4]uint64{op, ^uint64(0), 0, 0}
	retired := bad == nil
	if retired {
		r.retire()
		if err := p.w.tr.Quiet(p.id); err != nil {
			bad = err
		} else {
			req = [4]uint64{op, uint64(r.off), uint64(r.size), 0}
		}
	}
	if err := firstErr(p.agree(ctx, req), bad); err != nil {
		if retired {
			r.revive() // still allocated on every member
		}
		return err
	}
	var err error
	if end != nil {
		err = end()
	}
	p.untrack(r)
	return err
}

// wholeArg is why the Sym at off of n elements of rec is not what name
// ends: a whole allocation (Free, Realloc) or, when registered, a whole
// registered buffer (UnregisterSymmetric); nil when it is.
func (p *PE) wholeArg(name string, rec *allocRec, off int64, n int, registered bool) error {
	if err := p.checkSym(rec); err != nil {
		return err
	}
	what := "an allocation"
	if registered {
		what = "a registered buffer"
	}
	switch {
	case rec.registered && !registered:
		return fmt.Errorf("%w: %s of a registered buffer (UnregisterSymmetric ends its registration)", ErrBadArg, name)
	case !rec.registered && registered:
		return fmt.Errorf("%w: %s of an allocation (Free frees those)", ErrBadArg, name)
	case off != rec.off || n != rec.n:
		return fmt.Errorf("%w: %s of a Slice of %s", ErrBadArg, name, what)
	}
	return nil
}

// Free collectively frees s on every PE (shmem_free). s must be a whole
// allocation, not a Slice of one. Using s, or any Slice of it, afterwards
// is an error.
func Free[T any](ctx context.Context, p *PE, s Sym[T]) error {
	return p.retireWhole(ctx, "Free", s.rec, s.off, s.n, opFree, nil)
}

// Realloc collectively resizes s to n elements (shmem_realloc): it returns
// a new Sym whose first min(s.Len(), n) elements hold what s held on each
// PE, and frees s; the elements beyond are unspecified. Every PE calls it
// with the same s and n, in the same order relative to its other
// collective calls, and no PE may access s meanwhile. It returns once every
// PE's copy is in place. As the spec's does, a zero Sym makes it Alloc,
// and n = 0 makes it Free (returning the zero Sym). The heap needs room for
// the new allocation beside the old while it copies. When an argument is
// bad or the PEs' calls differ, every PE gets an error and s is unchanged.
func Realloc[T any](ctx context.Context, p *PE, s Sym[T], n int) (Sym[T], error) {
	switch {
	case s.rec == nil:
		return Alloc[T](ctx, p, n)
	case n == 0:
		return Sym[T]{}, Free(ctx, p, s)
	}
	if err := p.check(); err != nil {
		return Sym[T]{}, err
	}
	esize := sizeOf[T]()
	bad := p.wholeArg("Realloc", s.rec, s.off, s.n, false)
	switch {
	case bad != nil:
	case n < 0:
		bad = fmt.Errorf("%w: reallocation to %d elements", ErrBadSize, n)
	case esize > 0 && int64(n) > math.MaxInt64/esize:
		bad = fmt.Errorf("%w: %d elements of %d bytes overflow", ErrBadSize, n, esize)
	}
	nbytes := max(int64(n)*esize, 1)
	p.mu.Lock()
	defer p.mu.Unlock()
	off := int64(-1)
	if bad == nil {
		off, bad = p.heap.alloc(nbytes, max(int64(reflect.TypeFor[T]().Align()), minAlign))
	}
	req := [4]uint64{opRealloc, ^uint64(0), uint64(n), uint64(esize)}
	if bad == nil {
		req[1] = uint64(s.rec.off)
	}
	if err := p.agree(ctx, req); err != nil || bad != nil {
		if off >= 0 {
			p.heap.free(off, nbytes)
		}
		return Sym[T]{}, firstErr(err, bad)
	}
	// Puts in flight into s land before its bytes are copied.
	if err := p.w.tr.Quiet(p.id); err != nil {
		return Sym[T]{}, p.world.abortNext(syncAlloc, err)
	}
	if keep := min(int64(n), int64(s.n)) * esize; keep > 0 {
		if err := p.w.tr.Copy(p.id, p.id, off, p.id, s.off, keep); err != nil {
			return Sym[T]{}, p.world.abortNext(syncAlloc, err)
		}
	}
	p.untrack(s.rec)
	rec := p.track(off, nbytes, n)
	// Every PE's copy is in place before any returns (and reads another's).
	if err := p.world.barrier(ctx, syncAlloc, nil); err != nil {
		return Sym[T]{}, err
	}
	return Sym[T]{rec: rec, off: off, n: n}, nil
}

// agree checks that every PE makes the same collective allocation call:
// each publishes its request in its control region, a barrier passes, and
// each compares every PE's request with PE 0's. All PEs read the same
// requests, so all return the same verdict. Callers hold p.mu.
func (p *PE) agree(ctx context.Context, req [4]uint64) error {
	// A broken team synchronises no more, so a member may be any number of
	// calls behind, still reading a descriptor slot: write none.
	if err := p.world.check(); err != nil {
		return err
	}
	p.allocN++
	seq := p.allocN
	req[0] |= seq << 8
	// Two slots: a PE can publish call k+1 while a slower one still reads
	// call k, never call k+2 (the barrier of k+1 lies between).
	slot := int64(allocDescOff + (seq%2)*32)
	if err := p.w.tr.Put(p.id, p.id, slot, wordsBytes(req[:])); err != nil {
		return p.world.abortNext(syncAlloc, err)
	}
	if err := p.world.sync(ctx, syncAlloc, nil); err != nil {
		return err
	}
	var first, other [4]uint64
	for q := range p.w.n {
		dst := &other
		if q == 0 {
			dst = &first
		}
		if err := p.w.tr.Get(p.id, q, slot, wordsBytes(dst[:])); err != nil {
			// The others may have agreed: the heap can no longer be
			// kept identical.
			return p.world.abortNext(syncAlloc, err)
		}
		if q > 0 && other != first {
			return fmt.Errorf("%w: collective allocation call #%d: PE 0 made %s, PE %d made %s",
				ErrCollectiveMismatch, seq, describeReq(first), q, describeReq(other))
		}
	}
	return nil
}

func describeReq(r [4]uint64) string {
	seq := r[0] >> 8
	switch r[0] & 0xff {
	case opAlloc:
		return fmt.Sprintf("call #%d Alloc(%d elements of %d bytes, align %d)", seq, int64(r[1]), r[2], r[3])
	case opFree:
		if r[1] == ^uint64(0) {
			return fmt.Sprintf("call #%d Free(invalid Sym)", seq)
		}
		return fmt.Sprintf("call #%d Free(offset %d, %d bytes)", seq, r[1], r[2])
	case opRegister:
		return fmt.Sprintf("call #%d RegisterSymmetric(%d elements of %d bytes)", seq, int64(r[1]), r[2])
	case opRegistered:
		if r[1] == 0 {
			return fmt.Sprintf("call #%d: its buffer could not be registered", seq)
		}
		return fmt.Sprintf("call #%d: its buffer registered", seq)
	case opUnregister:
		if r[1] == ^uint64(0) {
			return fmt.Sprintf("call #%d UnregisterSymmetric(invalid Sym)", seq)
		}
		return fmt.Sprintf("call #%d UnregisterSymmetric(offset %d, %d bytes)", seq, r[1], r[2])
	case opRealloc:
		if r[1] == ^uint64(0) {
			return fmt.Sprintf("call #%d Realloc(invalid Sym or size)", seq)
		}
		return fmt.Sprintf("call #%d Realloc(offset %d to %d elements of %d bytes)", seq, r[1], int64(r[2]), r[3])
	}
	return fmt.Sprintf("call #%d (unknown)", seq)
}

func wordsBytes(w []uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8)
}

// asBytes views a slice of plain values as bytes.
func asBytes[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), int64(len(s))*sizeOf[T]())
}

// Lookup returns the Sym of n elements of T at byte offset off, which must
// lie inside one live allocation of p's world. It turns an offset that
// travelled in a message (see actors.Ref) back into a Sym.
func Lookup[T any](p *PE, off int64, n int) (Sym[T], error) {
	if err := p.check(); err != nil {
		return Sym[T]{}, err
	}
	if n < 0 || off < 0 || int64(n) > math.MaxInt64/max(sizeOf[T](), 1)-off {
		return Sym[T]{}, fmt.Errorf("%w: %d elements at offset %d", ErrBadSize, n, off)
	}
	end := off + int64(n)*sizeOf[T]()
	p.mu.Lock()
	defer p.mu.Unlock()
	i, _ := slices.BinarySearchFunc(p.live, off, func(r *allocRec, off int64) int { return cmp.Compare(r.off, off) })
	if i == len(p.live) || p.live[i].off > off {
		i--
	}
	if i < 0 || end > p.live[i].off+p.live[i].size {
		return Sym[T]{}, fmt.Errorf("%w: [%d, %d) is not inside one live allocation", ErrBadSym, off, end)
	}
	if (off-p.live[i].off)%max(int64(reflect.TypeFor[T]().Align()), 1) != 0 {
		return Sym[T]{}, fmt.Errorf("%w: offset %d misaligned for %v", ErrBadArg, off, reflect.TypeFor[T]())
	}
	return Sym[T]{rec: p.live[i], off: off, n: n}, nil
}

// HostMemory reports whether p's partition of the symmetric heap is host
// memory, so that Local returns slices of it (the host backend), rather
// than device memory reached through Put and Get (the GPU backends).
func (p *PE) HostMemory() bool { return p != nil && p.w.tr.Heap(p.id) != nil }

// Local returns p's own copy of s as a slice, for backends whose
// partitions the host can address (host). Elsewhere it returns an error;
// use Get and Put. The slice is valid while s is: after Free its writes
// land in whatever allocation takes the bytes next, and after Run returns
// it faults (the partition is unmapped). Nothing checks this.
func Local[T any](p *PE, s Sym[T]) ([]T, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if err := p.checkSym(s.rec); err != nil {
		return nil, err
	}
	v := view(p.w.tr.Heap(p.id), s)
	if v == nil {
		return nil, fmt.Errorf("%w: the %s backend's partitions are not host memory; use Get/Put", ErrBadArg, p.w.cfg.Backend)
	}
	return v, nil
}

// HeapFree reports the bytes of this PE's partition of the symmetric heap
// that no allocation holds, in all and in the largest free block (the
// largest allocation that can succeed, alignment aside). Every PE of a
// world makes the same allocations, so every PE reports the same.
func (p *PE) HeapFree() (total, largest int64) {
	if p == nil {
		return 0, 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.heap.freeBytes()
}

// allocator is a first-fit allocator over one partition. Every PE runs an
// identical one and feeds it the identical (agreed) sequence of requests,
// so offsets match without communication.
type allocator struct {
	base, size int64
	spans      []span // free blocks, sorted by off, coalesced
}

type span struct{ off, n int64 }

func (a *allocator) init(base, size int64) {
	a.base, a.size = base, size
	a.spans = []span{{base, size - base}}
}

func (a *allocator) freeBytes() (total, largest int64) {
	for _, s := range a.spans {
		total += s.n
		largest = max(largest, s.n)
	}
	return
}

func alignUp(x, a int64) int64 { return (x + a - 1) &^ (a - 1) }

func (a *allocator) alloc(n, align int64) (int64, error) {
	n = alignUp(n, minAlign)
	for i, s := range a.spans {
		start := alignUp(s.off, align)
		if start-s.off > s.n || s.n-(start-s.off) < n {
			continue
		}
		a.carve(i, start, n)
		return start, nil
	}
	total, largest := a.freeBytes()
	return -1, fmt.Errorf("%w: requested %d bytes (align %d); %d bytes free, largest free block %d, heap %d bytes per PE (set %s to enlarge)",
		ErrHeapExhausted, n, align, total, largest, a.size, EnvSymmetricSize)
}

// take allocates exactly [off, off+n) if it is free.
func (a *allocator) take(off, n int64) bool {
	n = alignUp(n, minAlign)
	for i, s := range a.spans {
		if s.off <= off && off+n <= s.off+s.n {
			a.carve(i, off, n)
			return true
		}
	}
	return false
}

// carve takes [start, start+n) out of free span i, which holds it.
func (a *allocator) carve(i int, start, n int64) {
	s := a.spans[i]
	rest := []span{}
	if start > s.off {
		rest = append(rest, span{s.off, start - s.off})
	}
	if end := s.off + s.n; start+n < end {
		rest = append(rest, span{start + n, end - start - n})
	}
	a.spans = append(a.spans[:i], append(rest, a.spans[i+1:]...)...)
}

func (a *allocator) free(off, n int64) {
	n = alignUp(n, minAlign)
	i := sort.Search(len(a.spans), func(i int) bool { return a.spans[i].off > off })
	a.spans = append(a.spans, span{})
	copy(a.spans[i+1:], a.spans[i:])
	a.spans[i] = span{off, n}
	// Coalesce with the neighbours.
	if i+1 < len(a.spans) && a.spans[i].off+a.spans[i].n == a.spans[i+1].off {
		a.spans[i].n += a.spans[i+1].n
		a.spans = append(a.spans[:i+1], a.spans[i+2:]...)
	}
	if i > 0 && a.spans[i-1].off+a.spans[i-1].n == a.spans[i].off {
		a.spans[i-1].n += a.spans[i].n
		a.spans = append(a.spans[:i], a.spans[i+1:]...)
	}
}
