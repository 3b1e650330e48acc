package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A rollout as Kubernetes drives it: under load, SIGTERM (here the
// context) turns /readyz to 503 while every request still gets its answer;
// the load balancer (here the load's goroutines, which watch /readyz)
// stops sending; then the process stops cleanly and run returns nil
// (exit 0). No request is refused or fails while the instance reads
// ready.
func TestRollout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, sigterm := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, ln, options{backend: "host", pes: 2, timeout: 10 * time.Second, maxN: 256,
			drain: 400 * time.Millisecond, grace: 5 * time.Second}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(path string) int {
		r, err := client.Get(base + path)
		if err != nil {
			return 0
		}
		r.Body.Close()
		return r.StatusCode
	}
	deadline := time.Now().Add(10 * time.Second)
	for get("/readyz") != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("never ready")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The prober: ready while /readyz answers 200.
	var ready, sawDraining atomic.Bool
	ready.Store(true)
	stopProbe := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopProbe:
				return
			case <-time.After(5 * time.Millisecond):
			}
			switch get("/readyz") {
			case http.StatusOK:
				ready.Store(true)
			case http.StatusServiceUnavailable:
				sawDraining.Store(true)
				ready.Store(false)
			default:
				ready.Store(false)
			}
		}
	}()
	var ok, failedWhileReady atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ready.Load() {
				r, err := client.Post(base+"/v1/jacobi", "application/json", strings.NewReader(`{"n":32,"iters":50}`))
				if err != nil {
					if ready.Load() {
						failedWhileReady.Add(1)
						t.Errorf("a request failed while the instance read ready: %v", err)
					}
					continue
				}
				io.Copy(io.Discard, r.Body)
				r.Body.Close()
				if r.StatusCode == http.StatusOK {
					ok.Add(1)
				} else {
					failedWhileReady.Add(1)
					t.Errorf("status %d under load", r.StatusCode)
				}
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	sigterm()
	wg.Wait()
	if err := <-done; err != nil {
		t.Fatalf("run after SIGTERM: %v (want a clean stop, exit 0)", err)
	}
	close(stopProbe)
	if !sawDraining.Load() {
		t.Error("/readyz never answered 503 while draining")
	}
	if ok.Load() == 0 || failedWhileReady.Load() != 0 {
		t.Errorf("%d requests answered 200, %d failed", ok.Load(), failedWhileReady.Load())
	}
	t.Logf("%d requests answered during the rollout", ok.Load())
}
