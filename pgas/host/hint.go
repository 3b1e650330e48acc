package host

import "sync/atomic"

// A writeHint tells a large any-wait which of its words a write touched,
// so that its checks look at that word instead of testing the whole set:
// a WaitUntilAny over thousands of words then wakes in the time of one
// word's check, as over a few (issue "Flat in P"). One wait of a
// partition at a time holds it. Writers through the transport leave the
// hint (parker.notify); a word changed any other way (a PE's own stores
// through Local) is found by the full look every hintScanEvery checks.
type writeHint struct {
	held   atomic.Bool  // a wait holds the hint
	lo, hi atomic.Int64 // the holder's bytes
	at     atomic.Int64 // 1 + the first of its bytes the last write touched; 0: none since the holder took it
}

// hintMin is the fewest words a wait must have to use the hint: below it
// a look at every word costs less than the hint's upkeep (a set of 1024
// words woke in 168 ns against 143 for 2).
const hintMin = 512

// hintScanEvery is how many checks of a held hint go between full looks.
const hintScanEvery = 64

// note leaves the hint of a write to bytes [lo, hi) if it overlaps the
// holder's bytes. Writers pay one atomic load when no wait holds it.
func (w *writeHint) note(lo, hi int64) {
	if !w.held.Load() {
		return
	}
	if l, h := w.lo.Load(), w.hi.Load(); lo < h && l < hi {
		w.at.Store(max(lo, l) + 1)
	}
}

// hold takes the hint for a wait on bytes [lo, hi); false if another wait
// holds it. The caller looks at every word after hold: a write before the
// hint was held left none.
func (w *writeHint) hold(lo, hi int64) bool {
	if !w.held.CompareAndSwap(false, true) {
		return false
	}
	w.lo.Store(lo)
	w.hi.Store(hi)
	w.at.Store(0)
	return true
}

func (w *writeHint) release() { w.held.Store(false) }

// take returns the hinted byte offset and clears it, or -1 when no write
// came since the last take.
func (w *writeHint) take() int64 {
	if w.at.Load() == 0 {
		return -1
	}
	return w.at.Swap(0) - 1 // -1 where a racing take cleared it first
}
