package conformance

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/pgas"
)

// Regression tests of the promises in pgas's "Guarantees" section, each
// from a program that once broke one (issue 34). The randomized test
// (faults.go) looks for the same class of defect in random programs.

// A Put from another PE racing Free never lands in the next allocation
// of the same bytes: Free returns on no member before every member's
// operations on the allocation are over, so the next AllocZeroed's zeroes
// stay.
func (ck *kit) testPutFromPeerRacingFree(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		for round := range 100 {
			broken, err := putRacingFree(ctx, pe, 1-pe.ID(), 512, false)
			if broken != nil {
				return fmt.Errorf("round %d: %w", round, broken)
			}
			check(err)
		}
		return nil
	})
}

// putRacingFree allocates n zeroed words, lets a goroutine Put into PE
// to's copy until a Put fails while this PE frees them (with badFree, a
// Slice of them: an invalid Free), then allocates n zeroed words again
// and reads this PE's copy. broken is a promise it saw broken (the racing
// Put did not end with ErrBadSym, or landed in the new allocation); err
// is a call that failed on the way.
func putRacingFree(ctx context.Context, pe *pgas.PE, to, n int, badFree bool) (broken, err error) {
	old, err := pgas.AllocZeroed[int64](ctx, pe, n)
	if err != nil {
		return nil, err
	}
	if err := pe.Barrier(ctx); err != nil {
		return nil, err
	}
	ones := make([]int64, n)
	for i := range ones {
		ones[i] = -1
	}
	stop, done := make(chan struct{}), make(chan error, 1)
	go func() {
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if err := pgas.Put(pe, old, ones, to); err != nil {
				done <- err
				return
			}
		}
	}()
	freed := old
	if badFree {
		freed = old.Slice(0, 1)
	}
	if err := pgas.Free(ctx, pe, freed); err != nil {
		close(stop)
		<-done
		return nil, err
	}
	if perr := <-done; !errors.Is(perr, pgas.ErrBadSym) {
		return fmt.Errorf("PE %d: the Put racing Free ended with %v, want ErrBadSym", pe.ID(), perr), nil
	}
	fresh, err := pgas.AllocZeroed[int64](ctx, pe, n)
	if err != nil {
		return nil, err
	}
	if err := pe.Barrier(ctx); err != nil {
		return nil, err
	}
	got := make([]int64, n)
	if err := pgas.Get(pe, got, fresh, pe.ID()); err != nil {
		return nil, err
	}
	for i, v := range got {
		if v != 0 {
			return fmt.Errorf("PE %d: the new allocation (offset %d, the old one's %d) holds %d at %d: a Put racing Free landed in it",
				pe.ID(), fresh.Offset(), old.Offset(), v, i), nil
		}
	}
	return nil, pgas.Free(ctx, pe, fresh)
}

// A collective allocation that one member enters with a context already
// ended fails on every member, and that member's next collective cannot
// disturb a member still finishing the allocation before: every member got
// the same outcome from each call.
func (ck *kit) testAllocCancelledThenNextCall(t *testing.T) {
	ck.oneProcess(t)
	const n = 4
	for round := range 50 {
		var results [n][3]error
		_ = ck.runErr(t, n, func(ctx context.Context, pe *pgas.PE) error {
			me := pe.ID()
			_, results[me][0] = pgas.Alloc[int64](ctx, pe, 8)
			actx := ctx
			if me == 0 {
				c, cancel := context.WithCancel(ctx)
				cancel()
				actx = c
			}
			_, results[me][1] = pgas.Alloc[int64](actx, pe, 8)
			_, results[me][2] = pgas.Alloc[int64](ctx, pe, 8)
			return nil
		})
		for call := range 3 {
			for me := 1; me < n; me++ {
				if (results[me][call] == nil) != (results[0][call] == nil) {
					t.Fatalf("round %d, call %d: PE 0 got %v, PE %d got %v", round, call+1, results[0][call], me, results[me][call])
				}
			}
		}
		if results[0][0] != nil || results[0][1] == nil {
			t.Fatalf("round %d: calls 1 and 2 on PE 0: %v, %v; want success, then failure", round, results[0][0], results[0][1])
		}
	}
}

