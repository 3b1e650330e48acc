package actors

import (
	"sync/atomic"
	"time"
)

// MailboxStats counts what one PE's side of a Mailbox (or Chan) made with
// KeepStats has done since it was created. The counts are cumulative; read them with
// [Mailbox.Stats] from any goroutine, at any time, also after the world
// ended.
type MailboxStats struct {
	Sent          uint64 // messages whose Send or TrySend returned nil
	SentBytes     uint64 // their payload bytes
	Received      uint64 // messages Recv, TryRecv or the C view returned
	ReceivedBytes uint64 // their payload bytes
	// CreditWaits counts slots a sender waited for because the receiver
	// had not yet freed one, and CreditWaitTime is how long those waits
	// took in all: the backpressure this PE met.
	CreditWaits    uint64
	CreditWaitTime time.Duration
	// Waits counts the times a receive found nothing ready and waited in
	// the backend; Wakeups, those waits that ended with messages.
	Waits   uint64
	Wakeups uint64
	// TornReads counts reads of a sealed slot (GPU memory) that caught it
	// torn, its word seen before all of its data, and were done again.
	TornReads uint64
	// Queued is how many messages have been copied out of their slots but
	// not yet returned by a receive: the part of the inbox this PE holds.
	Queued int
}

// Add returns the sum of s and o, for totals over mailboxes or over the
// worlds of a process.
func (s MailboxStats) Add(o MailboxStats) MailboxStats {
	return MailboxStats{
		Sent: s.Sent + o.Sent, SentBytes: s.SentBytes + o.SentBytes,
		Received: s.Received + o.Received, ReceivedBytes: s.ReceivedBytes + o.ReceivedBytes,
		CreditWaits: s.CreditWaits + o.CreditWaits, CreditWaitTime: s.CreditWaitTime + o.CreditWaitTime,
		Waits: s.Waits + o.Waits, Wakeups: s.Wakeups + o.Wakeups,
		TornReads: s.TornReads + o.TornReads,
		Queued:    s.Queued + o.Queued,
	}
}

// mailboxCounters are a Mailbox's counts (KeepStats). The senders' and the
// receiver's are on cache lines of their own: they are written from
// different cores on every message. Its methods do nothing on a nil
// *mailboxCounters: the mailbox counts nothing.
type mailboxCounters struct {
	sent        atomic.Uint64
	sentBytes   atomic.Uint64
	creditWaits atomic.Uint64
	creditNanos atomic.Int64
	_           [cacheLine]byte
	received    atomic.Uint64
	recvBytes   atomic.Uint64
	waits       atomic.Uint64
	wakeups     atomic.Uint64
	torn        atomic.Uint64
	queued      atomic.Int64
}

func (c *mailboxCounters) sentOne(bytes int) {
	if c != nil {
		c.sent.Add(1)
		c.sentBytes.Add(uint64(bytes))
	}
}

// receivedOne counts a message a receive returned, queued more remaining.
func (c *mailboxCounters) receivedOne(bytes, queued int) {
	if c != nil {
		c.received.Add(1)
		c.recvBytes.Add(uint64(bytes))
		c.queued.Store(int64(queued))
	}
}

// waited counts a receive's wait in the backend, and whether it woke
// with messages.
func (c *mailboxCounters) waited(woke bool) {
	if c != nil {
		c.waits.Add(1)
		if woke {
			c.wakeups.Add(1)
		}
	}
}

// tornRead counts a read of a sealed slot that caught it torn.
func (c *mailboxCounters) tornRead() {
	if c != nil {
		c.torn.Add(1)
	}
}

// now is the start of a credit wait (zero when nothing is counted: the
// clock is not read).
func (c *mailboxCounters) now() time.Time {
	if c == nil {
		return time.Time{}
	}
	return time.Now()
}

func (c *mailboxCounters) creditWait(since time.Time) {
	if c != nil {
		c.creditWaits.Add(1)
		c.creditNanos.Add(int64(time.Since(since)))
	}
}

// Stats returns this PE's counts for the Mailbox: zeros unless it was
// made with KeepStats.
func (m *Mailbox) Stats() MailboxStats {
	if m == nil {
		return MailboxStats{}
	}
	c := m.stats
	if c == nil {
		return MailboxStats{}
	}
	return MailboxStats{
		Sent: c.sent.Load(), SentBytes: c.sentBytes.Load(),
		Received: c.received.Load(), ReceivedBytes: c.recvBytes.Load(),
		CreditWaits: c.creditWaits.Load(), CreditWaitTime: time.Duration(c.creditNanos.Load()),
		Waits: c.waits.Load(), Wakeups: c.wakeups.Load(),
		TornReads: c.torn.Load(),
		Queued:    int(c.queued.Load()),
	}
}
