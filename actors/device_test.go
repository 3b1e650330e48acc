package actors_test

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

// The layout a kernel gets names the mailbox's allocations and shape, and
// encodes as struct symchan_mailbox.
func TestDeviceMailboxLayout(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{PEs: 3}, func(ctx context.Context, pe *pgas.PE) error {
		mb, err := actors.NewMailbox(ctx, pe, actors.Slots(8), actors.SlotSize(256))
		if err != nil {
			return err
		}
		d, err := mb.Device()
		if err != nil {
			return err
		}
		if d.NPEs != 3 || d.Slots != 8 || d.SlotSize != 256 {
			t.Errorf("shape %+v", d)
		}
		if d.WordsOff == d.SlotsOff || d.SlotsOff == d.CreditOff || d.SlotsOff%64 != 0 {
			t.Errorf("offsets %+v", d)
		}
		// Kernels find a sender's slots by its id: a mailbox with fewer
		// lanes than PEs has no layout for them.
		laned, err := actors.NewMailbox(ctx, pe, actors.Lanes(2))
		if err != nil {
			return err
		}
		if _, err := laned.Device(); !errors.Is(err, actors.ErrBadArg) {
			t.Errorf("Device of a mailbox of 2 lanes for 3 PEs: %v, want ErrBadArg", err)
		}
		b := d.Bytes()
		if len(b) != actors.DeviceMailboxSize || int64(binary.LittleEndian.Uint64(b[8:])) != d.SlotsOff ||
			binary.LittleEndian.Uint32(b[28:]) != 8 || binary.LittleEndian.Uint32(b[32:]) != 256 {
			t.Errorf("encoding % x of %+v", b, d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A System's reply layout names its allocations and encodes as struct
// symchan_replies.
func TestDeviceSystemLayout(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{PEs: 2}, func(ctx context.Context, pe *pgas.PE) error {
		sys, err := actors.NewSystem(ctx, pe, actors.Futures(16), actors.ReplySize(100))
		if err != nil {
			return err
		}
		d := sys.Device()
		if d.Futures != 16 || d.ReplySize != 100 || d.SlotBytes != 8+104 || d.WordsOff == d.DataOff {
			t.Errorf("layout %+v", d)
		}
		b := d.Bytes()
		if len(b) != actors.DeviceSystemSize || int64(binary.LittleEndian.Uint64(b[8:])) != d.DataOff ||
			binary.LittleEndian.Uint32(b[16:]) != 16 || binary.LittleEndian.Uint32(b[20:]) != 112 || binary.LittleEndian.Uint32(b[24:]) != 100 {
			t.Errorf("encoding % x of %+v", b, d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
