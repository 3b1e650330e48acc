package pgas

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/symchan/symchan/pgas/driver"
)

// putSignal validates and issues a put-with-signal. It is the send path
// of every mailbox: no closure, so that nothing is called through a
// function value.
func putSignal[T any](p *PE, dst Sym[T], src []T, sig Sym[uint64], val uint64, op SigOp, pe int, nbi, unordered bool) error {
	if !op.Valid() {
		return fmt.Errorf("%w: signal operation %v", ErrBadArg, op)
	}
	if !putSignalOK(p, dst.rec, sig.rec, pe, len(src) <= dst.n, dst.off, int64(len(src))*sizeOf[T](), sig.off, sig.n) {
		if err := checkPutSignal(p, "PutSignal", dst, src, sig, pe); err != nil {
			return err
		}
	}
	if err := holdPair(dst.rec, sig.rec); err != nil {
		return err
	}
	var err error
	if ut := p.w.ut; unordered && ut != nil {
		err = ut.PutSignalUnordered(p.id, pe, dst.off, asBytes(src), sig.off, val, op)
	} else {
		err = p.w.tr.PutSignal(p.id, pe, dst.off, asBytes(src), sig.off, val, op, nbi)
	}
	releasePair(dst.rec, sig.rec)
	return err
}

// checkPutSignal checks the arguments of a put of src into dst with sig as
// its signal word, saying what is wrong. Its callers ask putSignalOK
// first, which answers the common case without a call.
func checkPutSignal[T any](p *PE, name string, dst Sym[T], src []T, sig Sym[uint64], pe int) error {
	n := int64(len(src)) * sizeOf[T]()
	if err := p.checkRMA(dst.rec, pe); err != nil {
		return err
	}
	if err := p.checkSym(sig.rec); err != nil {
		return fmt.Errorf("signal: %w", err)
	}
	if sig.n < 1 {
		return fmt.Errorf("%w: empty signal Sym", ErrBadSize)
	}
	if err := checkFits(name, len(src), dst.n); err != nil {
		return err
	}
	return signalApart(name, sig, dst.off, n)
}

// signalApart checks that the signal word at sig lies outside the n bytes
// put at off: a put-with-signal's data and its word must not overlap.
func signalApart(name string, sig Sym[uint64], off, n int64) error {
	if sig.off < off+n && off < sig.off+8 {
		return fmt.Errorf("%w: %s: signal word at offset %d overlaps the data [%d, %d)", ErrBadArg, name, sig.off, off, off+n)
	}
	return nil
}

// putSignalOK is checkPutSignal's common case, small enough to inline: a
// put of n bytes that fits at off in d, whose signal word at sigOff in r
// lies outside them, towards a PE of p's world, open. (Whether d or r was
// freed, holdPair tells.)
func putSignalOK(p *PE, d, r *allocRec, pe int, fits bool, off, n, sigOff int64, sigN int) bool {
	return p != nil && uint(pe) < uint(p.w.n) && !p.w.closed.Load() && d != nil && d.w == p.w &&
		(r == d || r != nil && r.w == p.w) && sigN >= 1 && fits && (sigOff >= off+n || off >= sigOff+8)
}

// holdPair holds the data's and the signal's allocations for an
// operation (one hold when the signal lies in the data's allocation, as
// in mailboxes); releasePair ends it.
func holdPair(data, sig *allocRec) error {
	if err := data.hold(); err != nil || sig == data {
		return err
	}
	return holdSignal(data, sig)
}

func holdSignal(data, sig *allocRec) error {
	if err := sig.hold(); err != nil {
		data.release()
		return fmt.Errorf("signal: %w", err)
	}
	return nil
}

func releasePair(data, sig *allocRec) {
	if sig != data {
		sig.release()
	}
	data.release()
}

