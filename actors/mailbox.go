// This file holds the Mailbox: one send path (send, or sendPlain for a
// plain value; open, reserve, commit, which ends in putLine where the
// words are lined) and one receive path (recv, then recvLined, which
// looks with drainHeads and parks with pgas.Park until anyReady, or
// recvPacked, which waits with pgas.Wait; then drain, take, pay). Where
// the inboxes lie is layout's and signalWords' (layout.go, words.go).
//
// Lanes: r's inbox has L = min(Lanes, P) lanes of K slots. Where L = P
// on device memory, lane s is sender s's from the start (kernels read this
// layout). Where L < P, and on host memory, a sender's first message to r
// claims the next lane there with
// one fetch-add on r's control word, and keeps it: no two senders share a
// lane, since each claim takes a number of its own, and a claim at L or
// more finds none left (ErrNoLane) for good. Every slot of a claimed
// lane names its sender in its header, so r learns a lane's owner from
// its first slot. A sender with no lane at r closes by adding one to r's
// control word instead of a close marker; r counts both.
//
// Invariants, for each sender s and receiver r, with K slots of s's lane
// at r (below, "slot j of s" is slot j of that lane):
//
//   - Slot j of s at r carries the sequence numbers ≡ j+1 (mod K); s's
//     out[r].sent is the last one it committed (out[r].slot the slot of
//     the next), r's in.next[s] the next one it takes (in.head[s] its
//     slot), and in.expect[i] the value that makes slot i's word ready
//     (^0 once s has closed: never).
//   - s commits sequence number q only when q ≤ out[r].freed + K: the
//     slot's previous message was taken and credited by r.
//   - r reads a slot only after it saw the slot's word reach the slot's
//     number. Where words have lines (host memory) the data is written
//     before the word (PutSignal's order, with a Fence before the line
//     for a payload put into the slot). Elsewhere (GPUs) the slot is
//     sealed and put with no order between data and word
//     (PutSignalUnordered): r takes it only once what it read agrees with
//     the seal for that number, reading again until it does.
//   - r credits s in batches of at least K/2 slots; a sender waiting for
//     credit has more than K/2 messages unread at r, so a receive of r
//     pays it, and no sender waits forever on a receiver that receives.
//   - out[r].mu serialises the sends to r (and the claim of a lane there);
//     in.mu serialises the receives; closeMu serialises Closes. Close sets
//     closing before it looks at any outbox, and a send checks closing
//     under its outbox's lock after making it: a send either ends before
//     Close closes its lane, or fails with ErrClosed.

package actors

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/symchan/symchan/internal/racesync"
	"github.com/symchan/symchan/internal/sysmem"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

// Mailbox carries byte messages between PEs: every PE has an inbox in the
// same collective allocation and can send to every PE, itself included.
// See the package documentation for the protocol and its guarantees.
//
// All methods are safe for concurrent use by the goroutines of the PE that
// created the Mailbox; Sends to one destination, and Recvs, are serialised.
type Mailbox struct {
	pe *pgas.PE
	n  int
	// layout: the inboxes' L lanes of K slots of S bytes and their words.
	// Where the words are lined (host memory) a slot's word shares its
	// line with the slot's header and a payload of up to lineCap bytes,
	// so that a small message reaches the receiver's core with the one
	// line transfer that brings its signal; the receive path reads this
	// PE's in place and parks with pgas.Park. The control word counts in
	// its high 32 bits the closes of senders with no lane here (ctlClose
	// each) and in its low 32 bits the lanes claimed here, and failed
	// claims (one each; at most one per sender, so they never carry into
	// the closes).
	layout
	claim  bool // senders claim lanes (L < n, or host memory); else lane s is sender s's
	from   int  // what this PE's headers name: its id + 1 where lanes are claimed, else 0
	cap    int  // payload bytes per slot
	max    int
	credit pgas.Sym[uint64] // n: on a sender, slots receiver r has freed
	// closedBy: a bit per PE, on a receiver: the senders that closed
	// through its control word (set before the close is counted there).
	closedBy pgas.Sym[uint64]
	ready    func() bool // anyReady, made once: Park's condition (lined words)

	closing  atomic.Bool // this PE's sending side is (being) closed
	selfSent atomic.Bool // this PE has sent to itself: it may again while Recv waits
	// out is per destination, each made at the first send there (all of
	// them at once where lanes are not claimed).
	out      []atomic.Pointer[outbox]
	closeMu  *ctxLock
	closedTo []uint64 // bits: the destinations Close has reached (made by the first Close)
	in       inbox
	stats    *mailboxCounters // with KeepStats; nil: nothing is counted
}

// An outbox's lane at its destination, where it has none.
const (
	unclaimed = -1 // not yet asked for
	noLane    = -2 // all were claimed by others: sends there fail with ErrNoLane
)

type outbox struct {
	mu    *ctxLock
	lane  int                   // this PE's lane at the destination, or unclaimed or noLane
	sent  uint64                // slots used towards this destination
	slot  int                   // sent mod k: the slot the next commit fills
	freed uint64                // the destination's credit word, last seen
	buf   []byte                // stride 1: one slot, built before it is put
	raw   []byte                // sendPlain's copy of the value
	line  [lineWords - 1]uint64 // stride lineWords: the line after the word, built before it is put
}

