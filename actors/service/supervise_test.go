package service

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas"
)

// quick restarts for the tests.
var quick = RestartPolicy{MaxRestarts: 5, Window: time.Minute, Backoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond}

// waitState waits until s is in state want.
func waitState[Req, Resp any](t *testing.T, s *Service[Req, Resp], want State) {
	t.Helper()
	testhelp.WaitFor(t, "state "+want.String(), func() bool { return s.State() == want })
}

// A PE that panics or returns a Fatal error fails every pending call at
// once with an error naming it; the world restarts and serves again.
func TestFailureFailsPendingCallsAndRestarts(t *testing.T) {
	for _, rt := range routes {
		for _, how := range []struct {
			name string
			x    int64
			text string
		}{{"panic", panicX, "panic: asked to"}, {"fatal", fatalX, "the GPU is gone"}} {
			t.Run(rt.name+"/"+how.name, func(t *testing.T) {
				s := start(t, 3, append([]Option{Restart(quick)}, rt.opts...)...)
				// Calls pending on PE 2 when PE 1 fails.
				pending := make(chan error, 10)
				for range 10 {
					go func() {
						_, err := s.Call(context.Background(), 2, req{X: 1, Sleep: int64(time.Hour)})
						pending <- err
					}()
				}
				testhelp.WaitFor(t, "10 calls to PE 2", func() bool { return s.Stats().PEs[2].InFlight == 10 })
				_, err := s.Call(context.Background(), 1, req{X: how.x})
				var pe *pgas.PEError
				if !errors.Is(err, ErrPEFailed) || !errors.As(err, &pe) || pe.PE != 1 || !strings.Contains(err.Error(), how.text) {
					t.Fatalf("the failing call: %v", err)
				}
				for range 10 {
					select {
					case err := <-pending:
						if !errors.Is(err, ErrPEFailed) || !errors.As(err, &pe) || pe.PE != 1 {
							t.Errorf("a pending call: %v", err)
						}
					case <-time.After(10 * time.Second):
						t.Fatal("a pending call did not fail fast")
					}
				}
				waitState(t, s, StateReady)
				for p := range 3 {
					if r, err := s.Call(context.Background(), p, req{X: 4}); err != nil || r.Y != 8 {
						t.Errorf("after the restart, PE %d: %+v, %v", p, r, err)
					}
				}
				st := s.Stats()
				if st.Restarts != 1 || st.Generation != 2 || st.PEs[1].Failures != 1 || st.PEs[2].Failures != 0 {
					t.Errorf("stats after one restart: %+v", st)
				}
			})
		}
	}
}

// Calls made while the world restarts wait for it, up to their deadline.
func TestCallsWaitForTheRestart(t *testing.T) {
	p := quick
	p.Backoff, p.MaxBackoff = 300*time.Millisecond, 300*time.Millisecond
	s := start(t, 2, Restart(p))
	if _, err := s.Call(context.Background(), 0, req{X: panicX}); !errors.Is(err, ErrPEFailed) {
		t.Fatal(err)
	}
	waitState(t, s, StateRestarting)
	short, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := s.Call(short, 1, req{X: 1}); !errors.Is(err, ErrRestarting) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call whose deadline passed during the restart: %v", err)
	}
	long, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if r, err := s.Call(long, 1, req{X: 1}); err != nil || r.Y != 2 {
		t.Errorf("a call that waited for the restart: %+v, %v", r, err)
	}
}

