package bootstrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"
)

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want Info
		err  string
	}{
		{"symrun", map[string]string{EnvRank: "2", EnvNRanks: "4", EnvLocalRank: "2", EnvLocalRanks: "4", EnvAddr: "127.0.0.1:9", EnvServed: "1"},
			Info{Rank: 2, Size: 4, LocalRank: 2, LocalSize: 4, Addr: "127.0.0.1:9", Served: true, Source: "symrun"}, ""},
		{"openmpi", map[string]string{"OMPI_COMM_WORLD_RANK": "5", "OMPI_COMM_WORLD_SIZE": "16", "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_LOCAL_SIZE": "4"},
			Info{Rank: 5, Size: 16, LocalRank: 1, LocalSize: 4, Source: "openmpi"}, ""},
		{"slurm without local", map[string]string{"SLURM_PROCID": "3", "SLURM_NTASKS": "8"},
			Info{Rank: 3, Size: 8, LocalRank: 3, Source: "slurm"}, ""},
		{"symrun wins over mpi", map[string]string{EnvRank: "0", EnvNRanks: "2", "PMI_RANK": "1", "PMI_SIZE": "2"},
			Info{Rank: 0, Size: 2, LocalRank: 0, Source: "symrun"}, ""},
		{"none", map[string]string{}, Info{}, ErrNoLauncher.Error()},
		{"rank not a number", map[string]string{EnvRank: "x", EnvNRanks: "2"}, Info{}, "SYMCHAN_RANK"},
		{"rank too big", map[string]string{"PMI_RANK": "2", "PMI_SIZE": "2"}, Info{}, "not below"},
		{"size missing", map[string]string{"PMI_RANK": "0"}, Info{}, "PMI_SIZE"},
		{"size zero", map[string]string{EnvRank: "0", EnvNRanks: "0"}, Info{}, "SYMCHAN_NRANKS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fromLookup(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if tc.err != "" {
				if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.err)) {
					t.Fatalf("err %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func serve(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	srv, err := NewServer(testSecret)
	if err != nil {
		t.Fatal(err)
	}
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return ln.Addr().String()
}

// Gets wait for the Put, however early they come.
func TestGetWaitsForPut(t *testing.T) {
	addr := serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	want := bytes.Repeat([]byte{0xab, 0x01}, 64)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := Get(ctx, addr, testSecret, "nvshmem-uid")
			if err == nil && !bytes.Equal(got, want) {
				err = fmt.Errorf("got % x", got)
			}
			errs <- err
		}()
	}
	time.Sleep(50 * time.Millisecond)
	if err := Put(ctx, addr, testSecret, "nvshmem-uid", want); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if err := Put(ctx, addr, testSecret, "nvshmem-uid", want); err == nil {
		t.Error("second Put of a key: no error")
	}
}

func TestGetCancelled(t *testing.T) {
	addr := serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Get(ctx, addr, testSecret, "never"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Get of a key never put: %v, want a deadline error", err)
	}
	// Nobody listening: the dial retries end with the context too.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	if _, err := Get(ctx2, "127.0.0.1:1", testSecret, "k"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Get with no server: %v", err)
	}
}

func TestBadRequests(t *testing.T) {
	ctx := context.Background()
	if err := Put(ctx, "127.0.0.1:1", testSecret, "bad key", nil); err == nil {
		t.Error("Put with a space in the key: no error")
	}
	if err := Put(ctx, "127.0.0.1:1", testSecret, "k", make([]byte, MaxValue+1)); err == nil {
		t.Error("Put of an oversize value: no error")
	}
	addr := serve(t)
	for _, req := range []string{"", "HELLO", "GET", "PUT k", "PUT k zz", "GET k extra", "GET " + string(bytes.Repeat([]byte("k"), 65))} {
		if line, err := call(ctx, addr, testSecret, req); err == nil {
			t.Errorf("request %q: reply %q, want an ERR", req, line)
		}
	}
}

// Rank 0 serves the rendezvous itself (no launcher does) and shares its
// value; the other ranks start before it listens.
func TestShareRankZeroServes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a free port for rank 0 to take
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const n = 4
	got := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := n - 1; r >= 0; r-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			info := Info{Rank: r, Size: n, Addr: addr, Secret: testSecret}
			got[r], errs[r] = Share(ctx, info, "uid", func() ([]byte, error) { return []byte("id-of-rank-0"), nil })
		}()
		if r == n-1 {
			time.Sleep(30 * time.Millisecond)
		}
	}
	wg.Wait()
	for r := range n {
		if errs[r] != nil || string(got[r]) != "id-of-rank-0" {
			t.Errorf("rank %d: %q, %v", r, got[r], errs[r])
		}
	}
	if _, err := Share(ctx, Info{Rank: 1, Size: 2, Secret: testSecret}, "uid", nil); err == nil {
		t.Error("Share without an address: no error")
	}
	if _, err := Share(ctx, Info{Rank: 1, Size: 2, Addr: addr}, "uid", nil); err == nil {
		t.Error("Share without a secret: no error")
	}
}

func FuzzParseRequest(f *testing.F) {
	for _, s := range []string{"GET k", "PUT k 00ff", "PUT a.b-c_d 0", "", "GET", "PUT k zz", "GET k k"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseRequest(line)
		if err != nil {
			return
		}
		if !validKey(r.key) || (r.op != "GET" && r.op != "PUT") || len(r.val) > MaxValue {
			t.Fatalf("accepted %q as %+v", line, r)
		}
	})
}