type inbox struct {
	mu       *ctxLock
	sender   []int    // per lane: its sender (-1: not yet known, where lanes are claimed)
	next     []uint64 // per lane: the sequence number of its next slot
	head     []int    // per lane: the slot (l·k + (next-1) mod k) that number lands in
	expect   []uint64 // per slot, then the control word: the value that makes its word ready (closed: never)
	unpaid   []uint64 // per lane: slots freed but not yet credited
	ctl      uint64   // the control word, last seen
	closedIn []uint64 // senders' scratch: the closed senders, from closedBy and the lanes
	lanes    []int    // head of the lanes a receive looks at: those claimed, or all
	idx      []int    // packed words: the indices a wait reports
	reported []report // packed words, per slot: what the last wait said of it
	open     int      // senders that have not closed (a close marker or the control word lowers it)
	from     []int    // the senders a blocking wait waits for (open ones; itself if it sends to itself)
	// what from was made for: selfSent, and open (a close lowers it)
	fromSelf bool
	fromOpen int
	asm      []assembly
	queue    []Message // ready messages, taken in order
	qhead    int
	arena    []byte                   // payloads of single-slot messages in queue
	hdr      [pgas.MaxFetchBytes]byte // a slot's header and the start of its payload
	slot     []byte                   // a sealed slot read whole (Mailbox.whole), made at its first use
	// Where words are packed, the wait also brings each reported slot's
	// first bytes (header and a small payload), in report order, sparing
	// take a read.
	fetch   *pgas.WaitFetch
	fetched []byte
}

// assembly joins the chunks of one sender's large message.
type assembly struct {
	buf    []byte
	got    int
	active bool
}

// Message is a received message: its sender and its bytes.
type Message struct {
	From int
	Data []byte
}

// NewMailbox collectively creates a Mailbox: every PE must call it with the
// same options, in the same order relative to its other collective calls.
func NewMailbox(ctx context.Context, pe *pgas.PE, opts ...MailboxOption) (*Mailbox, error) {
	c, err := mailboxOptions(opts)
	if err != nil {
		return nil, err
	}
	return newMailbox(ctx, pe, c, lines(pe))
}

// newMailbox lays the slot words out for host memory (each on a cache line
// of its own, read in place) or for device memory (packed, read with Get);
// the tests take the second on the host backend too.
func newMailbox(ctx context.Context, pe *pgas.PE, c mailboxConfig, host bool) (*Mailbox, error) {
	n, k, s := pe.NumPEs(), c.slots, c.slotSize
	l := min(n, c.lanes)
	// Lanes are claimed where there are fewer than PEs, and on host
	// memory, where no kernel reads the layout and a receive then looks
	// only at the lanes claimed.
	m := &Mailbox{pe: pe, n: n, layout: layout{k: k, lanes: l, s: s, ctl: l * k}, claim: l < n || host, cap: s - headerSize, max: c.maxMessage}
	if m.claim {
		if n > maxNamed {
			return nil, fmt.Errorf("%w: a mailbox with fewer lanes (%d) than PEs names its senders in 24 bits: at most %d PEs, not %d", ErrBadArg, l, maxNamed, n)
		}
		m.from = pe.ID() + 1
	}
	if err := mailboxFits(n, l, k, s, host, sysmem.Machine()); err != nil {
		return nil, err
	}
	var err error
	if m.w, err = allocWords(ctx, pe, l*k+1, host); err != nil {
		return nil, fmt.Errorf("actors: mailbox slot words: %w", err)
	}
	slotBytes := l * k * s
	if !host {
		slotBytes += s
	}
	if m.slots, err = pgas.AllocAligned[byte](ctx, pe, slotBytes, cacheLine); err != nil {
		_ = pgas.Free(ctx, pe, m.w.alloc)
		return nil, fmt.Errorf("actors: mailbox slots (%d lanes × %d × %d bytes): %w", l, k, s, err)
	}
	var cw pgas.Sym[uint64]
	if cw, err = pgas.AllocZeroed[uint64](ctx, pe, n+(n+63)/64); err != nil {
		_ = pgas.Free(ctx, pe, m.slots)
		_ = pgas.Free(ctx, pe, m.w.alloc)
		return nil, fmt.Errorf("actors: mailbox credit words: %w", err)
	}
	m.credit, m.closedBy = cw.Slice(0, n), cw.Slice(n, cw.Len())
	if host {
		if m.localSlots, err = pgas.Local(pe, m.slots); err != nil {
			return nil, err
		}
		m.ready = m.anyReady
	}
	if c.stats {
		m.stats = &isolated[mailboxCounters](1)[0]
	}
	m.out = isolated[atomic.Pointer[outbox]](n)
	m.closeMu = newLock()
	if !m.claim {
		for to := range m.out {
			m.newOutbox(to).lane = pe.ID() // lane s at every PE is sender s's
		}
	}
	in := &m.in
	in.mu = newLock()
	in.sender = isolated[int](l)
	in.next = isolated[uint64](l)
	in.head = isolated[int](l)
	in.expect = isolated[uint64](l*k + 1)
	in.unpaid = isolated[uint64](l)
	if !host {
		in.reported = isolated[report](l * k)
		// A wait over the words: the slots' and the control word.
		b := min(len(in.hdr), m.s)
		in.idx = isolated[int](l*k + 1)
		in.fetched = isolated[byte]((l*k + 1) * b)
		in.fetch = &pgas.WaitFetch{Data: m.slots, Stride: m.s, Bytes: b, Into: in.fetched}
	}
	in.asm = isolated[assembly](l)
	in.queue = isolated[Message](l * k)[:0]
	in.arena = isolated[byte](l * k * len(in.hdr))[:0]
	in.open = n
	for i := range in.expect {
		in.expect[i] = ^uint64(0)
	}
	for ln := range l {
		in.sender[ln] = ln
		if m.claim {
			in.sender[ln] = -1
		}
		m.resync(ln, 1, 0, false)
	}
	in.lanes = in.head
	if m.claim {
		in.lanes = in.head[:0]
		in.expect[m.ctl] = 1
	}
	return m, nil
}

