package conformance

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

// When one PE fails, the blocking calls of the others return an error that
// names it, promptly, and Run reports the failure.
func (ck *kit) testPEFailurePropagates(t *testing.T) {
	n, failing := 4, 2
	if p := ck.procs(); p > 1 { // one PE per process: the failure crosses processes
		n, failing = p, p-1
	}
	ways := map[string]func() error{
		"error": func() error { return errors.New("boom") },
		"panic": func() error { panic("boom") },
	}
	blockers := map[string]func(ctx context.Context, pe *pgas.PE, w pgas.Sym[uint64]) error{
		"wait": func(ctx context.Context, pe *pgas.PE, w pgas.Sym[uint64]) error {
			return signals.WaitUntil(ctx, pe, w, pgas.CmpEQ, 1)
		},
		"wait some": func(ctx context.Context, pe *pgas.PE, w pgas.Sym[uint64]) error {
			_, err := signals.WaitUntilSome(ctx, pe, w, make([]int, w.Len()), nil, pgas.CmpEQ, 1)
			return err
		},
		"barrier": func(ctx context.Context, pe *pgas.PE, _ pgas.Sym[uint64]) error { return pe.Barrier(ctx) },
		"alloc": func(ctx context.Context, pe *pgas.PE, _ pgas.Sym[uint64]) error {
			_, err := pgas.Alloc[byte](ctx, pe, 8)
			return err
		},
		"reduce": func(ctx context.Context, pe *pgas.PE, w pgas.Sym[uint64]) error {
			return pgas.ReduceAll(ctx, pe.TeamWorld(), pgas.ReduceSum, w, w, 1)
		},
		// On a GPU the stream itself waits (the wait kernel, a device
		// collective): the failure must end that wait too, or the world's
		// end, and every later world of the process, would wait for it.
		"stream wait": func(ctx context.Context, pe *pgas.PE, w pgas.Sym[uint64]) error {
			return onStream(ctx, pe, func(st *pgas.Stream) error { return pgas.SignalWaitUntilOnStream(st, w, pgas.CmpEQ, 1) })
		},
		"stream barrier": func(ctx context.Context, pe *pgas.PE, _ pgas.Sym[uint64]) error {
			return onStream(ctx, pe, func(st *pgas.Stream) error { return pgas.BarrierOnStream(st, pe.TeamWorld()) })
		},
	}
	for wname, fail := range ways {
		for bname, block := range blockers {
			t.Run(wname+"/"+bname, func(t *testing.T) {
				before := runtime.NumGoroutine()
				delay := make([]time.Duration, n)
				wrong := make([]error, n) // what a blocked call returned, if not the failure
				err := ck.runErr(t, n, func(ctx context.Context, pe *pgas.PE) error {
					w := must(pgas.AllocZeroed[uint64](ctx, pe, 4))
					check(pe.Barrier(ctx))
					if pe.ID() == failing {
						time.Sleep(20 * time.Millisecond) // let the others block first
						return fail()
					}
					// Independent of ctx: the runtime itself must end the wait.
					start := time.Now()
					err := block(context.Background(), pe, w)
					delay[pe.ID()] = time.Since(start) - 20*time.Millisecond
					var pf *pgas.PEError
					if !errors.As(err, &pf) || pf.PE != failing || !strings.Contains(err.Error(), "boom") {
						wrong[pe.ID()] = err
					}
					return err
				})
				var pf *pgas.PEError
				if !errors.As(err, &pf) {
					t.Fatalf("Run returned %v, want a *PEError", err)
				}
				if !strings.Contains(err.Error(), "boom") {
					t.Errorf("Run's error does not carry the cause: %v", err)
				}
				for i, e := range wrong {
					if e != nil {
						t.Errorf("PE %d's blocked call returned %v, want an error naming PE %d and its cause", i, e, failing)
					}
				}
				for i, d := range delay {
					if i != failing && d > 100*time.Millisecond {
						t.Errorf("PE %d noticed the failure after %v (> 100ms)", i, d)
					}
				}
				testhelp.NoGoroutineLeak(t, before)
			})
		}
	}
}

// onStream enqueues with enqueue on a new stream of pe, then syncs it
// with ctx and closes it.
func onStream(ctx context.Context, pe *pgas.PE, enqueue func(st *pgas.Stream) error) error {
	st, err := pgas.NewStream(pe)
	if err != nil {
		return err
	}
	if err = enqueue(st); err == nil {
		err = st.Sync(ctx)
	}
	return errors.Join(err, st.Close(context.Background()))
}

// A world whose streams waited for a PE that failed (testPEFailurePropagates)
// leaves the GPUs usable: the next world's streams wait, signal and meet
// in a device barrier as asked.
func (ck *kit) testStreamsAfterFailedWorld(t *testing.T) {
	ck.needPEs(t, 2)
	n := 2
	if p := ck.procs(); p > 1 {
		n = p
	}
	err := ck.runErr(t, n, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		check(pe.Barrier(ctx))
		if pe.ID() == 1 {
			time.Sleep(20 * time.Millisecond)
			return errors.New("boom")
		}
		if pe.ID() == 0 {
			return onStream(context.Background(), pe, func(st *pgas.Stream) error { return pgas.SignalWaitUntilOnStream(st, w, pgas.CmpEQ, 1) })
		}
		return onStream(context.Background(), pe, func(st *pgas.Stream) error { return pgas.BarrierOnStream(st, pe.TeamWorld()) })
	})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("the failing world's Run = %v, want PE 1's error", err)
	}
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		check(pe.Barrier(ctx))
		st := must(pgas.NewStream(pe))
		defer st.Close(context.Background())
		next := (pe.ID() + 1) % pe.NumPEs()
		check(pgas.SignalOpOnStream(st, w, 1, pgas.SignalAdd, next))
		check(pgas.SignalWaitUntilOnStream(st, w, pgas.CmpEQ, 1))
		check(pgas.BarrierOnStream(st, pe.TeamWorld()))
		return st.Sync(ctx)
	})
}

