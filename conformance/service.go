package conformance

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas"
)

// The actor of the service tests answers x with x·10 + its PE; x ==
// svcDone counts a caller's "I am done" (see stopAll), x == svcPanic
// panics.
const (
	svcDone  = -1
	svcPanic = -2
)

type svcActor struct {
	pe    int64
	dones *atomic.Int64
}

func (a svcActor) Serve(ctx context.Context, x int64) (int64, error) {
	switch x {
	case svcDone:
		a.dones.Add(1)
		return 0, nil
	case svcPanic:
		panic("asked to")
	}
	return x*10 + a.pe, nil
}

func (ck *kit) startService(t *testing.T, n int, dones *atomic.Int64, opts ...service.Option) *service.Service[int64, int64] {
	t.Helper()
	ck.needPEs(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := service.Start(ctx, pgas.Config{Backend: ck.backend(), PEs: n, HeapSize: testHeap},
		func(ctx context.Context, pe *pgas.PE) (service.Actor[int64, int64], error) {
			return svcActor{pe: int64(pe.ID()), dones: dones}, nil
		}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stopAll stops a service once no process calls its PEs any more: every
// process tells every PE it is done, and waits until its own PEs have
// heard it from every process (a process's calls to another process's PE
// need that process's world up).
func (ck *kit) stopAll(t *testing.T, s *service.Service[int64, int64], dones *atomic.Int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for pe := range s.NumPEs() {
		if _, err := s.Call(ctx, pe, svcDone); err != nil {
			t.Fatalf("done to PE %d: %v", pe, err)
		}
	}
	want := int64(ck.procs() * len(s.LocalPEs()))
	for dones.Load() < want {
		if ctx.Err() != nil {
			t.Fatalf("%d of %d processes said done", dones.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
	if err := s.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// Many goroutines of each process call every PE of the world (those of
// other processes through this process's PE and the world's mailboxes)
// and each gets its own answer.
func (ck *kit) testServiceCalls(t *testing.T) {
	n := 2
	if ck.procs() > 1 {
		n = ck.procs()
	}
	ck.needPEs(t, n)
	var dones atomic.Int64
	s := ck.startService(t, n, &dones)
	if s.NumPEs() != n || s.State() != service.StateReady {
		t.Fatalf("%d PEs, %v", s.NumPEs(), s.State())
	}
	var wg sync.WaitGroup
	errs := make(chan error, 256)
	for g := range 256 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			for i := range 8 {
				pe := (g + i) % n
				x := int64(g*100 + i)
				y, err := s.Call(ctx, pe, x)
				if err == nil && y != x*10+int64(pe) {
					err = fmt.Errorf("PE %d answered %d to %d", pe, y, x)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A process counts the answers it got from other processes' PEs, and
	// the calls its own PEs answered, from every process (those of the
	// others may still be under way, or done: stopAll's calls).
	perPE := uint64(256 * 8 / n)
	for _, p := range s.Stats().PEs {
		if !p.Local && p.Calls != perPE || p.Local && (p.Calls < perPE || p.Calls > (perPE+1)*uint64(ck.procs())) {
			t.Errorf("PE %d (local %v): %d calls counted, want %d from this process and %d processes", p.PE, p.Local, p.Calls, perPE, ck.procs())
		}
	}
	ck.stopAll(t, s, &dones)
}

// A PE that panics fails the calls pending on the world with its
// *pgas.PEError; the world restarts and serves again.
func (ck *kit) testServiceRestart(t *testing.T) {
	ck.oneProcess(t)
	ck.needPEs(t, 2)
	var dones atomic.Int64
	s := ck.startService(t, 2, &dones, service.Restart(service.RestartPolicy{MaxRestarts: 2, Window: time.Minute, Backoff: time.Millisecond}))
	defer s.Stop(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, err := s.Call(ctx, 1, svcPanic)
	var pe *pgas.PEError
	if !errors.Is(err, service.ErrPEFailed) || !errors.As(err, &pe) || pe.PE != 1 {
		t.Fatalf("the failing call: %v", err)
	}
	if y, err := s.Call(ctx, 0, 7); err != nil || y != 70 {
		t.Fatalf("after the restart: %d, %v", y, err)
	}
	if st := s.Stats(); st.Restarts != 1 || st.PEs[1].Failures != 1 {
		t.Errorf("stats %+v", st)
	}
}

// Services started and stopped one after the other leave no goroutine
// behind.
func (ck *kit) testServiceCycles(t *testing.T) {
	ck.oneProcess(t)
	ck.needPEs(t, 2)
	cycle := func() {
		var dones atomic.Int64
		s := ck.startService(t, 2, &dones)
		if y, err := s.Call(context.Background(), 1, 3); err != nil || y != 31 {
			t.Fatalf("%d, %v", y, err)
		}
		ck.stopAll(t, s, &dones)
	}
	cycle()
	before := runtime.NumGoroutine()
	for range 10 {
		cycle()
	}
	testhelp.NoGoroutineLeak(t, before)
}
