package actors

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// The receive path through Get and SignalFetch, which backends whose
// partitions are not host memory take, gives the same results as the
// direct path the host backend takes.
func TestMailboxWithoutLocalViews(t *testing.T) {
	sizes := []int{0, 8, 48, 49, 200, 1000}
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		m, err := NewMailbox(ctx, pe, Slots(2), SlotSize(64))
		if err != nil {
			return err
		}
		m.localWords, m.localSlots = nil, nil
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