// resync sets lane ln's receive side for a next sequence number next,
// with unpaid slots freed but not credited, or closed: its head slot and
// the value due in each of its slots (closed: never). newMailbox starts
// every lane at 1; a kernel actor that took messages hands its lanes back
// to Go through it.
func (m *Mailbox) resync(ln int, next, unpaid uint64, closed bool) {
	in, k := &m.in, uint64(m.k)
	in.next[ln], in.unpaid[ln] = next, unpaid
	in.head[ln] = m.slot(ln, int((next-1)%k))
	for j := range m.k {
		// The sequence number due in slot j: the first from next on that
		// lands there (slot j carries the numbers ≡ j+1 mod K).
		due := next + (uint64(j)+k-(next-1)%k)%k
		if closed {
			due = ^uint64(0)
		}
		in.expect[m.slot(ln, j)] = due
	}
}

// newOutbox makes this PE's outbox towards to unless another goroutine
// did, and returns the one there; open calls it at a first send.
func (m *Mailbox) newOutbox(to int) *outbox {
	o := &isolated[outbox](1)[0]
	o.mu, o.lane = newLock(), unclaimed
	if m.out[to].CompareAndSwap(nil, o) {
		return o
	}
	return m.out[to].Load()
}

// mailboxFits checks, before anything is allocated, that a mailbox of n
// PEs, l lanes × k slots of s bytes can exist: its symmetric size must
// not overflow, and the receive side's Go memory on every PE (about 116
// bytes per slot, with packed words 84 more for the wait's index, fetched
// header and report and a slot's s bytes to read one whole, 80 per lane,
// and 24 bytes per PE of the world, all PEs of this machine together)
// must fit mem, the machine's memory (0: unknown). The inputs are the same
// on every PE of a machine, so all of them fail alike.
func mailboxFits(n, l, k, s int, lined bool, mem int64) error {
	hi, slots := bits.Mul64(uint64(l)*uint64(k), uint64(s))
	if hi != 0 || slots > math.MaxInt64/2 {
		return fmt.Errorf("actors: a mailbox of %d lanes × %d slots × %d bytes overflows; lower Lanes, Slots or SlotSize", l, k, s)
	}
	per := 112 // a slot's expected value, queue entry and arena bytes
	if !lined {
		per += 8 + pgas.MaxFetchBytes + 4 // its wait's index, fetched header and report
	}
	goBytes := float64(n) * (float64(l)*float64(k)*float64(per) + 80*float64(l) + 24*float64(n))
	if !lined {
		goBytes += float64(n) * float64(s) // in.slot (Mailbox.whole)
	}
	if mem > 0 && goBytes > float64(mem) {
		return fmt.Errorf("actors: a mailbox of %d PEs, %d lanes × %d slots needs about %s of Go memory for its receive sides, more than this machine's %s; lower Lanes or Slots or the PE count",
			n, l, k, sysmem.Format(int64(min(goBytes, math.MaxInt64))), sysmem.Format(mem))
	}
	return nil
}

// zero reports a zero or nil Mailbox (not made by NewMailbox).
func (m *Mailbox) zero() bool { return m == nil || m.pe == nil }

// PE is the PE this Mailbox belongs to (nil for a zero Mailbox).
func (m *Mailbox) PE() *pgas.PE {
	if m == nil {
		return nil
	}
	return m.pe
}

// MaxMessage is the largest message Send accepts, in bytes (0 for a zero
// Mailbox).
func (m *Mailbox) MaxMessage() int {
	if m == nil {
		return 0
	}
	return m.max
}

func (m *Mailbox) checkDest(to int) error {
	if uint(to) >= uint(m.n) {
		return fmt.Errorf("%w: destination %d not in [0, %d)", ErrBadPE, to, m.n)
	}
	return nil
}

// Send sends data to PE to, waiting for a free slot there if need be
// (until ctx ends or a PE fails). data may be reused once Send returns.
func (m *Mailbox) Send(ctx context.Context, to int, data []byte) error {
	return m.send(ctx, to, data, true)
}

// TrySend is Send that fails with ErrFull instead of waiting for slots.
func (m *Mailbox) TrySend(to int, data []byte) error {
	return m.send(context.Background(), to, data, false)
}

// open checks a send to to and locks its outbox: waiting for the lock,
// or, without wait, failing with ErrFull unless it is free and chunks
// slots are free at to now. Where lanes are claimed it claims this PE's
// lane at to first. On success the caller unlocks o.mu.
func (m *Mailbox) open(ctx context.Context, to int, wait bool, chunks int) (*outbox, error) {
	if err := m.checkDest(to); err != nil {
		return nil, err
	}
	if to == m.pe.ID() && !m.selfSent.Load() {
		m.selfSent.Store(true)
	}
	o := m.out[to].Load()
	if o == nil {
		o = m.newOutbox(to)
	}
	if wait {
		if err := o.mu.lock(ctx); err != nil {
			return nil, err
		}
	} else if !o.mu.tryLock() {
		return nil, ErrFull
	}
	err := error(nil)
	if m.closing.Load() { // set before Close looks at o (see the invariants)
		err = ErrClosed
	} else if o.lane < 0 {
		err = m.claimLane(to, o)
	}
	if err == nil && !wait {
		err = m.refresh(to, o, chunks)
	}
	if err != nil {
		o.mu.unlock()
		return nil, err
	}
	return o, nil
}

// claimLane claims this PE's lane at to: the next of the claims counted
// in to's control word, unless all L are taken. Callers hold o.mu.
func (m *Mailbox) claimLane(to int, o *outbox) error {
	if o.lane == unclaimed {
		v, err := pgas.AtomicFetchInc(m.pe, m.ctlWord(), to)
		if err != nil {
			return err
		}
		o.lane = noLane
		if v&ctlClaims < uint64(m.lanes) {
			o.lane = int(v & ctlClaims)
		}
	}
	if o.lane == noLane {
		return fmt.Errorf("%w: PE %d has %d lanes, all claimed", ErrNoLane, to, m.lanes)
	}
	return nil
}

