package handoff

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// wait runs the documented steps on s until cond holds or the wait must
// end, as the host backend and the actors' mailboxes do.
func wait(s *Spot, ctx context.Context, abort <-chan struct{}, cond func() bool) error {
	s.Watch(ctx, abort)
	s.Arm()
	for {
		if cond() {
			s.Disarm()
			return nil
		}
		if err := s.Stopped(ctx, abort); err != nil {
			s.Disarm()
			return err
		}
		s.Park()
		if cond() {
			return nil
		}
		s.Arm()
	}
}

// Each way a parked wait ends: a ring after the condition came true, its
// context ending, its abort channel closing.
func TestSpotWakes(t *testing.T) {
	for _, c := range []struct {
		name string
		wake func(flag *atomic.Bool, s *Spot, cancel context.CancelFunc, abort chan struct{})
		want error
	}{
		{"ring", func(flag *atomic.Bool, s *Spot, _ context.CancelFunc, _ chan struct{}) { flag.Store(true); s.Ring() }, nil},
		{"context", func(_ *atomic.Bool, _ *Spot, cancel context.CancelFunc, _ chan struct{}) { cancel() }, context.Canceled},
		{"abort", func(_ *atomic.Bool, _ *Spot, _ context.CancelFunc, abort chan struct{}) { close(abort) }, ErrAborted},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s Spot
			s.Init()
			defer s.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			abort := make(chan struct{})
			var flag atomic.Bool
			done := make(chan error, 1)
			go func() { done <- wait(&s, ctx, abort, flag.Load) }()
			for !s.Armed() {
				time.Sleep(time.Millisecond)
			}
			c.wake(&flag, &s, cancel, abort)
			select {
			case err := <-done:
				if !errors.Is(err, c.want) {
					t.Fatalf("wait: %v, want %v", err, c.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the parked wait did not wake")
			}
			if s.Armed() || len(s.ch) != 0 {
				t.Errorf("after the wait: armed %v, %d tokens; want neither", s.Armed(), len(s.ch))
			}
		})
	}
}

// A ring that beats Disarm leaves a token, which Disarm takes: the next
// wait parks until a ring of its own.
func TestSpotDisarmTakesTheRacingToken(t *testing.T) {
	var s Spot
	s.Init()
	defer s.Close()
	s.Arm()
	s.Ring() // disarms and leaves a token
	s.Disarm()
	if len(s.ch) != 0 {
		t.Fatalf("%d tokens after Disarm", len(s.ch))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := wait(&s, ctx, nil, func() bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a later wait: %v, want its deadline", err)
	}
}

// Close stops the context's watch: a context that ends afterwards rings
// nobody. (An abort watch may still ring once after Close, as Close says.)
func TestSpotClose(t *testing.T) {
	var s Spot
	s.Init()
	ctx, cancel := context.WithCancel(context.Background())
	s.Watch(ctx, nil)
	s.Close()
	s.Arm()
	cancel()
	time.Sleep(20 * time.Millisecond)
	if !s.Armed() || len(s.ch) != 0 {
		t.Fatalf("a closed spot was rung: armed %v, %d tokens", s.Armed(), len(s.ch))
	}
}

// Watch keeps the context it last saw: a later wait with the same
// context, which ended meanwhile, stops at once; a wait with another
// context watches that one.
func TestSpotWatchesAgain(t *testing.T) {
	never := func() bool { return false }
	for _, c := range []struct {
		name string
		next func(first context.Context, cancelFirst context.CancelFunc) context.Context
	}{
		{"the same context, ended between the waits", func(first context.Context, cancelFirst context.CancelFunc) context.Context {
			cancelFirst()
			return first
		}},
		{"another context, ending during the wait", func(context.Context, context.CancelFunc) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(20*time.Millisecond, cancel)
			return ctx
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s Spot
			s.Init()
			defer s.Close()
			first, cancelFirst := context.WithTimeout(context.Background(), 10*time.Millisecond)
			defer cancelFirst()
			if err := wait(&s, first, nil, never); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("the first wait: %v, want its deadline", err)
			}
			done := make(chan error, 1)
			go func() { done <- wait(&s, c.next(first, cancelFirst), nil, never) }()
			select {
			case err := <-done:
				if err == nil {
					t.Fatal("the second wait returned nil, want its context's error")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the second wait did not end with its context")
			}
		})
	}
}

// What ended before a wait began stops it, though no watch has fired yet
// when it first looks: the watch fires, rings, and the next look sees it.
func TestSpotStopsForWhatEndedBefore(t *testing.T) {
	never := func() bool { return false }
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	closed := make(chan struct{})
	close(closed)
	for _, c := range []struct {
		name  string
		ctx   context.Context
		abort <-chan struct{}
		want  error
	}{
		{"context", ended, nil, context.Canceled},
		{"abort", context.Background(), closed, ErrAborted},
	} {
		t.Run(c.name, func(t *testing.T) {
			var s Spot
			s.Init()
			defer s.Close()
			done := make(chan error, 1)
			go func() { done <- wait(&s, c.ctx, c.abort, never) }()
			select {
			case err := <-done:
				if !errors.Is(err, c.want) {
					t.Fatalf("wait: %v, want %v", err, c.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the wait did not stop")
			}
		})
	}
}

// A watch that fired for an earlier wait (its abort channel closed) does
// not stop a later wait with another channel: that one parks until rung.
func TestSpotFiredWatchOfAnEarlierWait(t *testing.T) {
	var s Spot
	s.Init()
	defer s.Close()
	first := make(chan struct{})
	close(first)
	if err := wait(&s, context.Background(), first, func() bool { return false }); !errors.Is(err, ErrAborted) {
		t.Fatalf("the first wait: %v, want ErrAborted", err)
	}
	var flag atomic.Bool
	done := make(chan error, 1)
	go func() { done <- wait(&s, context.Background(), make(chan struct{}), flag.Load) }()
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("the second wait ended before its ring: %v", err)
	default:
	}
	for !s.Armed() {
		time.Sleep(time.Millisecond)
	}
	flag.Store(true)
	s.Ring()
	if err := <-done; err != nil {
		t.Fatalf("the second wait: %v, want nil", err)
	}
}