// PutSignalIf claims sig's first word on PE pe with a compare-and-swap
// from cond to claim and, only if the word held cond, copies src into dst
// there and then sets the word to val: a PutSignal with SignalSet, whose
// signal a PE that observes sees the data of the same call with. It
// returns the word's old value (cond when it put) once src may be reused;
// the put and its signal then complete as PutSignal's do (Quiet). Nothing
// else should write the word between the claim and the signal but other
// claims, which fail.
//
// A symchan extension, not OpenSHMEM's: it is a reply that must not land
// once its requester gave up (actors.Reply), which the GPU backends run as
// one routine on the GPU instead of a compare-and-swap, a round trip to
// the host, and a put-with-signal. Elsewhere it is those two steps.
func PutSignalIf[T any](p *PE, dst Sym[T], src []T, sig Sym[uint64], cond, claim, val uint64, pe int) (uint64, error) {
	if !putSignalOK(p, dst.rec, sig.rec, pe, len(src) <= dst.n, dst.off, int64(len(src))*sizeOf[T](), sig.off, sig.n) {
		if err := checkPutSignal(p, "PutSignalIf", dst, src, sig, pe); err != nil {
			return 0, err
		}
	}
	if err := holdPair(dst.rec, sig.rec); err != nil {
		return 0, err
	}
	// One routine where the transport has it, else a compare-and-swap
	// and a put-with-signal.
	var old uint64
	var err error
	ct := p.w.ct
	if ct != nil {
		old, err = ct.ClaimPutSignal(p.id, pe, dst.off, asBytes(src), sig.off, cond, claim, val)
	}
	if ct == nil || err != nil && errors.Is(err, errors.ErrUnsupported) {
		old, err = p.w.tr.Atomic(p.id, pe, sig.off, driver.KindUint64, driver.OpCompareSwap, claim, cond)
		if err == nil && old == cond {
			err = p.w.tr.PutSignal(p.id, pe, dst.off, asBytes(src), sig.off, val, SignalSet, false)
		}
	}
	releasePair(dst.rec, sig.rec)
	return old, err
}

// PutSignal copies src into dst on PE pe, then updates sig's first word
// there with op and val (nvshmem_putmem_signal). A PE that observes the
// signal update also sees the data of the same call; nothing else is
// ordered without Fence or Quiet. The signal word must not overlap the
// data. It returns once src may be reused.
func PutSignal[T any](p *PE, dst Sym[T], src []T, sig Sym[uint64], val uint64, op SigOp, pe int) error {
	return putSignal(p, dst, src, sig, val, op, pe, false, false)
}

// PutSignalNBI is PutSignal that may return before src may be reused:
// src must stay unchanged until p.Quiet returns.
func PutSignalNBI[T any](p *PE, dst Sym[T], src []T, sig Sym[uint64], val uint64, op SigOp, pe int) error {
	return putSignal(p, dst, src, sig, val, op, pe, true, false)
}

// PutSignalUnordered is PutSignal without the order between data and
// signal: a PE that observes the signal update may still read older bytes
// of dst for a while (every byte lands eventually). It is for data that
// carries its own check, so that a reader can tell whole from torn and
// read again: actors' mailbox slots on GPUs are sealed so, and skip the
// system-scope fence a GPU's put-with-signal costs between data and
// signal. Where the backend orders them for free (the host backend), it is
// PutSignal.
func PutSignalUnordered[T any](p *PE, dst Sym[T], src []T, sig Sym[uint64], val uint64, op SigOp, pe int) error {
	return putSignal(p, dst, src, sig, val, op, pe, false, true)
}

// SignalOp updates sig's first word on PE pe with op and val, without data
// (nvshmemx_signal_op). It is atomic with respect to other signal
// operations and waits. Like the signal of a PutSignal, the update may
// land after SignalOp returns (on GPUs it is queued, not waited for):
// Quiet or a barrier completes it, Fence orders it.
func SignalOp(p *PE, sig Sym[uint64], val uint64, op SigOp, pe int) error {
	if err := checkSignal(p, "SignalOp", sig, op, pe); err != nil {
		return err
	}
	if err := sig.rec.hold(); err != nil {
		return err
	}
	err := p.w.tr.PutSignal(p.id, pe, sig.off, nil, sig.off, val, op, false)
	sig.rec.release()
	return err
}

// checkSignal checks a signal update's arguments.
func checkSignal(p *PE, name string, sig Sym[uint64], op SigOp, pe int) error {
	if !op.Valid() {
		return fmt.Errorf("%w: %s: signal operation %v", ErrBadArg, name, op)
	}
	if err := p.checkRMA(sig.rec, pe); err != nil {
		return fmt.Errorf("%s's signal: %w", name, err)
	}
	if sig.n < 1 {
		return fmt.Errorf("%w: %s: empty signal Sym", ErrBadSize, name)
	}
	return nil
}

// SignalFetch atomically loads sig's first word on the calling PE
// (nvshmem_signal_fetch).
func SignalFetch(p *PE, sig Sym[uint64]) (uint64, error) {
	return AtomicFetch(p, sig, p.id)
}

// SignalWaitUntil blocks until sig's first word on the calling PE
// satisfies cmp val, and returns the value that satisfied it
// (nvshmem_signal_wait_until). It ends early with an error when ctx ends
// or another PE fails.
func SignalWaitUntil(ctx context.Context, p *PE, sig Sym[uint64], cmp Cmp, val uint64) (uint64, error) {
	if sig.rec != nil && sig.n < 1 {
		return 0, fmt.Errorf("%w: empty signal Sym", ErrBadSize)
	}
	r, err := Wait(ctx, p, WaitAll, WaitSet[uint64]{Ivars: sig.Slice(0, min(1, sig.n)), Cmp: cmp, Value: val})
	return r.Word, err
}

