package actors

import (
	"context"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// The counts follow what the calls did: messages and payload bytes both
// ways, credit waits when a sender outruns its K slots, and the receive
// waits that ended with a message.
func TestMailboxStats(t *testing.T) {
	for _, viaGet := range []bool{false, true} {
		const k, msgs, size = 2, 20, 100
		var got [2]MailboxStats
		err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
			m, err := mailboxIn(ctx, pe, viaGet, Slots(k), SlotSize(256), KeepStats())
			if err != nil {
				return err
			}
			if pe.ID() == 0 {
				for range msgs {
					if err := m.Send(ctx, 1, make([]byte, size)); err != nil {
						return err
					}
				}
			} else {
				// The sender fills its K slots meanwhile and must wait.
				time.Sleep(20 * time.Millisecond)
				for range msgs {
					if _, err := m.Recv(ctx); err != nil {
						return err
					}
				}
			}
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			got[pe.ID()] = m.Stats()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		s, r := got[0], got[1]
		if s.Sent != msgs || s.SentBytes != msgs*size || s.Received != 0 {
			t.Errorf("viaGet=%v: sender's stats %+v, want %d sent of %d bytes", viaGet, s, msgs, msgs*size)
		}
		if r.Received != msgs || r.ReceivedBytes != msgs*size || r.Sent != 0 || r.Queued != 0 {
			t.Errorf("viaGet=%v: receiver's stats %+v, want %d received of %d bytes", viaGet, r, msgs, msgs*size)
		}
		if r.Wakeups > r.Waits {
			t.Errorf("viaGet=%v: %d wake-ups from %d waits", viaGet, r.Wakeups, r.Waits)
		}
		if s.CreditWaits == 0 || s.CreditWaitTime <= 0 {
			t.Errorf("viaGet=%v: %d credit waits took %v", viaGet, s.CreditWaits, s.CreditWaitTime)
		}
		if sum := s.Add(r); sum.Sent != msgs || sum.Received != msgs {
			t.Errorf("Add: %+v", sum)
		}
	}
}

// Without KeepStats nothing is counted.
func TestMailboxStatsOff(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		m, err := NewMailbox(ctx, pe)
		if err != nil {
			return err
		}
		if err := m.Send(ctx, 1-pe.ID(), []byte("x")); err != nil {
			return err
		}
		if _, err := m.Recv(ctx); err != nil {
			return err
		}
		if s := m.Stats(); s != (MailboxStats{}) {
			t.Errorf("PE %d counted without KeepStats: %+v", pe.ID(), s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
