package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas/bootstrap"
)

// The test binary is also the program symrun starts: with SYMRUN_CHILD set
// it plays one PE.
func TestMain(m *testing.M) {
	if mode := os.Getenv("SYMRUN_CHILD"); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

func child(mode string) int {
	info, err := bootstrap.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 9
	}
	switch mode {
	case "hello":
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		id, err := bootstrap.Share(ctx, info, "uid", func() ([]byte, error) { return []byte("the-id"), nil })
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 8
		}
		fmt.Printf("rank %d of %d (local %d of %d) got %s\n", info.Rank, info.Size, info.LocalRank, info.LocalSize, id)
		fmt.Fprintf(os.Stderr, "a line on stderr\n")
		return 0
	case "fail":
		if info.Rank == 1 {
			time.Sleep(50 * time.Millisecond)
			fmt.Println("failing")
			return 3
		}
		fmt.Println("sleeping")
		time.Sleep(30 * time.Second)
		return 0
	case "stubborn": // ignores SIGTERM: must be killed
		signal.Ignore(syscall.SIGTERM)
		if info.Rank == 0 {
			return 4
		}
		time.Sleep(30 * time.Second)
		return 0
	case "signal":
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGINT)
		fmt.Println("ready")
		select {
		case s := <-sig:
			fmt.Println("got", s)
			return 0
		case <-time.After(20 * time.Second):
			return 7
		}
	}
	return 6
}

func symrun(t *testing.T, mode string, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("SYMRUN_CHILD", mode)
	var out, errb syncBuffer
	code := run(append(args, os.Args[0]), &out, &errb)
	return code, out.String(), errb.String()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRanksOutputAndRendezvous(t *testing.T) {
	code, out, errs := symrun(t, "hello", "-n", "3")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for pe := range 3 {
		want := fmt.Sprintf("[PE %d] rank %d of 3 (local %d of 3) got the-id\n", pe, pe, pe)
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
		if !strings.Contains(errs, fmt.Sprintf("[PE %d] a line on stderr\n", pe)) {
			t.Errorf("stderr lacks PE %d's line:\n%s", pe, errs)
		}
	}
}

// One PE exits 3: symrun stops the others at once and exits 3.
func TestFailureStopsTheOthers(t *testing.T) {
	start := time.Now()
	code, out, errs := symrun(t, "fail", "-n", "3")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, out, errs)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v: the others were not stopped", d)
	}
	if !strings.Contains(errs, "PE 1 failed") {
		t.Errorf("stderr does not name the failed PE:\n%s", errs)
	}
}

// A PE that ignores SIGTERM is killed after the grace period.
func TestStubbornPEKilled(t *testing.T) {
	start := time.Now()
	code, _, errs := symrun(t, "stubborn", "-n", "2", "-grace", "200ms")
	if code != 4 {
		t.Fatalf("exit %d, want 4\n%s", code, errs)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v", d)
	}
}

// SIGINT to symrun reaches every PE.
func TestSignalsForwarded(t *testing.T) {
	t.Setenv("SYMRUN_CHILD", "signal")
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"-n", "2", os.Args[0]}, &out, &errb) }()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "ready") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("PEs not ready:\n%s%s", out.String(), errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if got := out.String(); !strings.Contains(got, "[PE 0] got interrupt") || !strings.Contains(got, "[PE 1] got interrupt") {
		t.Fatalf("the PEs did not both see SIGINT:\n%s", got)
	}
}

func TestBadUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-n", "0", "x"}, {"-n", "2"}, {"-bogus"}} {
		var out, errb syncBuffer
		if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: symrun") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
	var out, errb syncBuffer
	if code := run([]string{"-n", "1", "/nonexistent/program"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "start PE 0") {
		t.Errorf("missing program: exit %d, stderr %q", code, errb.String())
	}
}
