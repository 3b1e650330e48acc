package actors

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// A receiver of sealed slots (the layout of device memory, here on the
// host backend) never takes a slot whose word arrived before all of its
// data: each torn state below makes Recv wait (and count a torn read)
// until its context ends, and once the rest lands the message is taken
// whole. A slot that stays torn fails with ErrProtocol after tornLimit.
func TestMailboxSealedSlotsNeverTakenTorn(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		m, err := mailboxIn(ctx, pe, true, Slots(2), SlotSize(64), KeepStats())
		if err != nil {
			return err
		}
		if pe.ID() == 0 {
			return m.Send(ctx, 1, []byte("first message"))
		}
		if msg, err := m.Recv(ctx); err != nil || string(msg.Data) != "first message" {
			return fmt.Errorf("first message: %q, %v", msg.Data, err)
		}
		// Sender 0's next message is sequence number 2, in slot 1.
		const seq = 2
		data := []byte("the second message, 33 bytes long")
		whole := make([]byte, headerSize+len(data))
		putHeader(whole, header{kind: kindData, n: len(data), total: len(data)})
		copy(whole[headerSize:], data)
		sealSlot(whole, seq)
		staleSeal := bytes.Clone(whole)
		sealSlot(staleSeal, seq-1) // the seal of the slot's previous use
		noPayload := bytes.Clone(whole)
		clear(noPayload[headerSize:])
		halfPayload := bytes.Clone(whole)
		clear(halfPayload[headerSize+16:])
		word := m.w.word(1)
		slot := m.slots.Slice(m.s, 2*m.s)
		put := func(b []byte) error { return pgas.Put(pe, slot.Slice(0, len(b)), b, pe.ID()) }
		for i, torn := range []struct {
			name string
			slot []byte
		}{
			{"word alone", nil},
			{"header without payload", noPayload},
			{"half the payload", halfPayload},
			{"a seal for the slot's previous sequence number", staleSeal},
		} {
			if torn.slot != nil {
				if err := put(torn.slot); err != nil {
					return err
				}
			}
			if err := pgas.SignalOp(pe, word, seq, pgas.SignalSet, pe.ID()); err != nil {
				return err
			}
			before := m.Stats().TornReads
			rctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			msg, err := m.Recv(rctx)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: Recv = %q, %v; want it to wait for the rest", torn.name, msg.Data, err)
			}
			if m.Stats().TornReads == before {
				t.Errorf("%s: no torn read counted", torn.name)
			}
			if i == 0 {
				start := time.Now()
				if msg, err := m.Recv(ctx); !errors.Is(err, ErrProtocol) || time.Since(start) < tornLimit {
					t.Errorf("a slot torn for good: Recv = %q, %v after %v; want ErrProtocol after %v", msg.Data, err, time.Since(start), tornLimit)
				}
			}
		}
		if err := put(whole); err != nil { // the rest lands
			return err
		}
		msg, err := m.Recv(ctx)
		if err != nil || !bytes.Equal(msg.Data, data) {
			return fmt.Errorf("the whole slot: %q, %v", msg.Data, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The seal covers every byte of header and payload and the sequence
// number: changing any one of them changes it.
func TestSlotSealCoversEveryByte(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 9, 40, 1000} {
		b := make([]byte, headerSize+n)
		putHeader(b, header{kind: kindData, n: n, total: n})
		for i := headerSize; i < len(b); i++ {
			b[i] = byte(i * 7)
		}
		want := slotSeal(b, 5)
		if slotSeal(b, 6) == want {
			t.Errorf("n=%d: the seal ignores the sequence number", n)
		}
		for i := range b {
			if i >= sealAt && i < headerSize {
				continue // the seal's own place
			}
			b[i] ^= 0x40
			if slotSeal(b, 5) == want {
				t.Errorf("n=%d: the seal ignores byte %d", n, i)
			}
			b[i] ^= 0x40
		}
		sealSlot(b, 5)
		if got, ok := sealedLen(b, 5, 1<<20); !ok || got != len(b) {
			t.Errorf("n=%d: sealedLen = %d, %v; want %d, true", n, got, ok, len(b))
		}
		if binary.LittleEndian.Uint64(b[sealAt:]) != want {
			t.Errorf("n=%d: sealSlot wrote another seal", n)
		}
	}
}

// What a seal costs a sender (and a receiver, which computes it again):
// per slot, by payload size.
func BenchmarkSlotSeal(b *testing.B) {
	for _, n := range []int{8, 40, 1000} {
		buf := make([]byte, headerSize+n)
		putHeader(buf, header{kind: kindData, n: n, total: n})
		b.Run(fmt.Sprintf("payload=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for i := range b.N {
				sealSlot(buf, uint64(i))
			}
		})
	}
}