// WaitSet names words to wait on in the calling PE's partition, as the
// spec's wait_until_* and test_* routines take them. Package signals wraps
// it in the spec's API.
type WaitSet[T Word] struct {
	Ivars Sym[T] // the words
	// Status excludes Ivars[i] when Status[i] != 0; nil includes all.
	Status []int
	Cmp    Cmp
	Value  T   // comparand of the scalar forms
	Values []T // comparands of the _vector forms, one per word; nil otherwise
	// Indices receives satisfied indices (WaitSome); len ≥ Ivars.Len().
	Indices []int
	// From, when not nil, lists the PEs whose operations can satisfy the
	// wait. Once every one of them has returned from its function (its
	// PE.Go goroutines included) and the set is still not satisfied, the
	// wait ends with an error wrapping ErrNoWriters rather than wait
	// forever. The calling PE counts as running, and so do PEs of other
	// processes (only PEs of this process are seen to return). An empty,
	// non-nil From names no PE: the wait ends so at once unless the set is
	// satisfied already.
	From []int
	// Fetch, when not nil, also reads data beside the words a WaitAny or
	// WaitSome (or their Test forms) reports; see WaitFetch.
	Fetch *WaitFetch
}

// WaitFetch has a wait read, for the k-th index i it reports (Indices[k]
// of a some-wait, the index of an any-wait), Bytes bytes at byte offset
// i·Stride of Data on the calling PE into Into[k·Bytes:(k+1)·Bytes]. They
// are read after word i was seen to satisfy the condition, so the data of
// a put-with-signal whose signal is word i is seen whole.
//
// It is a symchan extension, not in OpenSHMEM or NVSHMEM: it is what a
// Get after the wait would read, but where the words and the data are
// device memory and the waiter is the host, the wait's own report brings
// it, which saves the Get's round trip across PCIe (a mailbox's message
// header rides in it).
type WaitFetch struct {
	Data   Sym[byte] // on the calling PE
	Stride int       // bytes from index i's data to index i+1's
	Bytes  int       // bytes per index: 1 … MaxFetchBytes
	Into   []byte    // room for Bytes per index reported
}

// MaxFetchBytes is the most a WaitFetch reads per index.
const MaxFetchBytes = driver.MaxFetchBytes

// Wait blocks until ws is satisfied in mode: all words (WaitAll), one word
// (WaitAny: result N is its index), or some words (WaitSome: result N is
// how many indices were written). An empty wait set (no words, or all
// excluded) returns at once: WaitAny reports NoIndex, WaitSome 0. Over a
// series of WaitAny calls every word that stays satisfied is reported
// eventually. It ends with an error when ctx ends or another PE fails.
func Wait[T Word](ctx context.Context, p *PE, mode WaitMode, ws WaitSet[T]) (WaitResult, error) {
	return wait(ctx, p, mode, false, ws)
}

// Test is Wait evaluated once, without blocking: WaitAll reports N = 1 if
// all words satisfy the condition, else 0; WaitAny an index or NoIndex;
// WaitSome the count of indices written (possibly 0).
func Test[T Word](p *PE, mode WaitMode, ws WaitSet[T]) (WaitResult, error) {
	return wait(context.Background(), p, mode, true, ws)
}

