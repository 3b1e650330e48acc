package server

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// On a GPU backend (SYMCHAN_TEST_BACKEND=cuda or nvshmem, a -tags cuda
// binary on a GPU machine): the kernels' solve agrees with Go's, a
// request's deadline ends the GPU's sweeps, and the HTTP path works.
func TestGPUSolver(t *testing.T) {
	backend := os.Getenv("SYMCHAN_TEST_BACKEND")
	if backend == "" || backend == "host" {
		t.Skip("set SYMCHAN_TEST_BACKEND=cuda (a -tags cuda build on a GPU machine)")
	}
	cfg := testConfig()
	cfg.World = pgas.Config{Backend: backend}
	s, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	for _, j := range []Job{{N: 3, Iters: 1}, {N: 64, Iters: 20}, {N: 257, Iters: 300}, {N: 1024, Iters: 50}} {
		got, err := s.svc.CallAny(context.Background(), j)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := solveHost(context.Background(), j)
		if math.Abs(got.Norm-want) > 1e-4*math.Max(want, 1e-6) {
			t.Errorf("%+v: the GPU's norm %v, Go's %v", j, got.Norm, want)
		}
	}
	// The largest job the limits allow, whole, then with a deadline of a
	// quarter of that: the sweeps stop at the next check of the context.
	big := Job{N: 2048, Iters: 950}
	t0 := time.Now()
	if _, err := s.svc.Call(context.Background(), 0, big); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(t0)
	ctx, cancel := context.WithTimeout(context.Background(), whole/4)
	defer cancel()
	t0 = time.Now()
	if _, err := s.svc.Call(ctx, 0, big); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a solve past its deadline: %v", err)
	}
	if d := time.Since(t0); d > whole*4/5 {
		t.Errorf("the cancelled solve took %v, the whole one %v", d, whole)
	}
	if r, err := s.svc.Call(context.Background(), 0, Job{N: 8, Iters: 1}); err != nil || r.PE != 0 {
		t.Errorf("after the cancelled solve: %+v, %v", r, err)
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest("POST", "/v1/jacobi", strings.NewReader(`{"n": 128, "iters": 10, "pe": 0}`)))
	if w.Code != http.StatusOK {
		t.Errorf("POST /v1/jacobi on the GPU: %d %s", w.Code, w.Body)
	}
}