// One failure more than the policy allows stops the service, saying why.
func TestRestartPolicyExhausted(t *testing.T) {
	var logs testhelp.Buffer
	s, err := Start(context.Background(), hostCfg(2), echo, Logger(slog.New(slog.NewTextHandler(&logs, nil))),
		Restart(RestartPolicy{MaxRestarts: 1, Window: time.Minute, Backoff: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		waitState(t, s, StateReady)
		if _, err := s.Call(context.Background(), 1, req{X: fatalX}); !errors.Is(err, ErrPEFailed) {
			t.Fatal(err)
		}
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the service did not stop")
	}
	if err := s.Err(); !errors.Is(err, ErrRestartsExhausted) || !strings.Contains(err.Error(), "the GPU is gone") {
		t.Errorf("Err: %v", err)
	}
	if _, err := s.Call(context.Background(), 0, req{X: 1}); !errors.Is(err, ErrStopped) || !errors.Is(err, ErrRestartsExhausted) {
		t.Errorf("a call after the service gave up: %v", err)
	}
	for _, event := range []string{"world started", "PE failed", "restarting world", "restart policy exhausted"} {
		if !strings.Contains(logs.String(), event) {
			t.Errorf("no %q in the log:\n%s", event, logs.String())
		}
	}
}

// Stop answers the calls under way before it stops the world, and refuses
// new ones.
func TestStopDrainsCalls(t *testing.T) {
	for _, rt := range routes {
		t.Run(rt.name, func(t *testing.T) {
			s, err := Start(context.Background(), hostCfg(2), echo, rt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, 20)
			for i := range 20 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := s.Call(context.Background(), i%2, req{X: int64(i), Sleep: int64(20 * time.Millisecond)})
					if err == nil && r.Y != int64(2*i) {
						err = errors.New("wrong answer")
					}
					errs <- err
				}()
			}
			testhelp.WaitFor(t, "20 calls under way", func() bool {
				st := s.Stats()
				return st.PEs[0].InFlight+st.PEs[1].InFlight == 20
			})
			if err := s.Stop(context.Background()); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("a call under way at Stop: %v", err)
				}
			}
			if _, err := s.Call(context.Background(), 0, req{}); !errors.Is(err, ErrStopped) {
				t.Errorf("a call after Stop: %v", err)
			}
			if s.State() != StateStopped || s.Ready() {
				t.Errorf("state after Stop: %v", s.State())
			}
			if err := s.Stop(context.Background()); err != nil {
				t.Errorf("a second Stop: %v", err)
			}
		})
	}
}

// Stop with a context that ends first stops the world at once: the calls
// under way fail, none hangs.
func TestStopDeadline(t *testing.T) {
	s, err := Start(context.Background(), hostCfg(2), echo)
	if err != nil {
		t.Fatal(err)
	}
	pending := make(chan error, 4)
	for range 4 {
		go func() {
			_, err := s.Call(context.Background(), 1, req{X: 1, Sleep: int64(time.Hour)})
			pending <- err
		}()
	}
	testhelp.WaitFor(t, "4 calls to PE 1", func() bool { return s.Stats().PEs[1].InFlight == 4 })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_ = s.Stop(ctx)
	for range 4 {
		select {
		case err := <-pending:
			if err == nil {
				t.Error("a call cut by Stop succeeded")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a call hangs after Stop")
		}
	}
	<-s.Done()
}

// A process starts and stops services one after the other: nothing is
// left behind.
func TestStartStopCycles(t *testing.T) {
	testhelp.NoLeakOverCycles(t, 8<<20, func() {
		s, err := Start(context.Background(), hostCfg(2), echo)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := s.Call(context.Background(), 1, req{X: 2}); err != nil || r.Y != 4 {
			t.Fatalf("%+v, %v", r, err)
		}
		if err := s.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

func TestRestartPolicyAdmit(t *testing.T) {
	t0 := time.Unix(1000, 0)
	p := RestartPolicy{MaxRestarts: 3, Window: time.Minute, Backoff: time.Second, MaxBackoff: 3 * time.Second}
	cases := []struct {
		name  string
		p     RestartPolicy
		past  []time.Time
		ok    bool
		wait  time.Duration
		count int
	}{
		{"first", p, nil, true, time.Second, 1},
		{"second doubles", p, []time.Time{t0.Add(-time.Second)}, true, 2 * time.Second, 2},
		{"third capped", p, []time.Time{t0.Add(-2 * time.Second), t0.Add(-time.Second)}, true, 3 * time.Second, 3},
		{"fourth refused", p, []time.Time{t0.Add(-3 * time.Second), t0.Add(-2 * time.Second), t0.Add(-time.Second)}, false, 0, 3},
		{"old ones forgotten", p, []time.Time{t0.Add(-2 * time.Minute), t0.Add(-90 * time.Second), t0.Add(-time.Second)}, true, 2 * time.Second, 2},
		{"never", RestartPolicy{}, nil, false, 0, 0},
		{"no MaxBackoff", RestartPolicy{MaxRestarts: 5, Window: time.Minute, Backoff: time.Second}, []time.Time{t0}, true, time.Second, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recent, wait, ok := c.p.admit(c.past, t0)
			if ok != c.ok || wait != c.wait || len(recent) != c.count {
				t.Errorf("admit = %d restarts, %v, %v; want %d, %v, %v", len(recent), wait, ok, c.count, c.wait, c.ok)
			}
		})
	}
}