func wait[T Word](ctx context.Context, p *PE, mode WaitMode, test bool, ws WaitSet[T]) (WaitResult, error) {
	if err := p.check(); err != nil {
		return WaitResult{}, err
	}
	if err := p.checkSym(ws.Ivars.rec); err != nil {
		return WaitResult{}, err
	}
	n := ws.Ivars.n
	switch {
	case mode < WaitAll || mode > WaitSome:
		return WaitResult{}, fmt.Errorf("%w: wait mode %d", ErrBadArg, mode)
	case !ws.Cmp.Valid():
		return WaitResult{}, fmt.Errorf("%w: comparison %v", ErrBadArg, ws.Cmp)
	case ws.Status != nil && len(ws.Status) != n:
		return WaitResult{}, fmt.Errorf("%w: status mask has %d entries for %d words", ErrBadArg, len(ws.Status), n)
	case ws.Values != nil && len(ws.Values) != n:
		return WaitResult{}, fmt.Errorf("%w: %d comparison values for %d words", ErrBadArg, len(ws.Values), n)
	case mode == WaitSome && len(ws.Indices) < n:
		return WaitResult{}, fmt.Errorf("%w: indices has room for %d of %d words", ErrBadArg, len(ws.Indices), n)
	}
	fetch, err := p.waitFetch(mode, n, ws.Fetch)
	if err != nil {
		return WaitResult{}, err
	}
	for _, q := range ws.From {
		if err := p.checkPE(q); err != nil {
			return WaitResult{}, fmt.Errorf("wait's From: %w", err)
		}
	}
	if emptySet(n, ws.Status) {
		switch mode {
		case WaitAny:
			return WaitResult{N: NoIndex}, nil
		case WaitSome:
			return WaitResult{}, nil
		}
		return WaitResult{N: 1}, nil
	}
	req := driver.WaitRequest{
		Mode: mode, Test: test, Kind: kindOf[T](), Off: ws.Ivars.off, N: n,
		Status: ws.Status, Cmp: ws.Cmp, Value: bitsOf(ws.Value), Indices: ws.Indices, Fetch: fetch,
	}
	if ws.Values != nil {
		if req.Kind == driver.KindUint64 {
			// Same bits: no copy on the hot path of mailboxes.
			req.Values = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(ws.Values))), n)
		} else {
			req.Values = make([]uint64, n)
			for i, v := range ws.Values {
				req.Values[i] = bitsOf(v)
			}
		}
	}
	var cursor *atomic.Int64
	if mode == WaitAny {
		cursor = ws.Ivars.rec.cursor(ws.Ivars.off, n)
		req.Start = int(cursor.Load() % int64(n))
	}
	var r WaitResult
	if ws.From != nil && !test {
		r, err = p.waitFrom(ctx, &req, ws.From)
	} else {
		r, err = p.w.tr.Wait(ctx, p.id, p.w.failed, req)
	}
	if err != nil {
		return r, p.w.abortErr(ctx, "wait", err)
	}
	if ws.Ivars.rec.isFreed() || (ws.Fetch != nil && ws.Fetch.Data.rec.isFreed()) {
		// Freed while it waited: what it saw may be the next allocation's.
		return WaitResult{}, fmt.Errorf("%w: wait set at offset %d was freed during the wait", ErrBadSym, ws.Ivars.off)
	}
	if mode == WaitAny && r.N != NoIndex {
		// Start this wait set's next any-wait after the word just
		// reported, so that every satisfied word gets its turn.
		cursor.Store(int64(r.N) + 1)
	}
	return r, nil
}

// waitFetch checks f for a wait of mode over n words and returns it as the
// driver takes it (zero without f).
func (p *PE) waitFetch(mode WaitMode, n int, f *WaitFetch) (driver.Fetch, error) {
	if f == nil {
		return driver.Fetch{}, nil
	}
	if err := p.checkSym(f.Data.rec); err != nil {
		return driver.Fetch{}, fmt.Errorf("wait's Fetch.Data: %w", err)
	}
	reports := n // the most indices a some-wait reports
	switch {
	case mode == WaitAll:
		return driver.Fetch{}, fmt.Errorf("%w: Fetch is for WaitAny and WaitSome, not WaitAll", ErrBadArg)
	case mode == WaitAny:
		reports = min(n, 1)
	}
	switch {
	case f.Bytes < 1 || f.Bytes > MaxFetchBytes:
		return driver.Fetch{}, fmt.Errorf("%w: Fetch.Bytes = %d, want 1 … %d", ErrBadArg, f.Bytes, MaxFetchBytes)
	case f.Stride < 0:
		return driver.Fetch{}, fmt.Errorf("%w: Fetch.Stride = %d, want ≥ 0", ErrBadArg, f.Stride)
	case n > 0 && int64(n-1)*int64(f.Stride)+int64(f.Bytes) > int64(f.Data.n):
		return driver.Fetch{}, fmt.Errorf("%w: Fetch reads %d bytes at a stride of %d for %d words, beyond Data's %d", ErrBadArg, f.Bytes, f.Stride, n, f.Data.n)
	case len(f.Into) < reports*f.Bytes:
		return driver.Fetch{}, fmt.Errorf("%w: Fetch.Into has %d bytes, %d indices × %d bytes may be reported", ErrBadArg, len(f.Into), reports, f.Bytes)
	}
	return driver.Fetch{Off: f.Data.off, Stride: int64(f.Stride), Bytes: f.Bytes, Into: f.Into}, nil
}

func emptySet(n int, status []int) bool {
	if status == nil {
		return n == 0
	}
	for _, s := range status {
		if s == 0 {
			return false
		}
	}
	return true
}
