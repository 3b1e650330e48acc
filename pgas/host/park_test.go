package host

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas/driver"
)

// waitWord is a blocking wait for the uint64 word at off to equal v.
func waitWord(off int64, v uint64) driver.WaitRequest {
	return driver.WaitRequest{Mode: driver.WaitAll, Kind: driver.KindUint64, Off: off, N: 1, Cmp: driver.CmpEQ, Value: v}
}

// A parked wait ends when a write satisfies it, when its context ends and
// when its abort channel closes, whether it parked on the hand-off path
// (the only waiter) or on the list (a second waiter on the partition),
// spinning first or not. Every case
// runs two waits at once on one partition, so both paths are taken.
func TestParkedWaitEnds(t *testing.T) {
	type ending struct {
		name string
		end  func(tr *hostTransport, cancel context.CancelFunc, abort chan struct{})
		want error // nil: the write satisfied the wait
	}
	endings := []ending{
		{"write", func(tr *hostTransport, _ context.CancelFunc, _ chan struct{}) {
			for _, off := range []int64{0, 64} {
				_ = tr.PutSignal(0, 0, off, nil, off, 7, driver.SignalSet, false)
			}
		}, nil},
		{"cancel", func(_ *hostTransport, cancel context.CancelFunc, _ chan struct{}) { cancel() }, context.Canceled},
		{"abort", func(_ *hostTransport, _ context.CancelFunc, abort chan struct{}) { close(abort) }, errAborted},
	}
	for _, park := range []bool{false, true} {
		for _, e := range endings {
			name := e.name + "/spin"
			if park {
				name = e.name + "/park"
			}
			t.Run(name, func(t *testing.T) {
				before := runtime.NumGoroutine()
				tr, err := Backend{}.Open(context.Background(), driver.Config{PEs: 1, HeapSize: 4096, Park: park})
				if err != nil {
					t.Fatal(err)
				}
				h := tr.(*hostTransport)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				abort := make(chan struct{})
				errs := make(chan error, 2)
				for _, off := range []int64{0, 64} {
					go func() {
						_, err := h.Wait(ctx, 0, abort, waitWord(off, 7))
						errs <- err
					}()
				}
				// Both parked: the owner taken, the other listed.
				testhelp.WaitFor(t, "two parked waits", func() bool {
					p := &h.parks[0]
					return p.owner.busy.Load() && p.waiters.Load() == 1
				})
				e.end(h, cancel, abort)
				for range 2 {
					select {
					case err := <-errs:
						if !errors.Is(err, e.want) {
							t.Errorf("wait ended with %v, want %v", err, e.want)
						}
					case <-time.After(10 * time.Second):
						t.Fatal("a parked wait did not end")
					}
				}
				if err := tr.Close(); err != nil {
					t.Fatal(err)
				}
				testhelp.NoGoroutineLeak(t, before) // the hand-off's watches ended
			})
		}
	}
}

// The hand-off path keeps its context's AfterFunc across waits: a context
// that ends after its wait returned wakes a later wait with another
// context at most spuriously, which then parks on until its own word is
// written.
func TestHandoffStaleContext(t *testing.T) {
	tr, err := Backend{}.Open(context.Background(), driver.Config{PEs: 1, HeapSize: 4096, Park: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	h := tr.(*hostTransport)
	abort := make(chan struct{})
	old, cancelOld := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.Wait(old, 0, abort, waitWord(0, 1))
		done <- err
	}()
	testhelp.WaitFor(t, "the first wait parked", h.parks[0].owner.Armed)
	_ = h.PutSignal(0, 0, 0, nil, 0, 1, driver.SignalSet, false)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	go func() {
		_, err := h.Wait(context.Background(), 0, abort, waitWord(0, 2))
		done <- err
	}()
	testhelp.WaitFor(t, "the second wait parked", h.parks[0].owner.Armed)
	cancelOld() // the first wait's context: not this wait's end
	select {
	case err := <-done:
		t.Fatalf("the wait ended (%v) when an earlier wait's context did", err)
	case <-time.After(50 * time.Millisecond):
	}
	_ = h.PutSignal(0, 0, 0, nil, 0, 2, driver.SignalSet, false)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Many writers and one waiter taking turns through the hand-off path lose
// no wake-up: each of n rounds the waiter waits for its word to reach i,
// and the writer for that, write i+1 only after seeing the waiter's reply.
func TestHandoffPingPong(t *testing.T) {
	for _, park := range []bool{false, true} {
		tr, err := Backend{}.Open(context.Background(), driver.Config{PEs: 2, HeapSize: 4096, Park: park})
		if err != nil {
			t.Fatal(err)
		}
		h := tr.(*hostTransport)
		ctx := context.Background()
		const n = 20000
		errs := make(chan error, 1)
		go func() {
			for i := uint64(1); i <= n; i++ {
				if _, err := h.Wait(ctx, 1, nil, waitWord(0, i)); err != nil {
					errs <- err
					return
				}
				_ = h.PutSignal(1, 0, 0, nil, 0, i, driver.SignalSet, false)
			}
			errs <- nil
		}()
		for i := uint64(1); i <= n; i++ {
			_ = h.PutSignal(0, 1, 0, nil, 0, i, driver.SignalSet, false)
			if _, err := h.Wait(ctx, 0, nil, waitWord(0, i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		tr.Close()
	}
}
