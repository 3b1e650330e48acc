// This file holds futures: a System's reply slots, the reply paths
// (Reply: a claim, then the reply and its word, in one PutSignalIf; or,
// for a reply larger than a line where the words are lined, replyLarge: a
// compare-and-swap claim, the reply, a fence, then the length and the
// word in one PutSignal) and one await path (Await: pgas.Park where the
// words are lined, else pgas.Wait; then decode).
//
// Invariants, for a reply slot whose word is generation<<2 | state:
//
//   - A word holding g over (state 0) arms the slot for generation g+1;
//     a Future of generation g owns the slot from NewFuture until Await or
//     Abandon returns.
//   - A replier writes a byte of the slot only after its compare-and-swap
//     moved the word from g-1 over to g writing; Abandon moves it from
//     g-1 over to g over, so a late reply writes nothing.
//   - The reply's bytes are written before the word becomes g over, and
//     Await reads them only after it saw g over.
//   - A slot is in free only when no reply can still be written to it: a
//     slot abandoned while its reply was being written waits in
//     quarantine until the word says that reply is over.

package actors

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/symchan/symchan/internal/racesync"
	"github.com/symchan/symchan/pgas"
)

// System is a PE's actor runtime state: for now, the table of reply slots
// behind its futures. Create one per PE, collectively, with NewSystem.
type System struct {
	pe  *pgas.PE
	cfg systemConfig
	// w: a word per reply slot, generation<<2 | state. Where they are
	// lined (host memory) a word's line also holds the reply's length and
	// a reply of up to replyLineCap bytes, and Await parks until its word
	// lands (pgas.Park) and decodes the reply in place.
	w    signalWords
	data pgas.Sym[byte] // per reply slot: 8-byte length, then the reply (lined: the length is in the line, a reply too large for it at +8)
	// localData is this PE's data in place, where the words are lined.
	localData []byte
	// Per reply slot where words have lines: the word an Await parks
	// for (written by the awaiting goroutine before it parks), and
	// Park's condition, made on the slot's first Await rather than on
	// every one.
	want   []uint64
	landed []func() bool
	bufs   sync.Pool // *[]byte: reply encodings, and replies fetched by Get

	// others are the PEs a reply can come from once Await waits: the
	// PEs other than this one (whose goroutine is the one awaiting).
	others []int

	mu         sync.Mutex
	free       []int
	gen        []uint64
	quarantine []int // abandoned while a reply was being written
}

// Reply slot states, in a word's low two bits. A word holding generation
// g and stateOver means g is over (replied to, or abandoned): the slot is
// then armed for generation g+1, which needs no store of its own, so
// NewFuture writes nothing. A replier may write a slot only after moving
// its word from armed (g-1 over) to writing (g writing) with a
// compare-and-swap, so a reply to an abandoned future (which moved the
// word to g over) is dropped before any byte of it is written, and a
// reused slot (a later generation) cannot be hit by a late reply.
const (
	stateOver    = 0
	stateWriting = 1
)

func word(gen uint64, state uint64) uint64 { return gen<<2 | state }

// armed is the word of a slot awaiting the reply of generation gen.
func armed(gen uint64) uint64 { return word(gen-1, stateOver) }

// NewSystem collectively creates the PE's actor state: the reply slots of
// its futures.
func NewSystem(ctx context.Context, pe *pgas.PE, opts ...SystemOption) (*System, error) {
	c, err := systemOptions(opts)
	if err != nil {
		return nil, err
	}
	return newSystem(ctx, pe, c, lines(pe))
}

// newSystem lays the reply words out for host or device memory, as
// newMailbox does.
func newSystem(ctx context.Context, pe *pgas.PE, c systemConfig, host bool) (*System, error) {
	var err error
	s := &System{pe: pe, cfg: c, gen: make([]uint64, c.futures)}
	if s.w, err = allocWords(ctx, pe, c.futures, host); err != nil {
		return nil, fmt.Errorf("actors: reply words: %w", err)
	}
	if s.data, err = pgas.AllocAligned[byte](ctx, pe, c.futures*s.slotBytes(), 8); err != nil {
		_ = pgas.Free(ctx, pe, s.w.alloc)
		return nil, fmt.Errorf("actors: reply slots (%d × %d bytes): %w", c.futures, s.slotBytes(), err)
	}
	if host {
		if s.localData, err = pgas.Local(pe, s.data); err != nil {
			return nil, err
		}
		s.want = isolated[uint64](c.futures)
		s.landed = make([]func() bool, c.futures)
	}
	s.free = make([]int, c.futures)
	for i := range s.free {
		s.free[i] = c.futures - 1 - i
	}
	for q := range pe.NumPEs() {
		if q != pe.ID() {
			s.others = append(s.others, q)
		}
	}
	return s, nil
}