func (m *Mailbox) send(ctx context.Context, to int, data []byte, wait bool) error {
	if m.zero() {
		return errZero
	}
	if len(data) > m.max {
		return fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(data), m.max)
	}
	chunks := max(1, (len(data)+m.cap-1)/m.cap)
	o, err := m.open(ctx, to, wait, chunks)
	if err != nil {
		return err
	}
	defer o.mu.unlock()
	off := 0
	for c := range chunks {
		n := min(m.cap, len(data)-off)
		h := header{kind: kindMore, n: n, off: off}
		if c == 0 {
			h = header{kind: kindData, n: n, total: len(data)}
		}
		if err := m.putSlot(ctx, to, o, h, data[off:off+n]); err != nil {
			// A message cut short is discarded whole by the receiver
			// when this sender's next message starts.
			return err
		}
		off += n
	}
	m.stats.sentOne(len(data))
	return nil
}

// putSlot waits for a free slot at to and sends one slot there. Callers
// hold o.mu.
func (m *Mailbox) putSlot(ctx context.Context, to int, o *outbox, h header, payload []byte) error {
	if err := m.reserve(ctx, to, o); err != nil {
		return err
	}
	return m.commit(to, o, h, payload)
}

// reserve waits until slot o.sent+1 at to is free. The credit word is
// read only when the last value seen does not already cover the slot.
func (m *Mailbox) reserve(ctx context.Context, to int, o *outbox) error {
	need := o.sent + 1
	if need <= o.freed+uint64(m.k) {
		return nil
	}
	freed, err := pgas.SignalFetch(m.pe, m.credit.Index(to))
	if err == nil && need > freed+uint64(m.k) {
		// Only to can free slots: if it has returned, this wait ends.
		ws := pgas.WaitSet[uint64]{Ivars: m.credit.Index(to), Cmp: pgas.CmpGE, Value: need - uint64(m.k), From: []int{to}}
		var r pgas.WaitResult
		t0 := m.stats.now()
		r, err = pgas.Wait(ctx, m.pe, pgas.WaitAll, ws)
		m.stats.creditWait(t0)
		freed = r.Word
	}
	if err != nil {
		return err
	}
	o.freed = freed
	return nil
}

// commit sends header h and the payload into the reserved slot at to
// with one put-with-signal whose signal is the slot's word, set to the
// slot's sequence number. Its data is the slot (header and payload,
// sealed, with no order between data and word: the receiver checks the
// seal), or, with lines, the rest of the word's line (header and a
// payload of up to lineCap bytes; a larger payload is put into the slot
// first, and a fence orders it before the line: a receiver that sees the
// word sees the data). Where the receiver is parked (pgas.Park), the
// write wakes it.
func (m *Mailbox) commit(to int, o *outbox, h header, payload []byte) error {
	h.from = m.from
	lined := m.w.lined()
	if lined && len(payload) <= lineCap {
		line := wordBytes(o.line[:])
		putHeader(line, h)
		return m.putLine(to, o, (headerSize+copy(line[headerSize:], payload)+7)/8)
	}
	seq := o.sent + 1
	si := m.slot(o.lane, o.slot)
	if lined {
		line := wordBytes(o.line[:])
		putHeader(line, h)
		at := si*m.s + headerSize
		if err := pgas.Put(m.pe, m.slots.Slice(at, at+len(payload)), payload, to); err != nil {
			return err
		}
		if err := m.pe.Fence(); err != nil {
			return err
		}
		return m.putLine(to, o, headerSize/8)
	}
	if o.buf == nil {
		o.buf = make([]byte, m.s)
	}
	putHeader(o.buf, h)
	n := headerSize + copy(o.buf[headerSize:], payload)
	sealSlot(o.buf[:n], seq)
	if err := pgas.PutSignalUnordered(m.pe, m.slotBytes(si, n), o.buf[:n], m.w.word(si), seq, pgas.SignalSet, to); err != nil {
		return err
	}
	m.committed(o)
	return nil
}

// putLine sends the first nw words of o.line (header, payload) into the
// line of the reserved slot at to, with its word set to the slot's
// sequence number, in one put-with-signal (see commit).
func (m *Mailbox) putLine(to int, o *outbox, nw int) error {
	si := m.slot(o.lane, o.slot)
	if err := pgas.PutSignal(m.pe, m.w.lineSym(si, nw), o.line[:nw], m.w.word(si), o.sent+1, pgas.SignalSet, to); err != nil {
		return err
	}
	m.committed(o)
	return nil
}

// committed counts the slot a commit filled.
func (m *Mailbox) committed(o *outbox) {
	o.sent++
	if o.slot++; o.slot == m.k {
		o.slot = 0
	}
}

// sendPlain sends the n bytes at p as one message, encoding them straight
// into the slot (the fast path of Chan for plain types; n fits a slot).
func (m *Mailbox) sendPlain(ctx context.Context, to int, p unsafe.Pointer, n int, wait bool) error {
	o, err := m.open(ctx, to, wait, 1)
	if err != nil {
		return err
	}
	defer o.mu.unlock()
	if err := m.reserve(ctx, to, o); err != nil {
		return err
	}
	h := header{kind: kindData, from: m.from, n: n, total: n}
	if m.w.lined() && n <= lineCap {
		// Straight into the line: p is only copied, and does not escape.
		line := wordBytes(o.line[:])
		putHeader(line, h)
		copy(line[headerSize:], unsafe.Slice((*byte)(p), n))
		err = m.putLine(to, o, (headerSize+n+7)/8)
	} else {
		// A copy first, so that the caller's value (behind p) does not
		// escape through commit's puts.
		if len(o.raw) < n {
			o.raw = make([]byte, m.cap)
		}
		copy(o.raw, unsafe.Slice((*byte)(p), n))
		err = m.commit(to, o, h, o.raw[:n])
	}
	if err != nil {
		return err
	}
	m.stats.sentOne(n)
	return nil
}