// A PE that fails in the middle of a loop of collectives gives every other
// member the same error: a *CollectiveError naming it and wrapping its
// *PEError, from whichever synchronisation they were in or entered next.
func (ck *kit) testFailureMidLoopSameError(t *testing.T) {
	ck.oneProcess(t)
	const n, failer, at = 8, 3, 50
	loops := []struct {
		name string
		step func(ctx context.Context, pe *pgas.PE) error
	}{
		{"barrier", func(ctx context.Context, pe *pgas.PE) error { return pe.Barrier(ctx) }},
		{"alloc+free", func(ctx context.Context, pe *pgas.PE) error {
			s, err := pgas.Alloc[int64](ctx, pe, 4)
			if err != nil {
				return err
			}
			return pgas.Free(ctx, pe, s)
		}},
	}
	for _, l := range loops {
		t.Run(l.name, func(t *testing.T) {
			for round := range 20 {
				var errs [n]error
				_ = ck.runErr(t, n, func(ctx context.Context, pe *pgas.PE) error {
					for i := 0; ; i++ {
						if pe.ID() == failer && i == at {
							panic("failing on purpose")
						}
						if err := l.step(ctx, pe); err != nil {
							errs[pe.ID()] = err
							return err
						}
					}
				})
				var first *pgas.CollectiveError
				for me, err := range errs {
					if me == failer {
						continue
					}
					var ce *pgas.CollectiveError
					var pe *pgas.PEError
					if !errors.As(err, &ce) || !errors.As(err, &pe) || pe.PE != failer {
						t.Fatalf("round %d: PE %d got %v; want a *CollectiveError wrapping PE %d's *PEError", round, me, err, failer)
					}
					if first == nil {
						first = ce
					} else if ce.Error() != first.Error() {
						t.Fatalf("round %d: members got different errors:\n%v\n%v", round, first, ce)
					}
				}
			}
		})
	}
}

// An argument invalid on one member only (a destination too short on
// it) fails every member's call, and the team stays usable.
func (ck *kit) testArgumentInvalidOnOneMember(t *testing.T) {
	n := ck.perProcess(3)
	const k = 4
	calls := []struct {
		name string
		// call is the collective with dst cut to dstLen elements.
		call func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], dstLen int) error
		full int // the dst length the call needs
	}{
		{"collect", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			_, err := pgas.Collect(ctx, tm, dst.Slice(0, l), src, k)
			return err
		}, k * n},
		{"fcollect", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			return pgas.FCollect(ctx, tm, dst.Slice(0, l), src, k)
		}, k * n},
		{"broadcast", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			return pgas.Broadcast(ctx, tm, dst.Slice(0, l), src, k, 0)
		}, k},
		{"reduce", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			return pgas.ReduceAll(ctx, tm, pgas.ReduceSum, dst.Slice(0, l), src, k)
		}, k},
		{"alltoall", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			return pgas.AllToAll(ctx, tm, dst.Slice(0, l), src, 1)
		}, n},
		{"alltoalls", func(ctx context.Context, tm *pgas.Team, dst, src pgas.Sym[int64], l int) error {
			return pgas.AllToAlls(ctx, tm, dst.Slice(0, l), src, 2, 1, 1)
		}, 2*n - 1},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
				tm := pe.TeamWorld()
				dst := must(pgas.AllocZeroed[int64](ctx, pe, 4*k*n))
				src := must(pgas.AllocZeroed[int64](ctx, pe, 4*k*n))
				l := c.full
				if pe.ID() == 1 {
					l-- // too short, on this member only
				}
				err := c.call(ctx, tm, dst, src, l)
				if err == nil || !(errors.Is(err, pgas.ErrBadArg) || errors.Is(err, pgas.ErrBadSize)) {
					return fmt.Errorf("%s with dst too short on PE 1: PE %d got %v, want an argument error", c.name, pe.ID(), err)
				}
				if err := c.call(ctx, tm, dst, src, c.full); err != nil {
					return fmt.Errorf("%s with good arguments afterwards: %w", c.name, err)
				}
				return nil
			})
		})
	}
}