// PE is the PE this System belongs to (nil for a zero System).
func (s *System) PE() *pgas.PE {
	if s == nil {
		return nil
	}
	return s.pe
}

// word is the reply word of slot.
func (s *System) word(slot int) pgas.Sym[uint64] { return s.w.word(slot) }

func (s *System) slotBytes() int { return 8 + (s.cfg.replySize+7)&^7 }

// ReplyTo addresses one future's reply slot. It is plain data, so it can
// travel inside any message, including plain structs on a Chan.
type ReplyTo struct {
	PE   int32
	Slot uint32
	Gen  uint64
}

// Future is the receiving side of one reply. Create it with NewFuture,
// send its ReplyTo with a request, then Await the reply. A Future belongs
// to one goroutine; the System it comes from is safe for concurrent use.
type Future[T any] struct {
	sys   *System
	codec Codec[T]
	slot  int
	gen   uint64
	used  bool
}

// NewFuture reserves a reply slot on this PE for a reply of plain type T
// (see NewChan; other types: [NewFutureCodec]). It fails if all slots (the
// Futures option) are outstanding. Await or Abandon releases it.
func NewFuture[T any](sys *System) (*Future[T], error) {
	codec, err := PlainCodec[T]()
	if err != nil {
		return nil, err
	}
	return newFuture(sys, codec)
}

// NewFutureCodec is NewFuture for a reply that codec decodes.
func NewFutureCodec[T any](sys *System, codec Codec[T]) (*Future[T], error) {
	codec, err := givenCodec(codec)
	if err != nil {
		return nil, err
	}
	return newFuture(sys, codec)
}