// refresh fails with ErrFull unless chunks slots are free at to now.
func (m *Mailbox) refresh(to int, o *outbox, chunks int) error {
	freed, err := pgas.SignalFetch(m.pe, m.credit.Index(to))
	if err != nil {
		return err
	}
	o.freed = freed
	if o.sent+uint64(chunks) > freed+uint64(m.k) {
		return ErrFull
	}
	return nil
}

// Close closes this PE's sending side towards every PE: later Sends
// return ErrClosed, and each receiver learns it after this PE's last
// message. It waits for a free slot at each PE for the marker; if ctx ends
// first, calling Close again finishes the job. Closing twice returns
// ErrClosed.
func (m *Mailbox) Close(ctx context.Context) error {
	if m.zero() {
		return errZero
	}
	if err := m.closeMu.lock(ctx); err != nil {
		return err
	}
	defer m.closeMu.unlock()
	already := m.closing.Swap(true)
	if m.closedTo == nil {
		m.closedTo = make([]uint64, (m.n+63)/64)
	}
	done := true
	for to := range m.out {
		if m.closedTo[to/64]&(1<<(to%64)) != 0 {
			continue
		}
		if err := m.closeTo(ctx, to); err != nil {
			return err
		}
		m.closedTo[to/64] |= 1 << (to % 64)
		done = false
	}
	if already && done {
		return ErrClosed
	}
	return nil
}

// closeTo closes this PE's sending side towards to: a close marker in its
// lane there, else its bit in to's closed bits, then a close counted on
// to's control word. Callers hold closeMu and have set closing, so no
// lane is claimed from now on.
func (m *Mailbox) closeTo(ctx context.Context, to int) error {
	if o := m.out[to].Load(); o != nil {
		if err := o.mu.lock(ctx); err != nil { // a send under way ends first
			return err
		}
		defer o.mu.unlock()
		if o.lane >= 0 {
			return m.putSlot(ctx, to, o, header{kind: kindClose}, nil)
		}
	}
	me := m.pe.ID()
	if _, err := pgas.AtomicFetchOr(m.pe, m.closedBy.Index(me/64), 1<<(me%64), to); err != nil {
		return err
	}
	return pgas.SignalOp(m.pe, m.ctlWord(), ctlClose, pgas.SignalAdd, to)
}

// Recv returns the next message for this PE, waiting until one arrives,
// ctx ends, a PE fails, or every PE has closed its side and all messages
// were received (ErrClosed). Messages from one sender arrive in order.
// The returned Data belongs to the caller.
func (m *Mailbox) Recv(ctx context.Context) (Message, error) {
	var msg Message
	_, err := m.recv(ctx, true, copyTo(&msg))
	return msg, err
}

// copyTo returns a use function for recv that keeps a copy of the message.
func copyTo(msg *Message) func(Message) error {
	return func(x Message) error {
		*msg = Message{From: x.From, Data: append([]byte(nil), x.Data...)}
		return nil
	}
}

// TryRecv is Recv that does not wait: ok is false when no message is
// ready (or another goroutine is receiving).
func (m *Mailbox) TryRecv() (msg Message, ok bool, err error) {
	ok, err = m.recv(context.Background(), false, copyTo(&msg))
	return msg, ok, err
}

// recv takes the next ready message and hands it to use while the inbox is
// held: x.Data may point into memory reused by the next recv.
func (m *Mailbox) recv(ctx context.Context, wait bool, use func(x Message) error) (bool, error) {
	if m.zero() {
		return false, errZero
	}
	if err := m.w.stillMapped(m.pe); err != nil {
		return false, err
	}
	in := &m.in
	if wait {
		if err := in.mu.lock(ctx); err != nil {
			return false, err
		}
	} else if !in.mu.tryLock() {
		return false, nil
	}
	defer in.mu.unlock()
	for {
		if in.qhead < len(in.queue) {
			x := in.queue[in.qhead]
			in.queue[in.qhead] = Message{}
			in.qhead++
			m.stats.receivedOne(len(x.Data), len(in.queue)-in.qhead)
			if err := use(x); err != nil {
				return true, endedErr(m.pe, "Recv", err)
			}
			return true, nil
		}
		in.queue, in.qhead, in.arena = in.queue[:0], 0, in.arena[:0]
		var took bool
		var err error
		if m.w.lined() {
			took, err = m.recvLined(ctx, wait)
		} else {
			took, err = m.recvPacked(ctx, wait)
		}
		if err != nil {
			return false, err
		}
		if !took {
			if in.open == 0 {
				return false, ErrClosed // each close marker paid its sender in full
			}
			return false, nil // TryRecv: nothing ready
		}
	}
}

// recvLined takes what is ready where the words are lined: one look at
// each claimed lane's next slot word and at the control word
// (drainHeads), and with wait, while a sender is open and nothing was
// there, a park until one of them moves and a second look. It reports
// whether the caller should look again: it took or saw something, or
// parked (without wait, or with every sender closed, it may not have).
// Callers hold in.mu.
func (m *Mailbox) recvLined(ctx context.Context, wait bool) (bool, error) {
	took, err := m.drainHeads()
	if err == nil && !took && wait && m.in.open > 0 {
		var from []int
		if from, err = m.senders(); err == nil {
			err = pgas.Park(ctx, m.pe, m.w.sym, from, m.ready)
		}
		m.stats.waited(err == nil)
		if err != nil {
			return false, err
		}
		_, err = m.drainHeads()
		took = true
	}
	if err != nil {
		return false, endedErr(m.pe, "Recv", err)
	}
	return took, nil
}

