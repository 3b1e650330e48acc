package actors

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// The process's table of doorbells holds an entry per live host mailbox
// or System (one for all its PEs) and drops it once they are collected: a
// service that restarts its world does not grow it.
func TestDoorbellsLiveWithTheirOwners(t *testing.T) {
	var world *pgas.World
	entries := func() (n int) {
		doorsMu.Lock()
		defer doorsMu.Unlock()
		for k := range doors {
			if k.w == world {
				n++
			}
		}
		return n
	}
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 3, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		if pe.ID() == 0 {
			world = pe.World()
		}
		m, err := NewMailbox(ctx, pe)
		if err != nil {
			return err
		}
		if _, err := NewMailbox(ctx, pe); err != nil {
			return err
		}
		if _, err := NewSystem(ctx, pe); err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if n := entries(); n != 3 {
			t.Errorf("%d table entries for 2 mailboxes and a System of 3 PEs, want 3", n)
		}
		if first, again := m.doors.spot(pe.ID(), 0), m.doors.spot(pe.ID(), 0); first != again {
			t.Error("a PE's spot made twice")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for entries() > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if n := entries(); n != 0 {
		t.Errorf("%d table entries left after the world ended and its mailboxes were collected", n)
	}
}
