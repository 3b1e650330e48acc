package actors

import (
	"sync/atomic"
	"time"
)

// MailboxStats counts what one PE's side of a Mailbox (or Chan) has done
// since it was created. The counts are cumulative; read them with
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
		Queued: s.Queued + o.Queued,
	}
}

// mailboxCounters are a Mailbox's counts. The senders' and the receiver's
// are on cache lines of their own: they are written from different cores
// on every message.
type mailboxCounters struct {
	_           [cacheLine]byte
	sent        atomic.Uint64
	sentBytes   atomic.Uint64
	creditWaits atomic.Uint64
	creditNanos atomic.Int64
	_           [cacheLine]byte
	received    atomic.Uint64
	recvBytes   atomic.Uint64
	waits       atomic.Uint64
	wakeups     atomic.Uint64
	queued      atomic.Int64
	_           [cacheLine]byte
}

func (c *mailboxCounters) sentOne(bytes int) {
	c.sent.Add(1)
	c.sentBytes.Add(uint64(bytes))
}

func (c *mailboxCounters) receivedOne(bytes int) {
	c.received.Add(1)
	c.recvBytes.Add(uint64(bytes))
}

func (c *mailboxCounters) creditWait(d time.Duration) {
	c.creditWaits.Add(1)
	c.creditNanos.Add(int64(d))
}

// Stats returns this PE's counts for the Mailbox.
func (m *Mailbox) Stats() MailboxStats {
	c := &m.stats
	return MailboxStats{
		Sent: c.sent.Load(), SentBytes: c.sentBytes.Load(),
		Received: c.received.Load(), ReceivedBytes: c.recvBytes.Load(),
		CreditWaits: c.creditWaits.Load(), CreditWaitTime: time.Duration(c.creditNanos.Load()),
		Waits: c.waits.Load(), Wakeups: c.wakeups.Load(),
		Queued: int(c.queued.Load()),
	}
}