// A Recv whose PE never sent to itself, once every other PE has closed its
// sending side, can never get a message: it ends with ErrNoWriters at
// once, whether the closed senders have returned or not.
func (ck *kit) testRecvAfterEverySenderClosed(t *testing.T) {
	ck.oneProcess(t)
	for _, wait := range []string{"returned", "still running"} {
		t.Run(wait, func(t *testing.T) {
			received := make(chan struct{})
			ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
				ch := must(actors.NewChan[int64](ctx, pe))
				check(pe.Barrier(ctx))
				if pe.ID() == 1 {
					check(ch.Close(ctx))
					if wait == "still running" {
						<-received
					}
					return nil
				}
				rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				_, err := ch.Recv(rctx)
				close(received)
				if !errors.Is(err, pgas.ErrNoWriters) {
					return fmt.Errorf("Recv with every other sender closed: %v, want ErrNoWriters", err)
				}
				return nil
			})
		})
	}
}

// Every exported method of every actors and pgas type, kept past the end of
// its world, returns pgas.ErrWorldEnded (or its documented zero answer) and
// never touches the world's memory: on the host backend it is unmapped by
// then.
func (ck *kit) testActorsAfterWorldEnded(t *testing.T) {
	ck.oneProcess(t)
	type kept struct {
		pe   *pgas.PE
		ch   *actors.Chan[int64]
		mb   *actors.Mailbox
		sys  *actors.System
		fut  *actors.Future[int64]
		fut2 *actors.Future[int64]
		lock *pgas.Lock
		team *pgas.Team
		sym  pgas.Sym[int64]
		word pgas.Sym[uint64]
		to   actors.ReplyTo
	}
	var k kept
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[int64](ctx, pe))
		mb := must(actors.NewMailbox(ctx, pe))
		sys := must(actors.NewSystem(ctx, pe))
		lock := must(pgas.NewLock(ctx, pe))
		team := must(pe.TeamWorld().Split(ctx, 0, 1, 2))
		sym := must(pgas.Alloc[int64](ctx, pe, 4))
		word := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		fut := must(actors.NewFuture[int64](sys))
		fut2 := must(actors.NewFuture[int64](sys))
		check(pe.Barrier(ctx))
		if pe.ID() == 0 {
			k = kept{pe, ch, mb, sys, fut, fut2, lock, team, sym, word, fut.ReplyTo()}
		}
		return nil
	})
	ctx := context.Background()
	errs := map[string]error{}
	// A read of unmapped memory is a panic here, not the end of the test
	// binary, so that each method's fault is reported by name.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	survive := func(name string, fn func()) {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%s after the world ended panicked or faulted: %v", name, r)
			}
		}()
		fn()
	}
	call := func(name string, fn func() error) { survive(name, func() { errs[name] = fn() }) }
	call("Chan.Send", func() error { return k.ch.Send(ctx, 1, 1) })
	call("Chan.TrySend", func() error { return k.ch.TrySend(1, 1) })
	call("Chan.Recv", func() error { _, err := k.ch.Recv(ctx); return err })
	call("Chan.RecvFrom", func() error { _, _, err := k.ch.RecvFrom(ctx); return err })
	call("Chan.TryRecv", func() error { _, _, err := k.ch.TryRecv(); return err })
	call("Chan.Close", func() error { return k.ch.Close(ctx) })
	call("Chan.C", func() error {
		for range k.ch.C() {
			return errors.New("C delivered a value")
		}
		return k.ch.Err()
	})
	call("Mailbox.Send", func() error { return k.mb.Send(ctx, 1, []byte("x")) })
	call("Mailbox.TrySend", func() error { return k.mb.TrySend(1, []byte("x")) })
	call("Mailbox.Recv", func() error { _, err := k.mb.Recv(ctx); return err })
	call("Mailbox.TryRecv", func() error { _, _, err := k.mb.TryRecv(); return err })
	call("Mailbox.Close", func() error { return k.mb.Close(ctx) })
	call("NewFuture", func() error { _, err := actors.NewFuture[int64](k.sys); return err })
	call("NewFutureCodec", func() error { _, err := actors.NewFutureCodec(k.sys, must(actors.PlainCodec[int64]())); return err })
	call("Future.Await", func() error { _, err := k.fut.Await(ctx); return err })
	call("Reply", func() error { return actors.Reply(k.sys, k.to, int64(1)) })
	call("Fetch", func() error { return actors.Fetch(k.pe, actors.RefOf(k.pe, k.sym), k.sym) })
	call("PE.Barrier", func() error { return k.pe.Barrier(ctx) })
	call("PE.Sync", func() error { return k.pe.Sync(ctx) })
	call("PE.Quiet", func() error { return k.pe.Quiet() })
	call("PE.Fence", func() error { return k.pe.Fence() })
	call("Park", func() error { return pgas.Park(ctx, k.pe, k.word, nil, func() bool { return false }) })
	call("Team.Barrier", func() error { return k.team.Barrier(ctx) })
	call("Team.Sync", func() error { return k.team.Sync(ctx) })
	call("Team.Split", func() error { _, err := k.team.Split(ctx, 0, 1, 1); return err })
	call("Lock.Lock", func() error { return k.lock.Lock(ctx) })
	call("Lock.TryLock", func() error { _, err := k.lock.TryLock(); return err })
	call("Lock.Unlock", func() error { return k.lock.Unlock() })
	call("Lock.Free", func() error { return k.lock.Free(ctx) })
	call("Put", func() error { return pgas.Put(k.pe, k.sym, []int64{1}, 1) })
	call("Get", func() error { return pgas.Get(k.pe, make([]int64, 1), k.sym, 1) })
	call("Local", func() error { _, err := pgas.Local(k.pe, k.sym); return err })
	call("Ptr", func() error { _, err := pgas.Ptr(k.pe, k.sym, 1); return err })
	call("AtomicFetchAdd", func() error { _, err := pgas.AtomicFetchAdd(k.pe, k.sym, 1, 1); return err })
	call("Free", func() error { return pgas.Free(ctx, k.pe, k.sym) })
	call("Alloc", func() error { _, err := pgas.Alloc[int64](ctx, k.pe, 1); return err })
	for name, err := range errs {
		if !errors.Is(err, pgas.ErrWorldEnded) {
			t.Errorf("%s after the world ended: %v, want pgas.ErrWorldEnded", name, err)
		}
	}
	// Those with no error to return must not fault either.
	for name, fn := range map[string]func(){
		"Future.Abandon":  k.fut2.Abandon,
		"Future.ReplyTo":  func() { _ = k.fut2.ReplyTo() },
		"Mailbox.Stats":   func() { _ = k.mb.Stats() },
		"Mailbox.Device":  func() { _, _ = k.mb.Device() },
		"System.Device":   func() { _ = k.sys.Device() },
		"Team.Destroy":    k.team.Destroy,
		"PE.TeamWorld":    func() { _ = k.pe.TeamWorld().NumPEs() },
		"PE.HostMemory":   func() { _ = k.pe.HostMemory() },
		"World.LocalPEs":  func() { _ = k.pe.World().LocalPEs() },
		"Sym.Valid":       func() { _ = k.sym.Valid() },
		"PE.PEAccessible": func() { _ = k.pe.PEAccessible(1) },
	} {
		survive(name, fn)
	}
}

