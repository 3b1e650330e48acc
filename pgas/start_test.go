package pgas_test

import (
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/bootstrap"
)

// serve is a PE function of a long-lived world: it allocates, then waits
// for its context, as a service's PEs wait for work.
func serve(ctx context.Context, pe *pgas.PE) error {
	if _, err := pgas.AllocZeroed[uint64](ctx, pe, 64); err != nil {
		return err
	}
	<-ctx.Done()
	return ctx.Err()
}

func TestStartStop(t *testing.T) {
	causes := make(chan error, 4)
	h, err := pgas.Start(context.Background(), pgas.Config{Backend: "host", PEs: 4, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		err := serve(ctx, pe)
		causes <- context.Cause(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := h.World().NumPEs(); n != 4 {
		t.Errorf("NumPEs = %d", n)
	}
	select {
	case <-h.Done():
		t.Fatal("the world ended before Stop")
	case <-time.After(20 * time.Millisecond):
	}
	if h.Err() != nil {
		t.Errorf("Err before the end: %v", h.Err())
	}
	if err := h.Stop(context.Background()); err != nil {
		t.Errorf("Stop: %v, want nil (PEs that return the cancellation do not fail)", err)
	}
	for range 4 {
		if c := <-causes; !errors.Is(c, pgas.ErrStopped) {
			t.Errorf("the PEs' context's cause: %v, want ErrStopped", c)
		}
	}
	select {
	case <-h.Done():
	default:
		t.Error("Done not closed after Stop returned")
	}
	if err := h.Stop(context.Background()); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	// A bad configuration is Start's own error; nothing runs.
	if _, err := pgas.Start(context.Background(), pgas.Config{Backend: "no-such"}, serve); err == nil {
		t.Error("Start with an unknown backend: no error")
	}
	// A world whose PE fails ends by itself with that PE's error, and
	// Stop afterwards reports it too.
	boom := errors.New("boom")
	h, err := pgas.Start(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		if pe.ID() == 1 {
			return boom
		}
		return serve(ctx, pe)
	})
	if err != nil {
		t.Fatal(err)
	}
	<-h.Done()
	if err := h.Err(); !errors.Is(err, boom) || !strings.Contains(err.Error(), "PE 1 failed: boom") {
		t.Errorf("Err = %v, want PE 1's boom", err)
	}
	if err := h.Stop(context.Background()); !errors.Is(err, boom) {
		t.Errorf("Stop after the failure = %v, want PE 1's boom", err)
	}
}

// Start's context bounds the start only; Stop's bounds the wait for the PEs.
func TestStartContexts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	h, err := pgas.Start(ctx, pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		<-ctx.Done()
		<-release // a PE slow to stop
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // the caller's context ends: the world runs on
	select {
	case <-h.Done():
		t.Fatal("the world ended with Start's context")
	case <-time.After(20 * time.Millisecond):
	}
	short, cancelShort := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancelShort()
	if err := h.Stop(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Stop past its deadline: %v", err)
	}
	close(release)
	<-h.Done()
	if err := h.Err(); err != nil {
		t.Errorf("Err after the PEs returned: %v", err)
	}
}

// A process can start and stop worlds one after the other for as long as
// it lives: 100 cycles leave no goroutine and no Go memory behind.
func TestStartStopCycles(t *testing.T) {
	testhelp.NoLeakOverCycles(t, 4<<20, func() {
		h, err := pgas.Start(context.Background(), pgas.Config{Backend: "host", PEs: 4, HeapSize: 1 << 20}, serve)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Stop(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}

// A service holds its world for its own life: it starts it, hands work to
// the PEs while it serves, and stops it on shutdown.
func ExampleStart() {
	work := make(chan int)
	results := make(chan int)
	h, err := pgas.Start(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		for {
			select {
			case x := <-work:
				results <- x * x
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	work <- 12
	fmt.Println(<-results)
	fmt.Println(h.Stop(context.Background()))
	// Output:
	// 144
	// <nil>
}

// A Stop that finds the PEs in a barrier, a collective allocation or a wait
// on each other is a clean stop: what the stop does to those calls is not
// a failure.
func TestStopDuringCollectives(t *testing.T) {
	for range 20 {
		h, err := pgas.Start(context.Background(), pgas.Config{Backend: "host", PEs: 4, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
			for i := 0; ; i++ {
				var err error
				switch i % 3 {
				case 0:
					err = pe.Barrier(ctx)
				case 1:
					var s pgas.Sym[uint64]
					if s, err = pgas.AllocZeroed[uint64](ctx, pe, 8); err == nil {
						err = pgas.Free(ctx, pe, s)
					}
				case 2:
					err = pe.Sync(ctx)
				}
				if err != nil {
					return err
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		if err := h.Stop(context.Background()); err != nil {
			t.Fatalf("Stop during collectives: %v", err)
		}
	}
}

// The PEs' goroutines carry the pprof label "pe": profiles tell them apart.
func TestPELabels(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 3, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		want := fmt.Sprint(pe.ID())
		if v, ok := pprof.Label(ctx, "pe"); !ok || v != want {
			t.Errorf("PE %d's function: label pe = %q, %v", pe.ID(), v, ok)
		}
		done := make(chan struct{})
		pe.Go(func(ctx context.Context) {
			defer close(done)
			if v, ok := pprof.Label(ctx, "pe"); !ok || v != want {
				t.Errorf("PE %d's PE.Go goroutine: label pe = %q, %v", pe.ID(), v, ok)
			}
		})
		<-done
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A process that symrun started as one of several ranks cannot open a
// world of a backend whose PEs all live in one process: each rank would
// run a world of its own. One rank, no launcher, or a world the program
// says is the process's own (Config.ProcessLocal) is fine.
func TestSymrunNeedsAMultiProcessBackend(t *testing.T) {
	fn := func(ctx context.Context, pe *pgas.PE) error { return nil }
	for _, c := range []struct {
		name, rank, size string
		local            bool
		fails            bool
	}{
		{"two ranks", "1", "2", false, true},
		{"two ranks, process-local world", "1", "2", true, false},
		{"one rank", "0", "1", false, false},
		{"no launcher", "", "", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.rank != "" {
				t.Setenv(bootstrap.EnvRank, c.rank)
				t.Setenv(bootstrap.EnvNRanks, c.size)
			}
			err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20, ProcessLocal: c.local}, fn)
			if (err != nil) != c.fails || (c.fails && !strings.Contains(err.Error(), "symrun started this process as rank 1 of 2")) {
				t.Fatalf("Run: %v", err)
			}
		})
	}
}
