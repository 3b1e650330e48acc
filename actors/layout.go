package actors

import "github.com/symchan/symchan/pgas"

// layout is where a Mailbox's inboxes lie, the same on every PE: the one
// answer to where a slot is, how its word is read and where its bytes
// are. An inbox has L lanes of K slots; slot j of lane ln is slot
// ln·K + j, with a word in w and S bytes in slots; word L·K, after the
// slots' words, is the control word (see Mailbox). Where the words are
// packed, slots has S bytes more beside the control word, which a wait's
// fetch reads as it reads a slot beside its word.
type layout struct {
	k, lanes, s int
	w           signalWords
	ctl         int // the control word's index: L·K
	slots       pgas.Sym[byte]
	localSlots  []byte // lined words: this PE's slots in place; else nil
}

// slot is the index of slot j of lane ln.
func (l *layout) slot(ln, j int) int { return ln*l.k + j }

// lane is the lane slot si belongs to.
func (l *layout) lane(si int) int { return si / l.k }

// after is the slot after si in the ring of its lane, ln.
func (l *layout) after(ln, si int) int {
	if si++; si == (ln+1)*l.k {
		si = ln * l.k
	}
	return si
}

// slotBytes is slot si's bytes, on every PE.
func (l *layout) slotBytes(si, n int) pgas.Sym[byte] { return l.slots.Slice(si*l.s, si*l.s+n) }

// ctlWord is the control word, on every PE.
func (l *layout) ctlWord() pgas.Sym[uint64] { return l.w.word(l.ctl) }

// read copies len(dst) bytes of this PE's slots at byte off into dst: in
// place where the words are lined, else with Get. The slot's word was
// seen first (an atomic load, or a wait): with lined words that orders
// this read after the sender's put; a sealed slot's read may still be
// torn, which Mailbox.whole checks.
func (l *layout) read(pe *pgas.PE, dst []byte, off int) error {
	if l.localSlots != nil {
		copy(dst, l.localSlots[off:off+len(dst)])
		return nil
	}
	return pgas.Get(pe, dst, l.slots.Slice(off, off+len(dst)), pe.ID())
}
