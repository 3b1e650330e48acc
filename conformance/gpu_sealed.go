package conformance

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// Mailbox slots on GPUs are sealed: their sender puts data and word with
// no fence between them, so a receiver may see a slot's word before its
// data. Here PE 1 tears sender 0's next slot on purpose, in its own
// memory: it sets the slot's word while the slot holds what a late write
// would leave there, nothing new, or a whole slot of an earlier sequence
// number. Go's Recv must wait through it (until its context ends), and a
// device receiver (mailbox_echo, launched on that state) must take
// nothing until PE 0's real message lands, then echo exactly that one.
func (ck *kit) testSealedSlotNeverTakenTorn(t *testing.T) {
	ck.needGPUs(t, 2)
	const k, slotSize = 4, 64
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[uint64](ctx, pe, actors.Lanes(pe.NumPEs()), actors.Slots(k), actors.SlotSize(slotSize)))
		if pe.ID() == 0 {
			return sealedSender(ctx, pe, ch)
		}
		g := must(pe.GPU())
		d := must(ch.Mailbox().Device())
		st := must(g.Context().NewStream())
		defer st.Destroy()
		slot := func(seq uint64) device.Ptr { // sender 0's slot of seq, in this PE's memory
			return g.Addr(1, d.SlotsOff+int64((seq-1)%k)*int64(d.SlotSize))
		}
		// whole is the slot of seq as its message left it: header and 8 bytes.
		whole := func(seq uint64) []byte {
			b := make([]byte, 32)
			check(st.CopyOut(b, slot(seq)))
			return b
		}
		// tear sets the word of seq's slot over what the slot holds, after
		// writing stale there, if any.
		tear := func(seq uint64, stale []byte) {
			if stale != nil {
				check(st.CopyIn(slot(seq), stale))
			}
			var w [8]byte
			binary.LittleEndian.PutUint64(w[:], seq)
			check(st.CopyIn(g.Addr(1, d.WordsOff+8*int64((seq-1)%k)), w[:]))
			check(st.Sync())
		}
		if v, err := ch.Recv(ctx); err != nil || v != 100 {
			return fmt.Errorf("message 1: %d, %v", v, err)
		}
		for _, torn := range []struct {
			name  string
			stale []byte
		}{{"the word alone", nil}, {"a whole slot of sequence number 1", whole(1)}} {
			tear(2, torn.stale)
			rctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			v, err := ch.Recv(rctx)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("torn slot (%s): Recv = %d, %v; want it to wait for the data", torn.name, v, err)
			}
		}
		check(pe.Barrier(ctx)) // PE 0 sends message 2
		if v, err := ch.Recv(ctx); err != nil || v != 101 {
			return fmt.Errorf("message 2 after its torn slot: %d, %v; want 101", v, err)
		}
		// The device receiver: message 3's slot holds message 2's, whole.
		tear(3, whole(2))
		in := make([]byte, mboxInBytes(pe.NumPEs()))
		binary.LittleEndian.PutUint64(in, 3) // next from sender 0: 3, as Go left it
		check(pe.Barrier(ctx))               // PE 0 looks for an echo, then sends message 3
		b, err := runKernel(pe, kernelMailboxEcho, 1,
			[]region{{actors.DeviceMailboxSize, d.Bytes()}, {mboxOutBytes(pe.NumPEs()), nil}, {int64(len(in)), in}, {8, nil}},
			func(at []device.Ptr) []uint64 {
				return []uint64{uint64(at[0]), uint64(at[1]), uint64(at[2]), 0, 1, 1000, uint64(at[3])}
			}, 3)
		return kernelStatus(kernelMailboxEcho, b, err)
	})
}

// sealedSender is PE 0's side of testSealedSlotNeverTakenTorn.
func sealedSender(ctx context.Context, pe *pgas.PE, ch *actors.Chan[uint64]) error {
	check(ch.Send(ctx, 1, 100))
	check(pe.Barrier(ctx)) // PE 1 tears message 2's slot
	check(ch.Send(ctx, 1, 101))
	check(pe.Barrier(ctx))             // PE 1 tears message 3's slot and starts its kernel
	time.Sleep(300 * time.Millisecond) // the kernel runs on the torn slot
	if v, ok, err := ch.TryRecv(); ok || err != nil {
		return fmt.Errorf("the device receiver took a torn slot: it echoed %d (%v)", v, err)
	}
	check(ch.Send(ctx, 1, 102))
	if v, err := ch.Recv(ctx); err != nil || v != 1102 {
		return fmt.Errorf("echo of message 3: %d, %v; want 1102", v, err)
	}
	return nil
}