func newFuture[T any](sys *System, codec Codec[T]) (*Future[T], error) {
	if sys == nil {
		return nil, fmt.Errorf("%w: nil *System", ErrBadArg)
	}
	s := sys
	// Kept past its world, a System answers ErrClosed on every backend (on
	// host memory spoiledLocked would read unmapped words; elsewhere
	// nothing below calls pgas). Its words are never freed, so only the
	// world's end makes them inaccessible.
	if !pgas.AddrAccessible(s.pe, s.w.sym, s.pe.ID()) {
		return nil, pgas.ErrWorldEnded
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reclaimLocked()
	for len(s.free) > 0 {
		slot := s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		if s.spoiledLocked(slot) {
			continue
		}
		s.gen[slot]++
		return &Future[T]{sys: s, codec: codec, slot: slot, gen: s.gen[slot]}, nil
	}
	return nil, fmt.Errorf("actors: all %d futures of PE %d are outstanding", len(s.gen), s.pe.ID())
}

// spoiledLocked reports whether free slot's word was written by a reply
// to a ReplyTo that no Future made (see Reply), where words are host
// memory: a generation the slot has not reached yet. The slot then
// continues from that generation: at once if the reply is complete, else
// from quarantine. Device memory is not checked: a load there costs what
// NewFuture saves by writing nothing.
func (s *System) spoiledLocked(slot int) bool {
	if !s.w.lined() {
		return false
	}
	w := s.w.load(slot)
	if w == word(s.gen[slot], stateOver) {
		return false
	}
	s.gen[slot] = w >> 2
	if w&3 == stateOver {
		return false
	}
	s.quarantine = append(s.quarantine, slot)
	return true
}

// reclaimLocked frees quarantined slots whose late reply has landed.
func (s *System) reclaimLocked() {
	kept := s.quarantine[:0]
	for _, slot := range s.quarantine {
		w, err := pgas.AtomicFetch(s.pe, s.word(slot), s.pe.ID())
		if err == nil && w == word(s.gen[slot], stateOver) {
			s.free = append(s.free, slot)
		} else {
			kept = append(kept, slot)
		}
	}
	s.quarantine = kept
}

// ReplyTo is the address a replier passes to Reply (the zero ReplyTo,
// which Reply refuses, for a zero Future).
func (f *Future[T]) ReplyTo() ReplyTo {
	if f.zero() {
		return ReplyTo{}
	}
	return ReplyTo{PE: int32(f.sys.pe.ID()), Slot: uint32(f.slot), Gen: f.gen}
}

// Await waits for the reply and returns it. It ends with an error when ctx
// ends (the future is then abandoned: a late reply is dropped) or a PE
// fails. A Future is awaited once.
func (f *Future[T]) Await(ctx context.Context) (T, error) {
	var zero T
	if f.zero() {
		return zero, errZero
	}
	if f.used {
		return zero, fmt.Errorf("actors: future awaited or abandoned already")
	}
	f.used = true
	s := f.sys
	// pgas.Park and pgas.Wait refuse the words of an ended world.
	done := word(f.gen, stateOver)
	var head []byte // the slot's first bytes, read by the wait
	if s.w.lined() {
		s.want[f.slot] = done
		if err := pgas.Park(ctx, s.pe, s.word(f.slot), s.others, s.landedFunc(f.slot)); err != nil {
			f.abandon()
			return zero, err
		}
		racesync.Acquire()
	} else {
		// Device memory: the wait's report brings the length and a small
		// reply, saving decode's Get (a PCIe round trip). WaitAny over one
		// word is WaitAll; Fetch needs it.
		bp := s.buf()
		defer s.bufs.Put(bp)
		n := min(pgas.MaxFetchBytes, s.slotBytes())
		head = slices.Grow((*bp)[:0], n)[:n]
		base := f.slot * s.slotBytes()
		ws := pgas.WaitSet[uint64]{Ivars: s.word(f.slot), Cmp: pgas.CmpEQ, Value: done, From: s.others,
			Fetch: &pgas.WaitFetch{Data: s.data.Slice(base, base+n), Stride: n, Bytes: n, Into: head}}
		if _, err := pgas.Wait(ctx, s.pe, pgas.WaitAny, ws); err != nil {
			f.abandon()
			return zero, err
		}
	}
	v, err := f.decode(head)
	s.mu.Lock()
	s.free = append(s.free, f.slot)
	s.mu.Unlock()
	if err != nil {
		return v, endedErr(s.pe, "Await", err)
	}
	return v, nil
}

// landedFunc is Park's condition for slot: its word holds want[slot].
// Only the goroutine awaiting the slot calls it (NewFuture hands a slot
// to one Future at a time), and only it makes it.
func (s *System) landedFunc(slot int) func() bool {
	if f := s.landed[slot]; f != nil {
		return f
	}
	w, want := s.w.at(slot), &s.want[slot]
	f := func() bool { return atomic.LoadUint64(w) == *want }
	s.landed[slot] = f
	return f
}

// decode decodes the reply that has landed in f's slot; head, when not
// nil, holds the slot's first bytes, read after the reply landed.
func (f *Future[T]) decode(head []byte) (v T, err error) {
	s := f.sys
	base := f.slot * s.slotBytes()
	if s.w.lined() { // the length in the line, the reply there or in the slot
		line := s.w.line(f.slot)
		n := line[0]
		switch {
		case n <= replyLineCap:
			return f.codec.Decode(wordBytes(line[1:])[:n]) // Decode retains nothing
		case n <= uint64(s.cfg.replySize):
			return f.codec.Decode(s.localData[base+8 : base+8+int(n)])
		}
		return v, fmt.Errorf("%w: reply of %d bytes in a slot of %d", ErrProtocol, n, s.cfg.replySize)
	}
	// Each Get is a round trip on GPUs: the first reads the length with
	// the start of the reply, which holds a small reply whole.
	bp := s.buf()
	defer s.bufs.Put(bp)
	if head == nil {
		head = slices.Grow((*bp)[:0], cacheLine)[:min(cacheLine, s.slotBytes())]
		if err := pgas.Get(s.pe, head, s.data.Slice(base, base+len(head)), s.pe.ID()); err != nil {
			return v, err
		}
	}
	n := binary.LittleEndian.Uint64(head)
	if n > uint64(s.cfg.replySize) {
		return v, fmt.Errorf("%w: reply of %d bytes in a slot of %d", ErrProtocol, n, s.cfg.replySize)
	}
	if 8+n <= uint64(len(head)) {
		return f.codec.Decode(head[8 : 8+n])
	}
	*bp = slices.Grow((*bp)[:0], int(n))[:n]
	if err := pgas.Get(s.pe, *bp, s.data.Slice(base+8, base+8+int(n)), s.pe.ID()); err != nil {
		return v, err
	}
	return f.codec.Decode(*bp)
}

// buf takes a buffer from the pool; give it back with s.bufs.Put. Its
// array is 8-byte aligned (Go aligns allocations of 16 bytes and more to
// at least 8), so Reply can put it as words.
func (s *System) buf() *[]byte {
	if bp, ok := s.bufs.Get().(*[]byte); ok {
		return bp
	}
	b := make([]byte, 0, 64)
	return &b
}

// zero reports a zero or nil Future (not made by NewFuture).
func (f *Future[T]) zero() bool { return f == nil || f.sys == nil || f.sys.pe == nil }

// Abandon gives the future up without waiting; a later reply is dropped.
// It does nothing on a zero Future.
func (f *Future[T]) Abandon() {
	if f.zero() {
		return
	}
	if !f.used {
		f.used = true
		f.abandon()
	}
}

func (f *Future[T]) abandon() {
	s := f.sys
	old, err := pgas.AtomicCompareSwap(s.pe, s.word(f.slot), armed(f.gen), word(f.gen, stateOver), s.pe.ID())
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && old == armed(f.gen) {
		s.free = append(s.free, f.slot) // no reply can be written any more
		return
	}
	if errors.Is(err, pgas.ErrWorldEnded) {
		return
	}
	// A reply is being written (or has landed): reuse the slot only once
	// it is complete.
	s.quarantine = append(s.quarantine, f.slot)
}

// Reply sends v, of plain type T (see NewChan; other types: [ReplyCodec]),
// as the reply to the future at to. It returns ErrAbandoned, having
// written nothing, if that future timed out or was abandoned, and
// ErrTooLarge if v does not fit its reply slot. It does not block.
//
// to must be a Future's ReplyTo. One made up with the generation after a
// slot's current one answers the future that slot serves next: on host
// memory NewFuture notices and moves that slot past it; on device memory
// (where checking would cost NewFuture a round trip to the GPU) that
// future takes it as its reply.
func Reply[T any](sys *System, to ReplyTo, v T) error {
	codec, err := PlainCodec[T]()
	if err != nil {
		return err
	}
	return reply(sys, to, v, codec)
}

// ReplyCodec is Reply for a value that codec encodes.
func ReplyCodec[T any](sys *System, to ReplyTo, v T, codec Codec[T]) error {
	codec, err := givenCodec(codec)
	if err != nil {
		return err
	}
	return reply(sys, to, v, codec)
}

func reply[T any](sys *System, to ReplyTo, v T, codec Codec[T]) error {
	if sys == nil {
		return fmt.Errorf("%w: nil *System", ErrBadArg)
	}
	s := sys
	if to.PE < 0 || int(to.PE) >= s.pe.NumPEs() {
		return fmt.Errorf("%w: reply to PE %d", ErrBadPE, to.PE)
	}
	if int(to.Slot) >= len(s.gen) {
		return fmt.Errorf("actors: reply to slot %d of %d (do all PEs use the same Futures option?)", to.Slot, len(s.gen))
	}
	if to.Gen == 0 {
		return ErrAbandoned // no future has generation 0
	}
	bp := s.buf()
	defer s.bufs.Put(bp)
	buf, err := codec.Append(append((*bp)[:0], make([]byte, 8)...), v)
	*bp = buf
	if err != nil {
		return err
	}
	n := len(buf) - 8
	if n > s.cfg.replySize {
		return fmt.Errorf("%w: reply of %d bytes, ReplySize %d", ErrTooLarge, n, s.cfg.replySize)
	}
	binary.LittleEndian.PutUint64(buf, uint64(n))
	// The claim (armed → writing), then the reply and its word (→ over),
	// in one PutSignalIf (on GPUs one routine of the agent, with no round
	// trip in between). With lines its data is the rest of the word's
	// line: the length and a reply that fits.
	slot, pe := int(to.Slot), int(to.PE)
	sig, claim, over := s.word(slot), word(to.Gen, stateWriting), word(to.Gen, stateOver)
	var old uint64
	switch {
	case !s.w.lined():
		dst := s.data.Slice(slot*s.slotBytes(), slot*s.slotBytes()+len(buf))
		old, err = pgas.PutSignalIf(s.pe, dst, buf, sig, armed(to.Gen), claim, over, pe)
	case n <= replyLineCap:
		for len(buf)%8 != 0 {
			buf = append(buf, 0)
		}
		*bp = buf
		old, err = pgas.PutSignalIf(s.pe, s.w.lineSym(slot, len(buf)/8), asWords(buf), sig, armed(to.Gen), claim, over, pe)
	default:
		return s.replyLarge(to, buf)
	}
	if err == nil && old != armed(to.Gen) {
		err = ErrAbandoned
	}
	return err
}

// replyLarge writes buf (a length, then a reply larger than a line holds)
// where words have lines: the claim first, so that nothing is written for
// an abandoned future, then the reply into the slot, fenced before the
// length goes with the word's line.
func (s *System) replyLarge(to ReplyTo, buf []byte) error {
	slot, pe := int(to.Slot), int(to.PE)
	old, err := pgas.AtomicCompareSwap(s.pe, s.word(slot), armed(to.Gen), word(to.Gen, stateWriting), pe)
	if err != nil {
		return err
	}
	if old != armed(to.Gen) {
		return ErrAbandoned
	}
	base := slot * s.slotBytes()
	if err := pgas.Put(s.pe, s.data.Slice(base+8, base+len(buf)), buf[8:], pe); err != nil {
		return err
	}
	if err := s.pe.Fence(); err != nil {
		return err
	}
	return pgas.PutSignal(s.pe, s.w.lineSym(slot, 1), asWords(buf[:8]), s.word(slot), word(to.Gen, stateOver), pgas.SignalSet, pe)
}
