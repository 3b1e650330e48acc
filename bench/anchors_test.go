package bench

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/symchan/symchan/internal/handoff"
)

// roundTripAnchors runs the anchors of the host round-trip benchmarks as
// sub-benchmarks of b, beside b's impl=symchan, so that benchstat -col
// /impl compares them directly:
//
//   - impl=gochan: a value sent to another goroutine over an unbuffered
//     channel and sent back. When the runtime hands off on one core this
//     is cheaper than any cross-core exchange can be.
//   - impl=atomic: one atomic word that two spinning goroutines hand back
//     and forth (each waits for the other's value, then writes its own):
//     the cost of moving one cache line between two cores and back, the
//     floor of any cross-core round trip, symchan's included.
//   - impl=atomic2: the same with the request and the reply in two words
//     on two cache lines, as any exchange through two mailboxes (one per
//     receiver) has them: symchan's Chan and Future round trips. Each line
//     is written on one core while the other core polls it.
//   - impl=handoff: the same two words, but each receiver parks on a
//     handoff.Spot that the writer rings after its store: the protocol of
//     a host mailbox's parked receive (Mailbox.park) with nothing else,
//     the floor of symchan's parked round trips.
func roundTripAnchors(b *testing.B) {
	b.Run("impl=gochan", goChanRoundTrip)
	b.Run("impl=atomic", atomicRoundTrip)
	b.Run("impl=atomic2", atomic2RoundTrip)
	b.Run("impl=handoff", handoffRoundTrip)
}

func goChanRoundTrip(b *testing.B) {
	ping, pong := make(chan uint64), make(chan uint64)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	for i := range uint64(b.N) {
		ping <- i
		<-pong
	}
	close(ping)
}

func atomicRoundTrip(b *testing.B) {
	var word atomic.Uint64
	spinRoundTrips(b, &word, &word)
}

func atomic2RoundTrip(b *testing.B) {
	var lines struct {
		_        [64]byte
		request  atomic.Uint64
		_        [56]byte
		response atomic.Uint64
		_        [56]byte
	}
	spinRoundTrips(b, &lines.request, &lines.response)
}

// parkedWord is a word on a line of its own and the spot its reader parks
// on.
type parkedWord struct {
	_    [64]byte
	word atomic.Uint64
	_    [56]byte
	spot handoff.Spot
}

// store sets the word, then rings its reader if it is parked.
func (p *parkedWord) store(v uint64) {
	p.word.Store(v)
	p.spot.Ring()
}

// await parks until the word holds v (handoff.Spot's steps).
func (p *parkedWord) await(ctx context.Context, v uint64) {
	if p.word.Load() == v {
		return
	}
	p.spot.Watch(ctx, nil)
	p.spot.Arm()
	for p.word.Load() != v {
		p.spot.Park()
		if p.word.Load() == v {
			return
		}
		p.spot.Arm()
	}
	p.spot.Disarm()
}

func handoffRoundTrip(b *testing.B) {
	var req, resp parkedWord
	req.spot.Init()
	resp.spot.Init()
	ctx := context.Background()
	n := uint64(b.N)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := uint64(1); i <= n; i++ {
			req.await(ctx, i)
			resp.store(i)
		}
	}()
	for i := uint64(1); i <= n; i++ {
		req.store(i)
		resp.await(ctx, i)
	}
	<-done
}

// spinRoundTrips runs b.N round trips between two spinning goroutines:
// round i's request is 2i-1 in req, its reply 2i in resp (which may be
// the same word: odd, the pinger's turn is over; even, the ponger's).
func spinRoundTrips(b *testing.B, req, resp *atomic.Uint64) {
	if runtime.GOMAXPROCS(0) < 2 {
		b.Skip("needs two cores (GOMAXPROCS ≥ 2)")
	}
	n := uint64(b.N)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := uint64(1); i <= n; i++ {
			spinUntil(req, 2*i-1)
			resp.Store(2 * i)
		}
	}()
	for i := uint64(1); i <= n; i++ {
		req.Store(2*i - 1)
		spinUntil(resp, 2*i)
	}
	<-done
}

// spinUntil spins until w holds v, yielding now and then so that two
// spinners that share one core (the scheduler may put them there) still
// make progress.
func spinUntil(w *atomic.Uint64, v uint64) {
	for spins := 0; w.Load() != v; spins++ {
		if spins&1023 == 1023 {
			runtime.Gosched()
		}
	}
}
