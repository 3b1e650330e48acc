package service

import (
	"sync"
	"sync/atomic"

	"github.com/symchan/symchan/actors"
)

// Stats is a snapshot of a service, as plain values (a Prometheus
// collector: package actors/service/promstats). Counts are cumulative over
// the life of the service, across restarts.
type Stats struct {
	State      State
	Generation uint64 // the worlds started so far (1 before the first restart)
	Restarts   uint64 // restarts after failures
	PEs        []PEStats
	// CallAny's calls wait in an inbox of their own until a local PE
	// takes one (then they count as that PE's): how many wait there now,
	// and how many gave up before a PE took them (AnyRejected: they did
	// not get in; AnyAbandoned: they did).
	AnyQueued                 int
	AnyRejected, AnyAbandoned uint64
}

// PEStats are one PE's figures, as this process sees them.
type PEStats struct {
	PE    int
	Local bool // the PE runs in this process (its actor's calls are served here)
	// Calls counts the calls to this PE that it answered; Errors, those
	// answered with an error.
	Calls  uint64
	Errors uint64
	// InFlight is how many calls to this PE are under way (waiting or
	// being served); Queued, how many of them wait in its inbox.
	InFlight int
	Queued   int
	// Rejected counts calls whose context ended before they got into the
	// PE's inbox (ErrOverloaded); Abandoned, those whose context ended
	// after they did (waiting there or being served).
	Rejected  uint64
	Abandoned uint64
	// Failures counts the times this PE failed (an error, a panic, a
	// Fatal error from its actor).
	Failures uint64
	// Messages are the counts of the service's mailbox on this PE (the
	// calls to and from other processes' PEs), summed over the worlds.
	Messages actors.MailboxStats
}

// peCounters are PEStats as the calls and the PEs' loops update them.
type peCounters struct {
	calls, errors, rejected, abandoned, failures atomic.Uint64
	inFlight                                     atomic.Int64

	mu   sync.Mutex
	past actors.MailboxStats // of the worlds that ended
	box  *actors.Mailbox     // of the running world
}

func (c *peCounters) snapshot(pe int) PEStats {
	c.mu.Lock()
	msgs := c.past
	if c.box != nil {
		msgs = msgs.Add(c.box.Stats())
	}
	c.mu.Unlock()
	return PEStats{
		PE:    pe,
		Calls: c.calls.Load(), Errors: c.errors.Load(),
		InFlight: int(c.inFlight.Load()),
		Rejected: c.rejected.Load(), Abandoned: c.abandoned.Load(),
		Failures: c.failures.Load(),
		Messages: msgs,
	}
}

// setBox makes m the running world's mailbox on this PE.
func (c *peCounters) setBox(m *actors.Mailbox) {
	c.mu.Lock()
	c.box = m
	c.mu.Unlock()
}

// retire folds the ended world's mailbox counts into the totals.
func (c *peCounters) retire() {
	c.mu.Lock()
	if c.box != nil {
		s := c.box.Stats()
		s.Queued = 0 // gone with its world
		c.past = c.past.Add(s)
		c.box = nil
	}
	c.mu.Unlock()
}
