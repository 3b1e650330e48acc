package actors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// mailboxIn makes a Mailbox with the layout and receive path of host
// memory (lines) or, with viaGet, of backends whose partitions are device
// memory, on the host backend.
func mailboxIn(ctx context.Context, pe *pgas.PE, viaGet bool, opts ...MailboxOption) (*Mailbox, error) {
	c, err := mailboxOptions(opts)
	if err != nil {
		return nil, err
	}
	return newMailbox(ctx, pe, c, !viaGet)
}

// Both layouts carry messages at the edges of what fits in place: the
// payload beside the slot word (32 bytes, host memory), in a slot (40
// bytes with 64-byte slots), and beyond it (chunks, whose last one may fit
// beside the word again). The layout of device-memory partitions is taken
// through Get and SignalFetch.
func TestMailboxLayouts(t *testing.T) {
	for _, layout := range []struct {
		name   string
		viaGet bool
	}{{"lines", false}, {"viaGet", true}} {
		t.Run(layout.name, func(t *testing.T) { testMailboxSizes(t, layout.viaGet) })
	}
}

func testMailboxSizes(t *testing.T, viaGet bool) {
	sizes := []int{0, 8, 31, 32, 33, 39, 40, 41, 79, 80, 81, 97, 200, 1000}
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		m, err := mailboxIn(ctx, pe, viaGet, Slots(2), SlotSize(64))
		if err != nil {
			return err
		}
		if lines := m.w.lined(); lines != !viaGet {
			t.Errorf("slot words on lines of their own: %v", lines)
		}
		if pe.ID() == 0 {
			for _, n := range sizes {
				if err := m.Send(ctx, 1, bytes.Repeat([]byte{byte(n)}, n)); err != nil {
					return err
				}
			}
			return m.Close(ctx)
		}
		if err := m.Close(ctx); err != nil {
			return err
		}
		for _, n := range sizes {
			msg, err := m.Recv(ctx)
			if err != nil {
				return err
			}
			if !bytes.Equal(msg.Data, bytes.Repeat([]byte{byte(n)}, n)) {
				t.Errorf("message of %d bytes: got %d bytes", n, len(msg.Data))
			}
		}
		if _, err := m.Recv(ctx); !errors.Is(err, ErrClosed) {
			t.Errorf("after close and drain: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Without local views, a receiver takes exactly the slots each wait
// reports: many senders, few slots, every message once and in order.
func TestMailboxWithoutLocalViewsFanIn(t *testing.T) {
	const pes, count = 4, 300
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: pes, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		m, err := mailboxIn(ctx, pe, true, Slots(2), SlotSize(64))
		if err != nil {
			return err
		}
		if pe.ID() != 0 {
			for i := range count {
				if err := m.Send(ctx, 0, []byte{byte(pe.ID()), byte(i), byte(i >> 8)}); err != nil {
					return err
				}
			}
			return nil
		}
		var next [pes]int
		for range (pes - 1) * count {
			msg, err := m.Recv(ctx)
			if err != nil {
				return err
			}
			from, i := int(msg.Data[0]), int(msg.Data[1])|int(msg.Data[2])<<8
			if from != msg.From || i != next[from] {
				t.Errorf("from PE %d (header says %d): message %d, want %d", msg.From, from, i, next[from])
			}
			next[from]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMailboxFits(t *testing.T) {
	cases := []struct {
		n, l, k, s int
		lined      bool
		mem        int64
		ok         bool
	}{
		{8, 8, 16, 256, true, 24 << 30, true},
		{64, 64, 64, 4096, true, 24 << 30, true},
		{65536, 65536, 65536, 1 << 30, false, 0, false}, // symmetric size overflows
		{65536, 65536, 16, 256, true, 24 << 30, false},  // a lane per PE: the receive sides' Go memory does not fit
		{4096, 64, 16, 1024, true, 24 << 30, true},      // the default lanes in a 4096-PE world
		{65536, 64, 16, 256, true, 24 << 30, false},     // 24 bytes per PE of the world, on each of 65536 PEs
		{65536, 65536, 16, 256, true, 0, true},          // memory unknown: only overflow is checked
	}
	for _, c := range cases {
		if err := mailboxFits(c.n, c.l, c.k, c.s, c.lined, c.mem); (err == nil) != c.ok {
			t.Errorf("mailboxFits(%d, %d, %d, %d, %v, %d) = %v", c.n, c.l, c.k, c.s, c.lined, c.mem, err)
		}
	}
}

// A receiver that parks when the last close markers have just arrived
// must see them in its park's first look, and then take them and end
// with ErrClosed rather than wait on a set of senders that is empty
// (which fails: no PE could satisfy the wait). In the soak suite this
// happened when the markers landed between recv's spin and its park;
// here the park starts with them already in place.
func TestMailboxParkTakesLastCloseMarker(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		m, err := mailboxIn(ctx, pe, false)
		if err != nil {
			return err
		}
		if !m.w.lined() {
			return errors.New("host memory words not read in place: the park path is not taken")
		}
		if err := m.Close(ctx); err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil { // both markers are in place
			return err
		}
		if err := m.in.mu.lock(ctx); err != nil {
			return err
		}
		// Unfixed, the park waits for nobody and never returns.
		from, err := m.senders()
		if err != nil {
			m.in.mu.unlock()
			return err
		}
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err = pgas.Park(pctx, pe, m.w.sym, from, m.ready)
		cancel()
		var took bool
		if err == nil {
			took, err = m.drainHeads()
		}
		open := m.in.open
		m.in.mu.unlock()
		if err != nil {
			return fmt.Errorf("park with the close markers ready: %w", err)
		}
		if !took || open != 0 {
			return fmt.Errorf("after the park a drain took markers: %v, with %d senders open, want true and 0", took, open)
		}
		if _, err := m.Recv(ctx); !errors.Is(err, ErrClosed) {
			return fmt.Errorf("Recv after every sender closed: %v, want ErrClosed", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