func (ck *kit) testNoGoroutineOutlivesRun(t *testing.T) {
	before := runtime.NumGoroutine()
	ck.run(t, 16, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		check(pgas.SignalOp(pe, w, 1, pgas.SignalAdd, 0))
		if pe.ID() == 0 {
			_, err := pgas.SignalWaitUntil(ctx, pe, w, pgas.CmpEQ, 16)
			return err
		}
		return nil
	})
	testhelp.NoGoroutineLeak(t, before)
}

func (ck *kit) testRunContextCancelled(t *testing.T) {
	ck.oneProcess(t)
	ck.needPEs(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	err := pgas.Run(ctx, pgas.Config{Backend: ck.backend(), PEs: 2, HeapSize: testHeap}, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		if pe.ID() == 0 {
			// Cancel once the PEs wait (a GPU backend takes longer to start
			// than a fixed delay).
			time.AfterFunc(20*time.Millisecond, cancel)
		}
		return signals.WaitUntil(ctx, pe, w, pgas.CmpEQ, 1) // never set
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

// A PE kept past the end of its world fails cleanly.
func (ck *kit) testUseAfterWorldEnded(t *testing.T) {
	var kept *pgas.PE
	var sym pgas.Sym[int64]
	ck.run(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		kept, sym = pe, must(pgas.Alloc[int64](ctx, pe, 1))
		return nil
	})
	ctx := context.Background()
	for name, err := range map[string]error{
		"put":     pgas.P(kept, sym, 1, 0),
		"atomic":  pgas.AtomicInc(kept, sym, 0),
		"barrier": kept.Barrier(ctx),
		"quiet":   kept.Quiet(),
		"alloc":   func() error { _, err := pgas.Alloc[int64](ctx, kept, 1); return err }(),
	} {
		if !errors.Is(err, pgas.ErrWorldEnded) {
			t.Errorf("%s after the world ended: %v", name, err)
		}
	}
}

// PE.Go goroutines end with their PE, and Run waits for them.
func (ck *kit) testPEGoEndsWithPE(t *testing.T) {
	before := runtime.NumGoroutine()
	var ran, ended [4]bool // ran: this process's PEs (one each under a launcher)
	ck.run(t, 4, func(ctx context.Context, pe *pgas.PE) error {
		ran[pe.ID()] = true
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		pe.Go(func(ctx context.Context) {
			err := signals.WaitUntil(ctx, pe, w, pgas.CmpEQ, 1) // never set
			ended[pe.ID()] = errors.Is(err, context.Canceled)
		})
		return pe.Barrier(ctx)
	})
	for i, e := range ended {
		if ran[i] && !e {
			t.Errorf("PE %d's helper did not end with a cancelled wait before Run returned", i)
		}
	}
	testhelp.NoGoroutineLeak(t, before)
}

// A panic in a PE.Go goroutine, such as a user codec's Decode panicking
// inside Chan.C's receive loop, fails that PE as a panic in its function
// does, instead of killing the process.
func (ck *kit) testPanicInPEGoFailsThePE(t *testing.T) {
	ck.oneProcess(t)
	err := ck.runErr(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChanCodec[int64](ctx, pe, panicCodec{}))
		check(pe.Barrier(ctx))
		if pe.ID() == 1 {
			return ch.Send(ctx, 0, 1)
		}
		for range ch.C() {
		}
		<-ctx.Done() // the failure cancels the PE's context
		return nil
	})
	var pf *pgas.PEError
	if !errors.As(err, &pf) || pf.PE != 0 || !strings.Contains(err.Error(), "decode exploded") {
		t.Fatalf("Run returned %v, want PE 0's failure with the panic's value", err)
	}
}

type panicCodec struct{}

func (panicCodec) Append(b []byte, v int64) ([]byte, error) { return append(b, byte(v)), nil }
func (panicCodec) Decode([]byte) (int64, error)             { panic("decode exploded") }

// PE.Fail from a helper goroutine fails the PE as its function's error
// would: the others' blocking calls end with a *PEError naming it and
// wrapping the error, and Run reports it.
func (ck *kit) testPEFailFromHelper(t *testing.T) {
	ck.oneProcess(t)
	boom := errors.New("helper saw its GPU fail")
	err := ck.runErr(t, 3, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		check(pe.Barrier(ctx))
		if pe.ID() == 1 {
			pe.Go(func(context.Context) {
				time.Sleep(10 * time.Millisecond)
				pe.Fail(boom)
				pe.Fail(errors.New("a second call changes nothing"))
			})
			<-ctx.Done() // the PE's function returns once its context ends
			return nil
		}
		err := signals.WaitUntil(context.Background(), pe, w, pgas.CmpEQ, 1)
		var pf *pgas.PEError
		if !errors.As(err, &pf) || pf.PE != 1 || !errors.Is(err, boom) {
			return errors.New("blocked wait ended with " + errString(err))
		}
		return nil
	})
	var pf *pgas.PEError
	if !errors.As(err, &pf) || pf.PE != 1 || !errors.Is(err, boom) || strings.Contains(err.Error(), "second call") {
		t.Fatalf("Run: %v", err)
	}
	if strings.Contains(err.Error(), "PE 0 failed") || strings.Contains(err.Error(), "PE 2 failed") {
		t.Fatalf("the waiting PEs failed too: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
