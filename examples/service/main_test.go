package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
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

// A rollout under the flags deploy/deployment.yaml gives the container,
// with what holds a shutdown up: an idle keep-alive connection and an
// upload that stalls half way. SIGTERM ends with run returning nil (exit
// 0) within -drain plus -shutdown-timeout: the idle connection is closed
// at once, the stalled upload when the requests' share of the shutdown
// timeout ends.
func TestRolloutUnderManifestFlags(t *testing.T) {
	manifest, err := os.ReadFile("deploy/deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*args: \[(.*)\]$`).FindSubmatch(manifest)
	if m == nil {
		t.Fatal("deploy/deployment.yaml has no args: [...] line")
	}
	var args []string
	for _, a := range strings.Split(string(m[1]), ",") {
		args = append(args, strings.Trim(strings.TrimSpace(a), `"`))
	}
	o, err := parseFlags(args)
	if err != nil {
		t.Fatalf("the manifest's flags %q: %v", args, err)
	}
	o.addr = "127.0.0.1:0"
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, sigterm := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, ln, o, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	client := &http.Client{Timeout: 10 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := client.Get("http://" + addr + "/readyz")
		if err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				break // and the connection stays idle in client's pool
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("never ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
	stalled, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	body := `{"n": 32, "iters": 5}`
	fmt.Fprintf(stalled, "POST /v1/jacobi HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body)+100, body)
	time.Sleep(100 * time.Millisecond) // the handler is reading the body
	start := time.Now()
	sigterm()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after SIGTERM: %v (want exit 0)", err)
		}
	case <-time.After(o.drain + o.grace + 5*time.Second):
		t.Fatalf("run did not end within -drain %v plus -shutdown-timeout %v", o.drain, o.grace)
	}
	if took := time.Since(start); took > o.drain+o.grace {
		t.Errorf("the shutdown took %v, more than -drain %v plus -shutdown-timeout %v", took, o.drain, o.grace)
	}
	t.Logf("stopped %v after SIGTERM with %q", time.Since(start).Round(time.Millisecond), args)
}
