package actors

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/symchan/symchan/internal/handoff"
	"github.com/symchan/symchan/pgas"
)

// doorbells are the spots on which the goroutines of one collective
// object park where partitions are host memory (every PE then runs in
// this process): per PE, a mailbox's receiver, or each reply slot of a
// System. A writer wakes a parked goroutine with a Go channel operation
// (see Mailbox.park and ring, System.park) rather than through a pgas
// wait and signal: on one processor that halves a Chan round trip.
type doorbells struct {
	per   int                            // spots per PE
	spots []atomic.Pointer[handoff.Spot] // pe·per + i; nil until made
	// Per PE, the liveness channel (pgas.PE.Interrupted) whose closing
	// rings all its spots: one goroutine per PE and channel, rather than
	// one per spot (a System has a spot per reply slot).
	relays []atomic.Pointer[relay]
}

type relay struct{ changed <-chan struct{} }

// The doorbells of the live mailboxes and systems of this process, by
// world and offset of their words (the same on every PE). The map holds
// them weakly: they live as long as one of their owners does.
var (
	doorsMu sync.Mutex
	doors   = map[doorKey]weak.Pointer[doorbells]{}
)

type doorKey struct {
	w   *pgas.World
	off int64
}

// joinDoorbells returns the doorbells, per spots per PE, of the object
// whose words lie at off in pe's world, made by the first of its PEs to
// ask.
func joinDoorbells(pe *pgas.PE, off int64, per int) *doorbells {
	k := doorKey{pe.World(), off}
	doorsMu.Lock()
	defer doorsMu.Unlock()
	if d := doors[k].Value(); d != nil {
		return d
	}
	// Writers load a spot on every message: no line of theirs may be one
	// that another core writes (see isolated).
	n := pe.NumPEs()
	d := &doorbells{per: per, spots: isolated[atomic.Pointer[handoff.Spot]](n * per), relays: isolated[atomic.Pointer[relay]](n)}
	doors[k] = weak.Make(d)
	runtime.AddCleanup(d, forgetDoorbells, k)
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

// spot returns spot i of PE pe, making it on first use: only pe's
// goroutines park there, so only they ask. Its watches end when the
// doorbells are collected.
func (d *doorbells) spot(pe, i int) *handoff.Spot {
	p := &d.spots[pe*d.per+i]
	if s := p.Load(); s != nil {
		return s
	}
	s := &isolated[handoff.Spot](1)[0]
	s.Init()
	if !p.CompareAndSwap(nil, s) {
		return p.Load()
	}
	runtime.AddCleanup(d, (*handoff.Spot).Close, s)
	return s
}

// watched returns spot i of PE pe ready to arm: ctx's end rings it, and
// so does the closing of changed (from pgas.PE.Interrupted), through the
// PE's relay (see watch).
func (d *doorbells) watched(ctx context.Context, pe, i int, changed <-chan struct{}) *handoff.Spot {
	s := d.spot(pe, i)
	s.Watch(ctx, nil)
	d.watch(pe, changed)
	return s
}

// ring wakes the goroutine parked on spot i of PE pe, if one is, after
// the word it waits for was stored.
func (d *doorbells) ring(pe, i int) {
	if s := d.spots[pe*d.per+i].Load(); s != nil {
		s.Ring()
	}
}

// watch makes the closing of changed ring every spot of PE pe, unless it
// already does. A goroutine that parks on a spot of pe calls it after
// Interrupted and before arming; it then checks changed itself after
// arming, so a ring that came before is not needed.
func (d *doorbells) watch(pe int, changed <-chan struct{}) {
	p := &d.relays[pe]
	for {
		old := p.Load()
		if old != nil && old.changed == changed {
			return // the goroutine that put it there relays it
		}
		if p.CompareAndSwap(old, &relay{changed}) {
			break
		}
	}
	go func() {
		<-changed
		for i := range d.per {
			if s := d.spots[pe*d.per+i].Load(); s != nil {
				s.Ring()
			}
		}
	}()
}