// recvPacked takes what is ready where the words are packed (GPUs): with
// wait, while a sender is open, a wait until some word reaches the value
// due (a slot's sequence number, a closed lane's +inf, the control word's
// next value), which also fetches each reported slot's first bytes; else
// one test of them. Each load is a round trip here, so drain takes only
// the slots reported (in.reported), rather than probing the slot after
// them. It reports whether a word was ready. Callers hold in.mu.
func (m *Mailbox) recvPacked(ctx context.Context, wait bool) (bool, error) {
	in := &m.in
	var n int
	var err error
	fetched := wait && in.open > 0
	if fetched {
		var from []int
		if from, err = m.senders(); err != nil {
			return false, err
		}
		ws := pgas.WaitSet[uint64]{Ivars: m.w.sym, Cmp: pgas.CmpGE, Values: in.expect, Indices: in.idx, From: from, Fetch: in.fetch}
		var r pgas.WaitResult
		r, err = pgas.Wait(ctx, m.pe, pgas.WaitSome, ws)
		n = r.N
		m.stats.waited(n > 0)
	} else {
		n, err = signals.TestSomeVector(m.pe, m.w.sym, in.idx, nil, pgas.CmpGE, in.expect)
	}
	if err != nil || n == 0 {
		return false, err
	}
	for k, i := range in.idx[:n] {
		if i == m.ctl {
			if err := m.seeCtl(); err != nil {
				return false, err
			}
			continue
		}
		in.reported[i] = reportedBare
		if fetched {
			in.reported[i] = report(k + 1)
		}
	}
	for _, i := range in.idx[:n] {
		if i == m.ctl {
			continue
		}
		if err := m.drain(ctx, m.lane(i)); err != nil {
			clear(in.reported)
			return false, err
		}
	}
	for _, i := range in.idx[:n] {
		if i != m.ctl {
			in.reported[i] = 0
		}
	}
	return true, nil
}

// report is what the last wait said of a slot word, where the words are
// packed: 0, not ready; reportedBare, ready; p+1, ready with its first
// bytes at place p of in.fetched (the wait brought them).
type report int32

const reportedBare report = -1

// fetchedAt is where in in.fetched the wait brought the slot's first
// bytes, if it did.
func (r report) fetchedAt() (int, bool) { return int(r - 1), r > 0 }

// senders lists the PEs whose messages a blocking Recv waits for: those
// not known to have closed their side (by a close marker in their lane or
// a bit of closedBy), this PE only if it has sent to itself (its own
// goroutine is the one receiving). Callers hold in.mu.
func (m *Mailbox) senders() ([]int, error) {
	in := &m.in
	if self := m.selfSent.Load(); in.from == nil || self != in.fromSelf || in.open != in.fromOpen {
		closedBy, err := m.closedBits()
		if err != nil {
			return nil, err
		}
		// A sender sets its bit before it counts its close on the control
		// word: while more bits are set than closes were seen there, one
		// of them has yet to write (or this PE to read) the control word,
		// which wakes this wait. Until the count catches up, the bits say
		// nothing: a sender left out of the wait set would end it with
		// ErrNoWriters while its close is on its way.
		set := 0
		for _, b := range closedBy {
			set += bits.OnesCount64(b)
		}
		if uint64(set) > in.ctl/ctlClose {
			clear(closedBy)
		}
		for ln, snd := range in.sender {
			if snd >= 0 && in.expect[ln*m.k] == ^uint64(0) {
				closedBy[snd/64] |= 1 << (snd % 64)
			}
		}
		in.fromSelf, in.fromOpen = self, in.open    // a close lowers open
		in.from = slices.Grow(in.from[:0], m.n)[:0] // empty, not nil: a wait on no PE, not on any
		for s := range m.n {
			if (s != m.pe.ID() || self) && closedBy[s/64]&(1<<(s%64)) == 0 {
				in.from = append(in.from, s)
			}
		}
	}
	return in.from, nil
}

// closedBits returns in.closedIn holding this PE's closedBy: the senders
// that closed through the control word, which only those with no lane
// here do (none where every PE has a lane). Callers hold in.mu.
func (m *Mailbox) closedBits() ([]uint64, error) {
	in := &m.in
	if in.closedIn == nil {
		in.closedIn = make([]uint64, m.closedBy.Len())
	}
	switch {
	case !m.claim:
		clear(in.closedIn)
	case !m.w.lined():
		return in.closedIn, pgas.Get(m.pe, in.closedIn, m.closedBy, m.pe.ID())
	default:
		local, err := pgas.Local(m.pe, m.closedBy)
		if err != nil {
			return nil, err
		}
		for i := range local {
			in.closedIn[i] = atomic.LoadUint64(&local[i])
		}
	}
	return in.closedIn, nil
}

// seeCtl reads the control word: each close counted there since the last
// read is one sender fewer to wait for, and the claims bound the lanes
// drainHeads looks at. Callers hold in.mu.
func (m *Mailbox) seeCtl() error {
	in := &m.in
	c, err := m.w.fetch(m.pe, m.ctl)
	if err != nil {
		return err
	}
	closes, seen := c/ctlClose, in.ctl/ctlClose
	if closes > uint64(m.n) || closes < seen || int(closes-seen) > in.open || c&ctlClaims > uint64(m.n) {
		return fmt.Errorf("%w: the control word counts %d closes and %d claims, %d closes seen and %d senders open", ErrProtocol, closes, c&ctlClaims, seen, in.open)
	}
	in.open -= int(closes - seen)
	in.ctl = c
	in.lanes = in.head[:min(uint64(m.lanes), c&ctlClaims)]
	in.expect[m.ctl] = c + 1
	return nil
}

