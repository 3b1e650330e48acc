package actors

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/symchan/symchan/internal/handoff"
	"github.com/symchan/symchan/pgas"
)

// doorbells are the spots on which the receivers of one mailbox park
// where partitions are host memory (every PE then runs in this process),
// one per PE, so that a sender wakes a parked receiver with a Go channel
// operation (see Mailbox.park and ring) rather than through a pgas wait
// and signal: on one processor that halves a Chan round trip.
type doorbells struct {
	spots []atomic.Pointer[handoff.Spot] // nil until the PE's Mailbox joined
}

// The doorbells of the live mailboxes of this process, by world and
// offset of the mailbox's words (the same on every PE). The map holds
// them weakly: they live as long as one of their Mailboxes does.
var (
	doorsMu sync.Mutex
	doors   = map[doorKey]weak.Pointer[doorbells]{}
)

type doorKey struct {
	w   *pgas.World
	off int64
}

// joinDoorbells returns the doorbells of the mailbox whose words lie at
// off in pe's world (made by the first of its PEs to ask), with pe's own
// spot in place. The spot's watches end when the last Mailbox holding the
// doorbells is collected.
func joinDoorbells(pe *pgas.PE, off int64, n int) *doorbells {
	k := doorKey{pe.World(), off}
	doorsMu.Lock()
	d := doors[k].Value()
	if d == nil {
		// Senders load a spot on every message: no line of theirs may
		// be one that another core writes (see isolated).
		d = &doorbells{spots: isolated[atomic.Pointer[handoff.Spot]](n)}
		doors[k] = weak.Make(d)
		runtime.AddCleanup(d, forgetDoorbells, k)
	}
	doorsMu.Unlock()
	s := &isolated[handoff.Spot](1)[0]
	s.Init()
	d.spots[pe.ID()].Store(s)
	runtime.AddCleanup(d, (*handoff.Spot).Close, s)
	return d
}

// forgetDoorbells drops the entry of collected doorbells.
func forgetDoorbells(k doorKey) {
	doorsMu.Lock()
	if doors[k].Value() == nil {
		delete(doors, k)
	}
	doorsMu.Unlock()
}

// own returns PE id's spot.
func (d *doorbells) own(id int) *handoff.Spot { return d.spots[id].Load() }
