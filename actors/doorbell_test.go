package actors

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// The process's table of doorbells holds an entry per live host mailbox
// (one for all its PEs) and drops it once the mailbox's Mailboxes are
// collected: a service that restarts its world does not grow it.
func TestDoorbellsLiveWithTheirMailboxes(t *testing.T) {
	count := func() int {
		doorsMu.Lock()
		defer doorsMu.Unlock()
		return len(doors)
	}
	before := count()
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 3, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		m, err := NewMailbox(ctx, pe)
		if err != nil {
			return err
		}
		if _, err := NewMailbox(ctx, pe); err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if n := count() - before; n != 2 {
			t.Errorf("%d table entries for 2 mailboxes of 3 PEs, want 2", n)
		}
		// Every PE's spot is in its mailbox's doorbells.
		for q := range pe.NumPEs() {
			if m.doors.own(q) == nil {
				t.Errorf("PE %d's spot missing", q)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for count() > before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if n := count() - before; n != 0 {
		t.Errorf("%d table entries left after the world ended and its mailboxes were collected", n)
	}
}
