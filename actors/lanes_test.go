package actors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// A mailbox with fewer lanes than PEs: the first senders to a PE claim its
// lanes and deliver everything in order, chunked messages included; a
// sender that finds them all claimed fails with ErrNoLane and sends
// nothing; every PE's Close reaches the receiver, through its lane or the
// control word, so the receiver ends with ErrClosed after the last message.
// Both layouts (host lines, and the device layout read through Get).
func TestMailboxLanesClaimed(t *testing.T) {
	for _, layout := range []struct {
		name   string
		viaGet bool
	}{{"lines", false}, {"viaGet", true}} {
		t.Run(layout.name, func(t *testing.T) { testLanesClaimed(t, layout.viaGet) })
	}
}

func testLanesClaimed(t *testing.T, viaGet bool) {
	const pes, lanes, count = 6, 3, 40
	sizes := []int{0, 8, 32, 33, 100, 500} // 500 spans several 128-byte slots
	msg := func(from, i int) []byte {
		b := bytes.Repeat([]byte{byte(from)}, sizes[i%len(sizes)])
		if len(b) > 1 {
			b[1] = byte(i)
		}
		return b
	}
	var mu sync.Mutex
	noLane := 0
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: pes, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		m, err := mailboxIn(ctx, pe, viaGet, Lanes(lanes), Slots(4), SlotSize(128))
		if err != nil {
			return err
		}
		if !m.claim || m.lanes != lanes {
			t.Errorf("lanes %d, claimed %v", m.lanes, m.claim)
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() != 0 {
			// PEs 1 … 5 race for PE 0's 3 lanes: exactly 3 win.
			for i := range count {
				err := m.Send(ctx, 0, msg(pe.ID(), i))
				if errors.Is(err, ErrNoLane) {
					if i != 0 {
						return fmt.Errorf("ErrNoLane after %d messages went through", i)
					}
					mu.Lock()
					noLane++
					mu.Unlock()
					if err := m.TrySend(0, []byte{1}); !errors.Is(err, ErrNoLane) {
						return fmt.Errorf("TrySend after ErrNoLane: %v", err)
					}
					break
				}
				if err != nil {
					return err
				}
			}
			return m.Close(ctx)
		}
		if err := m.Close(ctx); err != nil {
			return err
		}
		next := map[int]int{}
		for {
			x, err := m.Recv(ctx)
			if errors.Is(err, ErrClosed) {
				break
			}
			if err != nil {
				return err
			}
			i := next[x.From]
			if want := msg(x.From, i); !bytes.Equal(x.Data, want) {
				return fmt.Errorf("message %d from PE %d: % x, want % x", i, x.From, x.Data, want)
			}
			next[x.From]++
		}
		if len(next) != lanes {
			return fmt.Errorf("messages from %d senders, want %d (the lanes)", len(next), lanes)
		}
		for from, n := range next {
			if n != count {
				return fmt.Errorf("%d messages from PE %d, want %d", n, from, count)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if noLane != pes-1-lanes {
		t.Errorf("%d senders got ErrNoLane, want %d", noLane, pes-1-lanes)
	}
}

// Where lanes are claimed the memory is the lanes', not the world's: the
// slots of a 64-PE world with 4 lanes take 4 lanes' bytes, and an inbox
// of that world with one lane per PE takes 16 times more.
func TestMailboxLanesBoundMemory(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 64, HeapSize: 8 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		laned, err := NewMailbox(ctx, pe, Lanes(4), Slots(4), SlotSize(256))
		if err != nil {
			return err
		}
		full, err := NewMailbox(ctx, pe, Lanes(64), Slots(4), SlotSize(256))
		if err != nil {
			return err
		}
		if got := laned.slots.Len(); got != 4*4*256 {
			t.Errorf("slots of 4 lanes: %d bytes, want %d", got, 4*4*256)
		}
		if got := full.slots.Len(); got != 64*4*256 {
			t.Errorf("slots of 64 lanes: %d bytes, want %d", got, 64*4*256)
		}
		// A value per slot and the control word's, whatever the stride.
		if len(laned.in.next) != 4 || len(laned.in.expect) != 4*4+1 || laned.w.sym.Len() != (4*4+1)*laned.w.stride {
			t.Errorf("receive side of 4 lanes: %d lanes, %d expected values, %d words", len(laned.in.next), len(laned.in.expect), laned.w.sym.Len())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A Recv waiting in a world where lanes are claimed ends with ErrClosed
// once every PE closed, none of them having sent: each close arrives
// through the control word and the closed bits, and each wakes the
// waiting receiver.
func TestMailboxLanesCloseWithoutSending(t *testing.T) {
	for _, viaGet := range []bool{false, true} {
		err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 5, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
			m, err := mailboxIn(ctx, pe, viaGet, Lanes(1))
			if err != nil {
				return err
			}
			if pe.ID() != 0 {
				if err := pe.Barrier(ctx); err != nil { // PE 0 receives
					return err
				}
				return m.Close(ctx)
			}
			// PE 0 closes its own side first: a Recv that found every
			// other PE closed and this one not sending to itself would
			// end with ErrNoWriters (the package's Finished senders).
			if err := m.Close(ctx); err != nil {
				return err
			}
			done := make(chan error, 1)
			go func() { _, err := m.Recv(ctx); done <- err }()
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			if err := <-done; !errors.Is(err, ErrClosed) {
				return fmt.Errorf("Recv after every close: %v, want ErrClosed", err)
			}
			if err := m.Close(ctx); !errors.Is(err, ErrClosed) {
				return fmt.Errorf("Close twice: %v, want ErrClosed", err)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("viaGet %v: %v", viaGet, err)
		}
	}
}

// A sender between the two writes of its close (its bit in closedBy set,
// its close not yet counted on the control word) is still a writer: a
// Recv that starts then waits for the count and ends with ErrClosed,
// where it would end with ErrNoWriters had the bit taken the sender out
// of its wait set.
func TestMailboxRecvDuringHalfClose(t *testing.T) {
	for _, viaGet := range []bool{false, true} {
		half := make(chan struct{})
		err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
			m, err := mailboxIn(ctx, pe, viaGet, Lanes(1))
			if err != nil {
				return err
			}
			if pe.ID() == 1 {
				// closeTo's two writes, with PE 0's Recv started between them.
				if _, err := pgas.AtomicFetchOr(pe, m.closedBy.Index(0), 1<<1, 0); err != nil {
					return err
				}
				close(half)
				time.Sleep(20 * time.Millisecond)
				return pgas.SignalOp(pe, m.ctlWord(), ctlClose, pgas.SignalAdd, 0)
			}
			if err := m.Close(ctx); err != nil { // PE 0 sends nothing to itself
				return err
			}
			<-half
			if _, err := m.Recv(ctx); !errors.Is(err, ErrClosed) {
				return fmt.Errorf("Recv during a half-done close: %v, want ErrClosed", err)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("viaGet %v: %v", viaGet, err)
		}
	}
}

// A slot of a claimed lane that names another sender than the lane's
// first slot did, or none, breaks the wire format.
func TestMailboxLaneNamed(t *testing.T) {
	m := &Mailbox{n: 8, claim: true, in: inbox{sender: []int{-1, 3}}}
	cases := []struct {
		lane, from int
		ok         bool
	}{
		{0, 6, true},  // lane 0's first slot: PE 5
		{0, 6, true},  // and again
		{0, 7, false}, // another sender in lane 0
		{1, 4, true},  // lane 1 is PE 3's
		{1, 0, false}, // a slot that names no one
		{1, 9, false}, // a PE outside the world
	}
	for _, c := range cases {
		if err := m.named(c.lane, c.from); (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrProtocol)) {
			t.Errorf("lane %d, from %d: %v", c.lane, c.from, err)
		}
	}
	if m.in.sender[0] != 5 {
		t.Errorf("lane 0's sender %d, want 5", m.in.sender[0])
	}
	id := &Mailbox{n: 8, in: inbox{sender: []int{0, 1}}}
	if id.named(1, 0) != nil || id.named(1, 2) != nil || id.named(1, 3) == nil {
		t.Error("a lane per PE: a slot names no one or its lane's PE")
	}
}
