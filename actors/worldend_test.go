package actors_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

// Methods of kept handles in flight on other goroutines while the world
// ends (and after) complete or return an error wrapping ErrWorldEnded (or
// another documented answer: a full inbox, a closed one, a wait whose
// writers all returned, a reply whose future is over), and never fault
// or panic: the host backend keeps the partitions mapped, their pages
// released, while anything can still reach them. Run it with -race.
func TestKeptHandlesRaceTheWorldsEnd(t *testing.T) {
	for round := range 5 {
		t.Run(fmt.Sprint(round), func(t *testing.T) { raceTheEnd(t) })
	}
}

func raceTheEnd(t *testing.T) {
	const goroutines = 16
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var calls, ended atomic.Int64
	var mu sync.Mutex
	var wrong []error
	ok := func(err error) {
		calls.Add(1)
		switch {
		case err == nil, errors.Is(err, actors.ErrFull), errors.Is(err, actors.ErrClosed), errors.Is(err, pgas.ErrNoWriters), errors.Is(err, actors.ErrAbandoned):
		case errors.Is(err, pgas.ErrWorldEnded):
			ended.Add(1)
		default:
			mu.Lock()
			wrong = append(wrong, err)
			mu.Unlock()
		}
	}
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		ch, err := actors.NewChan[uint64](ctx, pe)
		if err != nil {
			return err
		}
		mb, err := actors.NewMailbox(ctx, pe)
		if err != nil {
			return err
		}
		sys, err := actors.NewSystem(ctx, pe)
		if err != nil {
			return err
		}
		peer := 1 - pe.ID()
		for g := range goroutines / 2 {
			wg.Add(1)
			go func() { // not PE.Go: these outlive the world on purpose
				defer wg.Done()
				for i := uint64(0); ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					switch (uint64(g) + i) % 6 {
					case 0:
						ok(ch.TrySend(peer, i))
					case 1:
						_, _, err := ch.TryRecv()
						ok(err)
					case 2:
						ok(mb.TrySend(peer, []byte("kept")))
					case 3:
						_, _, err := mb.TryRecv()
						ok(err)
					case 4:
						f, err := actors.NewFuture[uint64](sys)
						ok(err)
						if err == nil {
							ok(actors.Reply(sys, f.ReplyTo(), i))
							cctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
							_, err := f.Await(cctx)
							cancel()
							if !errors.Is(err, context.DeadlineExceeded) {
								ok(err)
							}
						}
					case 5:
						cctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
						err := ch.Send(cctx, peer, i)
						cancel()
						if !errors.Is(err, context.DeadlineExceeded) {
							ok(err)
						}
					}
				}
			}()
		}
		time.Sleep(20 * time.Millisecond) // the goroutines busy, then the world ends under them
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	time.Sleep(20 * time.Millisecond) // and they go on after it
	close(stop)
	wg.Wait()
	if len(wrong) > 0 {
		t.Errorf("%d of %d calls returned an error other than ErrWorldEnded or a documented answer; the first: %v", len(wrong), calls.Load(), wrong[0])
	}
	if ended.Load() == 0 {
		t.Errorf("no call saw the world end (%d calls)", calls.Load())
	}
}