// The control word's parts (Mailbox.words).
const (
	ctlClose  = 1 << 32      // a close of a sender with no lane here
	ctlClaims = ctlClose - 1 // the claims
)

// drainHeads takes what is ready where the words are lined: one atomic
// load of each claimed lane's next slot word (and of the control word)
// instead of a wait over all words. It drains the lanes whose next slot
// is ready and reports whether it took any slot (a message, a chunk or a
// close marker, each of which changes what the caller waits for) or saw
// a close through the control word. Callers hold in.mu.
func (m *Mailbox) drainHeads() (bool, error) {
	in := &m.in
	found := false
	// A sender claims its lane before it writes there: a claim seen in
	// the control word widens in.lanes first.
	if m.w.load(m.ctl) != in.ctl {
		closes := in.ctl / ctlClose
		if err := m.seeCtl(); err != nil {
			return false, err
		}
		found = in.ctl/ctlClose != closes
	}
	for ln, si := range in.lanes {
		// A closed sender's next slot word stays below next: it wrote
		// nothing after its close marker.
		if m.w.load(si) >= in.next[ln] {
			// Lines are not sealed: take never re-reads, and needs no context.
			if err := m.drain(context.Background(), ln); err != nil {
				return false, err
			}
			found = true
		}
	}
	return found, nil
}

// anyReady is pgas.Park's condition where the words are lined: whether
// the control word moved or a claimed lane's next slot word reached the
// number due. It only looks; recv takes. Callers hold in.mu.
func (m *Mailbox) anyReady() bool {
	in := &m.in
	if m.w.load(m.ctl) != in.ctl {
		return true
	}
	for ln, si := range in.lanes {
		if m.w.load(si) >= in.next[ln] {
			return true
		}
	}
	return false
}

// pay returns the freed slots of lane ln to its sender with one SignalAdd
// on the sender's credit word for this receiver.
func (m *Mailbox) pay(ln int) error {
	u := m.in.unpaid[ln]
	m.in.unpaid[ln] = 0
	return pgas.SignalOp(m.pe, m.credit.Index(m.pe.ID()), u, pgas.SignalAdd, m.in.sender[ln])
}

// drain takes every ready slot of lane ln in order and queues complete
// messages. Freed slots go back to the sender once K/2 of them (at least
// one) are due. That batching cannot stall a sender: one that waits for
// credit has sent K slots beyond the credit it holds, fewer than K/2 of
// which are freed and unpaid, so more than K/2 wait unread here and the
// next receives free enough of them to pay. Callers hold in.mu.
func (m *Mailbox) drain(ctx context.Context, ln int) error {
	in := &m.in
	for range m.k {
		seq, si := in.next[ln], in.head[ln]
		if in.expect[si] != seq {
			break // closed
		}
		var place report
		if !m.w.lined() {
			// Each load is a round trip here: a slot the wait reported
			// holds a word ≥ seq, which is seq, since the sender reuses
			// the slot only once this receiver has credited it.
			if place = in.reported[si]; place == 0 {
				break // not reported ready: the next wait will tell
			}
			in.reported[si] = 0 // for seq only: the ring comes round to si again
		} else if w := m.w.load(si); w < seq {
			break
		} else if w != seq {
			return fmt.Errorf("%w: slot of %s holds sequence %d, expected %d", ErrProtocol, m.laneName(ln), w, seq)
		} else {
			racesync.Acquire()
		}
		kind, err := m.take(ctx, ln, si, place)
		if err != nil {
			return err
		}
		in.next[ln]++
		in.head[ln] = m.after(ln, si)
		in.unpaid[ln]++
		if kind == kindClose {
			in.open--
			for j := range m.k {
				in.expect[m.slot(ln, j)] = ^uint64(0) // out of the wait set
			}
			return m.pay(ln)
		}
		in.expect[si] = seq + uint64(m.k)
	}
	if 2*in.unpaid[ln] >= uint64(m.k) {
		return m.pay(ln)
	}
	return nil
}

// laneName names lane ln's sender for errors: "PE s", or "lane ln" before
// its first slot named it.
func (m *Mailbox) laneName(ln int) string {
	if s := m.in.sender[ln]; s >= 0 {
		return fmt.Sprintf("PE %d", s)
	}
	return fmt.Sprintf("lane %d", ln)
}

// named checks the sender a slot of lane ln names (from: the sender + 1,
// 0 for none) against the lane's: where lanes are claimed every slot
// names the lane's one sender, which the first one makes known; else
// lane ln is sender ln's, and a slot names no one or ln. Callers hold
// in.mu.
func (m *Mailbox) named(ln, from int) error {
	in := &m.in
	switch {
	case !m.claim && (from == 0 || from == ln+1):
		return nil
	case m.claim && from >= 1 && from <= m.n && (in.sender[ln] < 0 || in.sender[ln] == from-1):
		in.sender[ln] = from - 1
		return nil
	}
	return fmt.Errorf("%w: a slot of %s names sender %d (as id + 1)", ErrProtocol, m.laneName(ln), from)
}

