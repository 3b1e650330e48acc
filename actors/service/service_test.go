package service

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas"
)

// Both ways a call reaches its PE: straight into a local PE's inbox, and
// through the world's mailbox and a future, as calls to another process's
// PE travel (the nvshmem backend).
var routes = []struct {
	name string
	opts []Option
}{
	{"direct", nil},
	{"forwarded", []Option{forwardAll()}},
}

type req struct{ X, Sleep int64 }

type resp struct {
	Y  int64
	PE int32
}

// echo answers req{X} with resp{2X, pe}, after sleeping req.Sleep ns (or
// until ctx ends). X < 0 is an error; X == panicX panics; X == fatalX is
// a Fatal error.
const (
	panicX = -1000
	fatalX = -2000
)

func echo(ctx context.Context, pe *pgas.PE) (Actor[req, resp], error) {
	return ActorFunc[req, resp](func(ctx context.Context, r req) (resp, error) {
		if r.Sleep > 0 {
			select {
			case <-time.After(time.Duration(r.Sleep)):
			case <-ctx.Done():
				return resp{}, ctx.Err()
			}
		}
		switch {
		case r.X == panicX:
			panic("asked to")
		case r.X == fatalX:
			return resp{}, Fatal(errors.New("the GPU is gone"))
		case r.X < 0:
			return resp{}, fmt.Errorf("negative X %d", r.X)
		}
		return resp{Y: 2 * r.X, PE: int32(pe.ID())}, nil
	}), nil
}

func hostCfg(n int) pgas.Config { return pgas.Config{Backend: "host", PEs: n, HeapSize: 4 << 20} }

func start(t *testing.T, n int, opts ...Option) *Service[req, resp] {
	t.Helper()
	return startWith(t, n, echo, opts...)
}

// startWith is start with the actors newActor makes.
func startWith(t *testing.T, n int, newActor func(context.Context, *pgas.PE) (Actor[req, resp], error), opts ...Option) *Service[req, resp] {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, hostCfg(n), newActor, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	return s
}

func TestCallEveryPE(t *testing.T) {
	for _, rt := range routes {
		t.Run(rt.name, func(t *testing.T) {
			s := start(t, 4, rt.opts...)
			ctx := context.Background()
			if n := s.NumPEs(); n != 4 {
				t.Fatalf("NumPEs %d", n)
			}
			for pe := range 4 {
				r, err := s.Call(ctx, pe, req{X: int64(10 + pe)})
				if err != nil || r.Y != int64(20+2*pe) || r.PE != int32(pe) {
					t.Errorf("Call(PE %d) = %+v, %v", pe, r, err)
				}
			}
			if _, err := s.Call(ctx, 1, req{X: -5}); err == nil || !strings.Contains(err.Error(), "negative X -5") {
				t.Errorf("an actor's error: %v", err)
			}
			for _, pe := range []int{-1, 4} {
				if _, err := s.Call(ctx, pe, req{}); !errors.Is(err, ErrBadPE) {
					t.Errorf("Call(PE %d): %v, want ErrBadPE", pe, err)
				}
			}
			st := s.Stats()
			if st.State != StateReady || st.Generation != 1 || len(st.PEs) != 4 {
				t.Fatalf("stats %+v", st)
			}
			if p := st.PEs[1]; p.Calls != 2 || p.Errors != 1 || p.InFlight != 0 || !p.Local {
				t.Errorf("PE 1's stats %+v", p)
			}
			if rt.name == "forwarded" {
				if m := st.PEs[0].Messages; m.Sent != 5 {
					t.Errorf("the gateway sent %d requests, want 5", m.Sent)
				}
				if m := st.PEs[1].Messages; m.Received != 2 {
					t.Errorf("PE 1 received %d requests, want 2", m.Received)
				}
			}
		})
	}
}

// Thousands of goroutines call at once, each getting its own answer.
func TestConcurrentCallers(t *testing.T) {
	for _, rt := range routes {
		t.Run(rt.name, func(t *testing.T) {
			s := start(t, 4, rt.opts...)
			const callers = 2000
			var wg sync.WaitGroup
			var bad atomic.Int64
			for i := range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					var r resp
					var err error
					if i%2 == 0 {
						r, err = s.CallAny(ctx, req{X: int64(i)})
					} else {
						r, err = s.Call(ctx, i%4, req{X: int64(i)})
					}
					if err != nil || r.Y != int64(2*i) || (i%2 == 1 && r.PE != int32(i%4)) {
						bad.Add(1)
						t.Errorf("call %d: %+v, %v", i, r, err)
					}
				}()
			}
			wg.Wait()
			var calls uint64
			for _, p := range s.Stats().PEs {
				calls += p.Calls
			}
			if calls != callers || bad.Load() != 0 {
				t.Errorf("%d calls counted, %d bad, of %d", calls, bad.Load(), callers)
			}
		})
	}
}

