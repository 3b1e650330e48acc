package pgas

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/host"
)

// procsBackend opens a host transport that runs only PE 0 here and plays
// the other processes' part of driver.FailureNotifier: it reports PE 1 failed
// when inject is closed, and records NotifyFailure.
type procsBackend struct{}

var procsTest struct {
	mu       sync.Mutex
	inject   chan struct{}
	notified []int
}

type procsTransport struct{ driver.Transport }

func (procsBackend) Open(ctx context.Context, cfg driver.Config) (driver.Transport, error) {
	tr, err := host.Backend{}.Open(ctx, cfg)
	return procsTransport{tr}, err
}

func (procsTransport) LocalPEs() []int { return []int{0} }

func (procsTransport) NotifyFailure(pe int, err error) {
	procsTest.mu.Lock()
	defer procsTest.mu.Unlock()
	procsTest.notified = append(procsTest.notified, pe)
}

func (procsTransport) WatchFailures(ctx context.Context, failed func(pe int, msg string)) {
	select {
	case <-procsTest.inject:
		failed(1, "boom")
		<-ctx.Done()
	case <-ctx.Done():
	}
}

func init() { Register("test-procs", procsBackend{}) }

// A PE of another process that fails ends this process's blocking calls
// with an error naming it and carrying its message; a local PE's failure
// is told to the others (as the failure it came from); the watcher ends
// with the run.
func TestFailureAcrossProcesses(t *testing.T) {
	before := runtime.NumGoroutine()
	procsTest.inject = make(chan struct{})
	procsTest.notified = nil
	time.AfterFunc(20*time.Millisecond, func() { close(procsTest.inject) })
	err := Run(context.Background(), Config{Backend: "test-procs", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		// PE 1 runs "elsewhere" and never arrives: only its failure ends
		// the barrier.
		start := time.Now()
		err := pe.Barrier(context.Background())
		if d := time.Since(start); d > time.Second {
			t.Errorf("the barrier ended %v after the failure", d)
		}
		return err
	})
	if !names(err, 1) {
		t.Fatalf("Run = %v, want an error naming PE 1", err)
	}
	var re *RemoteError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("Run = %v, want PE 1's message", err)
	}
	procsTest.mu.Lock()
	notified := procsTest.notified
	procsTest.mu.Unlock()
	// PE 0's wait was aborted: its failure, which is PE 1's, is told on as
	// PE 1's (rootFailure), so that no process names PE 0 as the first.
	if len(notified) != 1 || notified[0] != 1 {
		t.Errorf("NotifyFailure calls for PEs %v, want [1]", notified)
	}
	testhelp.NoGoroutineLeak(t, before)
}

// names reports whether err's chain holds a *PEError for pe.
func names(err error, pe int) bool {
	for {
		var pf *PEError
		if !errors.As(err, &pf) {
			return false
		}
		if pf.PE == pe {
			return true
		}
		err = pf.Err
	}
}

// A PE whose error is another PE's failure is told to the other
// processes as that PE's failure, so that each names the first failing PE
// whichever notice reaches it first; a failure of its own is its own.
func TestRootFailure(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		e       *PEError
		wantPE  int
		wantErr string
	}{
		{"its own error", &PEError{PE: 1, Err: boom}, 1, "boom"},
		{"a local PE's failure", &PEError{PE: 1, Err: fmt.Errorf("pgas: barrier aborted: %w", &PEError{PE: 3, Err: boom})}, 3, "boom"},
		{"another process's failure", &PEError{PE: 1, Err: fmt.Errorf("pgas: wait aborted: %w", &PEError{PE: 2, Err: &RemoteError{Msg: "boom"}})}, 2, "boom"},
		{"itself, wrapped", &PEError{PE: 1, Err: &PEError{PE: 1, Err: boom}}, 1, "pgas: PE 1 failed: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pe, err := rootFailure(tc.e)
			if pe != tc.wantPE || err.Error() != tc.wantErr {
				t.Errorf("rootFailure = %d, %q; want %d, %q", pe, err, tc.wantPE, tc.wantErr)
			}
		})
	}
}