// take reads slot si of lane ln and acts on it, and returns the slot's
// kind; place is what the wait reported of it (packed words).
func (m *Mailbox) take(ctx context.Context, ln, si int, place report) (uint8, error) {
	in := &m.in
	var head []byte // the header and the start of the payload
	if m.w.lined() {
		line := m.w.line(si)
		head = wordBytes(line)
		if n, from, ok := lineMessage(line, m.max); ok {
			if from == 0 || from != in.sender[ln]+1 { // host memory claims lanes: every slot names its sender
				if err := m.named(ln, from); err != nil {
					return 0, err
				}
			}
			in.queueWhole(ln, n, head)
			return kindData, nil
		}
	} else {
		if p, ok := place.fetchedAt(); ok {
			b := in.fetch.Bytes
			head = in.fetched[p*b : (p+1)*b] // brought by the wait
		} else {
			// One read covers the header and a small payload.
			head = in.hdr[:min(len(in.hdr), m.s)]
			if err := m.read(m.pe, head, si*m.s); err != nil {
				return 0, err
			}
		}
		var err error
		if head, err = m.whole(ctx, ln, si, head); err != nil {
			return 0, err
		}
	}
	h, err := decodeHeader(head, m.cap, m.max)
	if err == nil {
		err = m.named(ln, h.from)
	}
	if err != nil {
		return 0, fmt.Errorf("from %s: %w", m.laneName(ln), err)
	}
	snd := in.sender[ln]
	if h.kind == kindData && h.n == h.total && headerSize+h.n <= len(head) {
		in.queueWhole(ln, h.n, head)
		return h.kind, nil
	}
	a := &in.asm[ln]
	switch h.kind {
	case kindData:
		*a = assembly{} // a message cut short by a cancelled Send
		if h.n == h.total {
			at := len(in.arena)
			in.arena = slices.Grow(in.arena, h.n)[:at+h.n]
			data := in.arena[at : at+h.n : at+h.n]
			if err := m.payload(data, head, si); err != nil {
				return h.kind, err
			}
			in.queue = append(in.queue, Message{From: snd, Data: data})
			return h.kind, nil
		}
		*a = assembly{buf: make([]byte, h.total), got: h.n, active: true}
		return h.kind, m.payload(a.buf[:h.n], head, si)
	case kindMore:
		if !a.active || h.off != a.got || h.off+h.n > len(a.buf) {
			return h.kind, fmt.Errorf("%w: from PE %d: chunk at %d, expected %d of %d", ErrProtocol, snd, h.off, a.got, len(a.buf))
		}
		if err := m.payload(a.buf[h.off:h.off+h.n], head, si); err != nil {
			return h.kind, err
		}
		if a.got += h.n; a.got == len(a.buf) {
			in.queue = append(in.queue, Message{From: snd, Data: a.buf})
			*a = assembly{}
		}
	case kindClose:
		*a = assembly{}
	}
	return h.kind, nil
}

// queueWhole queues lane ln's message of n bytes, one slot whose payload
// lies in head after the header, and ends any message of the lane's
// sender that a cancelled Send cut short (an inactive assembly is already
// zero).
func (in *inbox) queueWhole(ln, n int, head []byte) {
	at := len(in.arena)
	in.arena = append(in.arena, head[headerSize:headerSize+n]...)
	in.queue = append(in.queue, Message{From: in.sender[ln], Data: in.arena[at : at+n : at+n]})
	if in.asm[ln].active {
		in.asm[ln] = assembly{}
	}
}

// lineMessage reports whether line, the words after a slot word, holds a
// whole message of n bytes in a mailbox whose messages have at most max:
// its header's words say kindData with n bytes here, n in all, and n fits
// the line; from is the sender + 1 it names (0: none). Most messages on
// host memory are such; decodeHeader reads the rest (and, on a
// big-endian machine, these too).
func lineMessage(line []uint64, max int) (n, from int, ok bool) {
	w := line[0] >> 32
	return int(w), int(line[0] >> 8 & maxNamed), line[0]&^(maxNamed<<8) == kindData|w<<32 && line[1] == w && w <= lineCap && w <= uint64(max)
}

// tornLimit bounds how long a receiver re-reads a sealed slot whose word
// it saw: a writer's bytes land within microseconds of its word, so a
// slot torn for longer was not written by a sender of this mailbox.
const tornLimit = time.Second

// whole returns sealed slot si of lane ln as its sender wrote it for
// the sequence number due, given head, a read of its start: head itself
// when the slot lies there whole, else a read of the whole slot into
// in.slot, read again until its seal agrees (the word may arrive before
// the data). It fails with ErrProtocol if the slot stays torn past
// tornLimit, and with ctx's error if ctx ends first; the slot is then
// left for the next receive.
func (m *Mailbox) whole(ctx context.Context, ln, si int, head []byte) ([]byte, error) {
	in := &m.in
	seq := in.next[ln]
	var since time.Time
	for {
		n, ok := sealedLen(head, seq, m.cap)
		if ok {
			return head, nil
		}
		if n <= len(head) { // all of it read, and torn
			m.stats.tornRead()
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if since.IsZero() {
				since = time.Now()
			} else if time.Since(since) > tornLimit {
				return nil, fmt.Errorf("%w: slot %d of %s stays torn for sequence number %d", ErrProtocol, si%m.k, m.laneName(ln), seq)
			}
		}
		if in.slot == nil {
			in.slot = make([]byte, m.s)
		}
		head = in.slot[:max(n, min(len(in.hdr), m.s))]
		if err := m.read(m.pe, head, si*m.s); err != nil {
			return nil, err
		}
	}
}

// payload copies the payload of slot si into dst: from head, the bytes
// after the header that take read, when it lies there (commit's rule),
// else from the slot.
func (m *Mailbox) payload(dst, head []byte, si int) error {
	if headerSize+len(dst) <= len(head) {
		copy(dst, head[headerSize:])
		return nil
	}
	return m.read(m.pe, dst, si*m.s+headerSize)
}