// A deadline ends the call at once and reaches the actor, whose work is
// cancelled; nothing is left behind once the service stops.
func TestDeadlineCancelsTheWork(t *testing.T) {
	for _, rt := range routes {
		t.Run(rt.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			s, err := Start(context.Background(), hostCfg(2), echo, append([]Option{Forwarders(8)}, rt.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			// More than Forwarders(8) of them: a reply slot kept by a call
			// that gave up would show as calls that cannot start.
			for range 20 {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
				t0 := time.Now()
				_, err := s.Call(ctx, 1, req{X: 1, Sleep: int64(time.Hour)})
				cancel()
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("a call past its deadline: %v", err)
				}
				if d := time.Since(t0); d > 5*time.Second {
					t.Fatalf("the call took %v", d)
				}
			}
			// The actor was freed each time: a quick call is answered.
			if r, err := s.Call(context.Background(), 1, req{X: 3}); err != nil || r.Y != 6 {
				t.Fatalf("after the deadlines: %+v, %v", r, err)
			}
			if err := s.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
			testhelp.NoGoroutineLeak(t, before)
		})
	}
}

// A saturated PE makes callers wait up to their deadline, then fail with
// ErrOverloaded; the queue never grows past QueueDepth.
func TestOverload(t *testing.T) {
	s := start(t, 1, QueueDepth(2))
	busy := make(chan error, 3)
	for range 3 { // one served, two queued
		go func() {
			_, err := s.Call(context.Background(), 0, req{X: 1, Sleep: int64(300 * time.Millisecond)})
			busy <- err
		}()
	}
	testhelp.WaitFor(t, "two calls queued", func() bool { return s.Stats().PEs[0].Queued >= 2 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err := s.Call(ctx, 0, req{X: 1})
	if !errors.Is(err, ErrOverloaded) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call to a saturated PE: %v", err)
	}
	if q := s.Stats().PEs[0].Queued; q > 2 {
		t.Errorf("%d calls queued with QueueDepth(2)", q)
	}
	for range 3 {
		if err := <-busy; err != nil {
			t.Error(err)
		}
	}
	if r := s.Stats().PEs[0].Rejected; r != 1 {
		t.Errorf("%d rejected calls, want 1", r)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name  string
		start func() error
		want  error
	}{
		{"nil NewActor", func() error { _, err := Start[req, resp](ctx, hostCfg(1), nil); return err }, ErrBadArg},
		{"nil option", func() error { _, err := Start(ctx, hostCfg(1), echo, nil); return err }, ErrBadArg},
		{"QueueDepth(0)", func() error { _, err := Start(ctx, hostCfg(1), echo, QueueDepth(0)); return err }, ErrBadArg},
		{"Forwarders(-1)", func() error { _, err := Start(ctx, hostCfg(1), echo, Forwarders(-1)); return err }, ErrBadArg},
		{"MaxReply(0)", func() error { _, err := Start(ctx, hostCfg(1), echo, MaxReply(0)); return err }, ErrBadArg},
		{"QueueDepth too deep", func() error { _, err := Start(ctx, hostCfg(1), echo, QueueDepth(MaxQueueDepth+1)); return err }, ErrBadArg},
		{"Forwarders too many", func() error { _, err := Start(ctx, hostCfg(1), echo, Forwarders(MaxForwarders+1)); return err }, ErrBadArg},
		{"MaxRequest too large", func() error { _, err := Start(ctx, hostCfg(1), echo, MaxRequest(MaxMessageBytes+1)); return err }, ErrBadArg},
		{"MaxReply too large", func() error { _, err := Start(ctx, hostCfg(1), echo, MaxReply(1<<40)); return err }, ErrBadArg},
		{"StartTimeout(0)", func() error { _, err := Start(ctx, hostCfg(1), echo, StartTimeout(0)); return err }, ErrBadArg},
		{"Logger(nil)", func() error { _, err := Start(ctx, hostCfg(1), echo, Logger(nil)); return err }, ErrBadArg},
		{"negative policy", func() error {
			_, err := Start(ctx, hostCfg(1), echo, Restart(RestartPolicy{MaxRestarts: -1}))
			return err
		}, ErrBadArg},
		{"policy without window", func() error {
			_, err := Start(ctx, hostCfg(1), echo, Restart(RestartPolicy{MaxRestarts: 1}))
			return err
		}, ErrBadArg},
		{"not plain", func() error {
			_, err := Start(ctx, hostCfg(1), func(context.Context, *pgas.PE) (Actor[string, resp], error) { return nil, nil })
			return err
		}, actors.ErrNoCodec},
		{"nil actor", func() error {
			_, err := Start(ctx, hostCfg(1), func(context.Context, *pgas.PE) (Actor[req, resp], error) { return nil, nil })
			return err
		}, ErrBadArg},
		{"NewActor fails", func() error {
			_, err := Start(ctx, hostCfg(2), func(context.Context, *pgas.PE) (Actor[req, resp], error) { return nil, errTest })
			return err
		}, errTest},
		{"unknown backend", func() error { _, err := Start(ctx, pgas.Config{Backend: "nonesuch"}, echo); return err }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.start()
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
}

var errTest = errors.New("test error")

// A queue-wait bound fails a call that has not started within it, fast
// and apart from its deadline, with ErrOverloaded counted as rejected; the
// withdrawn call never reaches the PE. A call's own bound overrides the
// service's. (A call to another process's PE starts when a forwarder
// takes it: the bound covers this process's queue only.)
func TestQueueWait(t *testing.T) {
	for _, r := range routes[:1] {
		t.Run(r.name, func(t *testing.T) {
			var served atomic.Int64
			s := startWith(t, 1, func(ctx context.Context, pe *pgas.PE) (Actor[req, resp], error) {
				a, err := echo(ctx, pe)
				return ActorFunc[req, resp](func(ctx context.Context, q req) (resp, error) {
					served.Add(1)
					return a.Serve(ctx, q)
				}), err
			}, append([]Option{QueueDepth(1), QueueWait(30 * time.Millisecond)}, r.opts...)...)
			busy := make(chan error, 1)
			go func() { // takes the PE for 300 ms
				_, err := s.Call(context.Background(), 0, req{X: 1, Sleep: int64(300 * time.Millisecond)})
				busy <- err
			}()
			testhelp.WaitFor(t, "the PE busy", func() bool { return served.Load() == 1 })
			start := time.Now()
			_, err := s.Call(context.Background(), 0, req{X: 2}) // queued, never started
			if !errors.Is(err, ErrOverloaded) {
				t.Fatalf("a call queued past QueueWait: %v, want ErrOverloaded", err)
			}
			if took := time.Since(start); took > 200*time.Millisecond {
				t.Errorf("the queued call failed after %v, want about 30ms", took)
			}
			ctx := WithQueueWait(context.Background(), time.Millisecond)
			if _, err := s.Call(ctx, 0, req{X: 3}); !errors.Is(err, ErrOverloaded) {
				t.Errorf("a call with its own bound of 1ms: %v, want ErrOverloaded", err)
			}
			if err := <-busy; err != nil {
				t.Fatal(err)
			}
			if n := served.Load(); n != 1 {
				t.Errorf("the PE served %d calls, want 1: withdrawn calls reached it", n)
			}
			if v, err := s.Call(context.Background(), 0, req{X: 4}); err != nil || v.Y != 8 {
				t.Errorf("a call to the idle PE: %v, %v", v, err)
			}
			if rej := s.Stats().PEs[0].Rejected; rej < 2 {
				t.Errorf("%d rejected calls, want at least 2", rej)
			}
		})
	}
}

// TryCall fails at once when the inbox is full, and is a Call otherwise.
func TestTryCall(t *testing.T) {
	s := start(t, 1, QueueDepth(1))
	busy := make(chan error, 2)
	for range 2 { // one served, one queued: the inbox is full
		go func() {
			_, err := s.Call(context.Background(), 0, req{X: 1, Sleep: int64(200 * time.Millisecond)})
			busy <- err
		}()
	}
	testhelp.WaitFor(t, "one call queued", func() bool { return s.Stats().PEs[0].Queued >= 1 })
	start := time.Now()
	if _, err := s.TryCall(context.Background(), 0, req{X: 2}); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("TryCall with the inbox full: %v, want ErrOverloaded", err)
	}
	if took := time.Since(start); took > 50*time.Millisecond {
		t.Errorf("TryCall waited %v", took)
	}
	for range 2 {
		if err := <-busy; err != nil {
			t.Fatal(err)
		}
	}
	if v, err := s.TryCall(context.Background(), 0, req{X: 3}); err != nil || v.Y != 6 {
		t.Errorf("TryCall to an idle PE: %v, %v", v, err)
	}
}
