package gpuop

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas/driver"
)

func TestSpinReturnsOnceDone(t *testing.T) {
	start := time.Now()
	polls := 0
	err := spin(func() bool { polls++; return polls == 5000 }, func() error {
		// A check is a driver call: none before spinCheck has passed.
		if d := time.Since(start); d < spinCheck {
			t.Errorf("check after %v, before spinCheck (%v)", d, spinCheck)
		}
		return nil
	})
	if err != nil || polls != 5000 {
		t.Fatalf("spin = %v after %d polls, want nil after 5000", err, polls)
	}
}

// TestSpinChecksNowAndThen: check runs about every spinCheck, however fast
// the polls, and its error ends the spin.
func TestSpinChecksNowAndThen(t *testing.T) {
	stop := errors.New("stop")
	var at []time.Time
	start := time.Now()
	err := spin(func() bool { return false }, func() error {
		at = append(at, time.Now())
		if len(at) == 5 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("spin = %v, want check's error", err)
	}
	// The k-th check comes no sooner than k·spinCheck.
	for i, a := range at {
		if d := a.Sub(start); d < time.Duration(i+1)*spinCheck {
			t.Errorf("check %d after %v, before %d × spinCheck (%v)", i+1, d, i+1, spinCheck)
		}
	}
}

func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	abort := make(chan struct{})
	var cause error
	stops := 0
	check := interrupt(ctx, abort, &cause, func() { stops++ })
	if err := check(); err != nil || cause != nil || stops != 0 {
		t.Fatalf("before anything ended: err %v, cause %v, %d stops", err, cause, stops)
	}
	cancel()
	close(abort)
	for range 3 {
		if err := check(); err != nil {
			t.Fatalf("check = %v: the spin goes on until the kernel answers", err)
		}
	}
	if !errors.Is(cause, context.Canceled) && !errors.Is(cause, ErrAborted) {
		t.Errorf("cause = %v, want the context's end or ErrAborted", cause)
	}
	if stops != 1 {
		t.Errorf("stop called %d times, want once", stops)
	}

	cause, stops = nil, 0
	check = interrupt(context.Background(), abort, &cause, func() { stops++ })
	_ = check()
	if !errors.Is(cause, ErrAborted) || stops != 1 {
		t.Errorf("abort closed: cause %v, %d stops; want ErrAborted, 1", cause, stops)
	}
}

// TestSpec: the kernels read a wait's kind, comparison, mode and test
// flag from the bytes 0 … 3 of its spec word (symchan_wait, agent_waiter).
func TestSpec(t *testing.T) {
	for _, req := range []driver.WaitRequest{
		{Kind: driver.KindUint64, Cmp: driver.CmpGE, Mode: driver.WaitSome},
		{Kind: driver.KindInt32, Cmp: driver.CmpEQ, Mode: driver.WaitAny, Test: true},
		{Kind: driver.KindInt64, Cmp: driver.CmpNE, Mode: driver.WaitAll},
	} {
		s := spec(req)
		test := s>>24&0xff == 1
		if driver.Kind(s&0xff) != req.Kind || driver.Cmp(s>>8&0xff) != req.Cmp || driver.WaitMode(s>>16&0xff) != req.Mode || test != req.Test || s>>32 != 0 {
			t.Errorf("spec(%+v) = %#x: the kernels would read kind %d, cmp %d, mode %d, test %v", req, s, s&0xff, s>>8&0xff, s>>16&0xff, test)
		}
	}
}

func TestResult(t *testing.T) {
	idx := make([]byte, 16)
	for i, v := range []int32{9, 2, 5} {
		idx[4*i] = byte(v)
	}
	some := driver.WaitRequest{Mode: driver.WaitSome, Indices: make([]int, 4)}
	if r := result(some, 3, 0, idx); r.N != 3 || !slices.Equal(some.Indices[:3], []int{2, 5, 9}) {
		t.Errorf("some-wait: N %d, indices %v; want 3, [2 5 9] in order", r.N, some.Indices[:3])
	}
	anyNone := driver.WaitRequest{Mode: driver.WaitAny}
	if r := result(anyNone, ^uint64(0), 0, idx); r.N != driver.NoIndex {
		t.Errorf("any-test that found nothing: N %d, want NoIndex", r.N)
	}
	all := driver.WaitRequest{Mode: driver.WaitAll}
	if r := result(all, 1, 42, idx); r.N != 1 || r.Word != 42 {
		t.Errorf("all-wait: %+v, want N 1, Word 42", r)
	}
}
