package actors

import (
	"runtime"
	"time"

	"github.com/symchan/symchan/pgas"
)

// Where partitions are host memory and the world spins (pgas.BlockSpin), a
// receiver (Mailbox.Recv, Future.Await) polls the words it expects itself
// for up to spinFor before it parks on its spot: a direct load of the
// next word sees a message that is on its way sooner than a wait, and a
// round trip between PEs on two cores takes well under a microsecond.
// spinFor is as long as the host backend's waits spin: parking sooner
// costs a stream of messages a futex wake-up whenever the receiver gets
// ahead (1.36× the time per message on two cores at 5 µs). It yields the
// processor every spinYield, for PEs that share a core; more often costs
// latency (a yield takes longer than a hop).
const (
	spinFor   = 50 * time.Microsecond
	spinYield = time.Microsecond
	spinPolls = 64 // polls between clock reads
)

// spins reports whether pe's world polls before it parks (pgas.BlockSpin);
// with pgas.BlockPark the actors park at once as well.
func spins(pe *pgas.PE) bool { return pe.World().Config().Blocking != pgas.BlockPark }

// spin polls ready until it reports true (spin then does too) or spinFor
// has passed.
func spin(ready func() bool) bool {
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
		case now.Sub(start) > spinFor:
			return false
		case now.Sub(yielded) > spinYield:
			runtime.Gosched()
			yielded = now
		}
	}
}
