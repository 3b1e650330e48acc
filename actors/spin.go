package actors

import (
	"runtime"
	"time"

	"github.com/symchan/symchan/pgas"
)

// Where partitions are host memory and the world spins (pgas.BlockSpin), a
// receiver polls the words it expects itself before it parks: a direct
// load of the next word sees a message that is on its way sooner than a
// wait in the backend, and a round trip between PEs on two cores takes
// well under a microsecond. A Future's Await polls for futureSpin, then
// waits in the backend, which spins again (50 µs) before it parks; a
// mailbox's Recv parks on its own spot (see Mailbox.park), so it polls
// as long as the backend's waits spin: parking sooner costs a stream of
// messages a futex wake-up whenever the receiver gets ahead (1.36× the
// time per message on two cores). It yields the processor every
// spinYield, for PEs that share a core; more often costs latency (a
// yield takes longer than a hop).
const (
	futureSpin = 5 * time.Microsecond
	recvSpin   = 50 * time.Microsecond
	spinYield  = time.Microsecond
	spinPolls  = 64 // polls between clock reads
)

// spins reports whether pe's world polls before it parks (pgas.BlockSpin);
// with pgas.BlockPark the actors park at once as well.
func spins(pe *pgas.PE) bool { return pe.World().Config().Blocking != pgas.BlockPark }

// spin polls ready until it reports true (spin then does too) or d has
// passed.
func spin(ready func() bool, d time.Duration) bool {
	var start, yielded time.Time
	for i := 1; ; i++ {
		if ready() {
			return true
		}
		if i%spinPolls != 0 {
			continue
		}
		now := time.Now()
		switch {
		case start.IsZero():
			start, yielded = now, now
		case now.Sub(start) > d:
			return false
		case now.Sub(yielded) > spinYield:
			runtime.Gosched()
			yielded = now
		}
	}
}
