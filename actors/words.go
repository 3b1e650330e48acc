package actors

import (
	"context"
	"sync/atomic"

	"github.com/symchan/symchan/pgas"
)

// signalWords is where a PE's signal words lie (a mailbox's slot and
// control words, a System's reply words). It is decided once, when they
// are allocated, and every later question about it is one of its methods:
//
//   - packed (stride 1): word i is the i-th word, read through pgas
//     (SignalFetch, Wait, Get). GPUs' memory, and the tests' device
//     layout on the host backend.
//   - lined (stride lineWords): word i starts a cache line of its own,
//     whose other seven words carry what the word signals (a slot's header
//     and a small payload, a reply's length and a small reply), so that
//     one line transfer brings both; this PE reads its own words in place
//     (local) and parks on them with pgas.Park. Host memory.
type signalWords struct {
	alloc  pgas.Sym[uint64] // the allocation the words lie in, to free
	sym    pgas.Sym[uint64] // n·stride words
	stride int
	local  []uint64 // lined: this PE's sym in place; packed: nil
}

// allocWords collectively allocates n zeroed signal words, lined or
// packed (see signalWords).
func allocWords(ctx context.Context, pe *pgas.PE, n int, lined bool) (signalWords, error) {
	w := signalWords{stride: 1}
	extra := 0
	if lined {
		// Zeroed allocations are not aligned to lines: take one line more
		// and start at the first line boundary (the same on every PE).
		w.stride, extra = lineWords, lineWords-1
	}
	var err error
	if w.alloc, err = pgas.AllocZeroed[uint64](ctx, pe, n*w.stride+extra); err != nil {
		return w, err
	}
	first := int(-w.alloc.Offset()/8) & extra
	w.sym = w.alloc.Slice(first, first+n*w.stride)
	if lined {
		if w.local, err = pgas.Local(pe, w.sym); err != nil {
			_ = pgas.Free(ctx, pe, w.alloc)
			return w, err
		}
	}
	return w, nil
}

// lined reports whether the words are lined (else packed).
func (w *signalWords) lined() bool { return w.local != nil }

// word is word i.
func (w *signalWords) word(i int) pgas.Sym[uint64] { return w.sym.Index(i * w.stride) }

// load reads this PE's word i in place, atomically (lined words).
func (w *signalWords) load(i int) uint64 { return atomic.LoadUint64(w.at(i)) }

// at is this PE's word i in place (lined words), for a reader that loads
// it many times.
func (w *signalWords) at(i int) *uint64 { return &w.local[i*w.stride] }

// line is the rest of word i's line on this PE, in place (lined words).
func (w *signalWords) line(i int) []uint64 {
	at := i * w.stride
	return w.local[at+1 : at+lineWords]
}

// lineSym is the first nw words after word i, on every PE (lined words):
// what a put-with-signal of word i writes beside it.
func (w *signalWords) lineSym(i, nw int) pgas.Sym[uint64] {
	at := i * w.stride
	return w.sym.Slice(at+1, at+1+nw)
}

// fetch reads this PE's word i: in place where lined, else with
// SignalFetch.
func (w *signalWords) fetch(pe *pgas.PE, i int) (uint64, error) {
	if w.lined() {
		return w.load(i), nil
	}
	return pgas.SignalFetch(pe, w.word(i))
}

// stillMapped returns pgas's error for the words once their world has
// ended (pgas.ErrWorldEnded) or they were freed, where they are lined and
// this PE reads them in place. pgas checks its own calls, but a direct
// read of a partition unmapped at the world's end faults the process, so
// the receive paths ask before they read. Packed words cost nothing here:
// the pgas calls that read them check for themselves.
func (w *signalWords) stillMapped(pe *pgas.PE) error {
	if !w.lined() || pgas.AddrAccessible(pe, w.sym, pe.ID()) {
		return nil
	}
	_, err := pgas.Local(pe, w.sym) // the reason, as pgas says it
	return err
}