// A Service kept past its Stop answers every method without touching its
// world: calls fail with ErrStopped, the rest report the stopped state.
func (ck *kit) testServiceAfterStop(t *testing.T) {
	ck.oneProcess(t)
	var dones atomic.Int64
	s := ck.startService(t, 2, &dones)
	ck.stopAll(t, s, &dones)
	ctx := context.Background()
	if _, err := s.Call(ctx, 0, 1); !errors.Is(err, service.ErrStopped) {
		t.Errorf("Call after Stop: %v, want ErrStopped", err)
	}
	if _, err := s.CallAny(ctx, 1); !errors.Is(err, service.ErrStopped) {
		t.Errorf("CallAny after Stop: %v, want ErrStopped", err)
	}
	if err := s.Stop(ctx); err != nil && !errors.Is(err, service.ErrStopped) {
		t.Errorf("a second Stop: %v", err)
	}
	select {
	case <-s.Done():
	default:
		t.Error("Done is open after Stop returned")
	}
	if s.Ready() || s.State() == service.StateReady {
		t.Errorf("after Stop: Ready %v, State %v", s.Ready(), s.State())
	}
	_, _, _ = s.Stats(), s.LocalPEs(), s.NumPEs()
	_ = s.Err()
}

// What a caller of a Service gets wrong stays with the caller: a nil
// context, a zero Service and an absurd QueueDepth are errors before
// anything reaches a PE, and the service goes on serving. Cancelling the
// context given to Start after it returned does not stop the service.
func (ck *kit) testServiceCallerFaults(t *testing.T) {
	ck.oneProcess(t)
	ck.needPEs(t, 2)
	if _, err := service.Start(context.Background(), pgas.Config{Backend: ck.backend(), PEs: 2, HeapSize: testHeap},
		func(ctx context.Context, pe *pgas.PE) (service.Actor[int64, int64], error) { return svcActor{}, nil },
		service.QueueDepth(1<<40)); !errors.Is(err, service.ErrBadArg) {
		t.Errorf("Start with QueueDepth(1<<40): %v, want ErrBadArg", err)
	}
	var zero service.Service[int64, int64]
	zctx, zcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer zcancel()
	if _, err := zero.Call(zctx, 0, 1); !errors.Is(err, service.ErrBadArg) {
		t.Errorf("Call on a zero Service: %v, want ErrBadArg at once", err)
	}
	if err := zero.Stop(zctx); !errors.Is(err, service.ErrBadArg) {
		t.Errorf("Stop of a zero Service: %v, want ErrBadArg", err)
	}
	select {
	case <-zero.Done():
	default:
		t.Error("Done of a zero Service is open")
	}

	var dones atomic.Int64
	startCtx, cancelStart := context.WithCancel(context.Background())
	s, err := service.Start(startCtx, pgas.Config{Backend: ck.backend(), PEs: 2, HeapSize: testHeap},
		func(ctx context.Context, pe *pgas.PE) (service.Actor[int64, int64], error) {
			return svcActor{pe: int64(pe.ID()), dones: &dones}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	cancelStart() // not a stop
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	//lint:ignore SA1012 a nil context on purpose: the caller's mistake under test
	if _, err := s.Call(nil, 0, 1); !errors.Is(err, service.ErrBadArg) {
		t.Errorf("Call with a nil context: %v, want ErrBadArg", err)
	}
	//lint:ignore SA1012 as above
	if _, err := s.CallAny(nil, 1); !errors.Is(err, service.ErrBadArg) {
		t.Errorf("CallAny with a nil context: %v, want ErrBadArg", err)
	}
	if got, err := s.Call(ctx, 1, 4); err != nil || got != 41 {
		t.Errorf("a call after the caller faults and Start's context ended: %v, %v; want 41", got, err)
	}
	if st := s.Stats(); st.Restarts != 0 || s.State() != service.StateReady {
		t.Errorf("after the caller faults: %d restarts, %v; want none, Ready", st.Restarts, s.State())
	}
	ck.stopAll(t, s, &dones)
}

// A PE's panic reaches the others as one line of text: its stack is for
// whoever asks for it ((*pgas.PEError).Stack), not in every error message
// and every HTTP body that quotes one.
func (ck *kit) testPanicErrorIsOneLine(t *testing.T) {
	ck.oneProcess(t)
	joined := errors.Join(errors.New("first"), errors.New("second"))
	for _, tc := range []struct {
		name  string
		value any
		text  string // in the one-line text
	}{
		{"a string", "on purpose", "panic: on purpose"},
		{"lines", "first line\nsecond line", `panic: first line\nsecond line`},
		{"an errors.Join", joined, `panic: first\nsecond`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ck.runErr(t, 2, func(ctx context.Context, pe *pgas.PE) error {
				if pe.ID() == 1 {
					panic(tc.value)
				}
				_ = pe.Barrier(ctx) // fails, naming PE 1
				return nil
			})
			var pe *pgas.PEError
			if !errors.As(err, &pe) || pe.PE != 1 {
				t.Fatalf("Run: %v, want PE 1's *PEError", err)
			}
			for _, msg := range []string{pe.Error(), err.Error()} {
				if strings.ContainsAny(msg, "\n\r") || !strings.Contains(msg, tc.text) {
					t.Errorf("the failure's text is %q; want one line holding %q", msg, tc.text)
				}
			}
			if !strings.Contains(string(pe.Stack()), "goroutine") {
				t.Errorf("(*PEError).Stack() = %q; want the panicking goroutine's stack", pe.Stack())
			}
			var pp *pgas.PanicError
			if !errors.As(err, &pp) || pp.Value != tc.value {
				t.Errorf("no *pgas.PanicError with the panic's value in %v", err)
			}
		})
	}
}
