package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func testConfig() Config {
	return Config{
		World:   pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20},
		Logger:  quiet,
		Restart: service.RestartPolicy{MaxRestarts: 10, Window: time.Minute, Backoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond},
	}
}

func newTest(t *testing.T, eng engine) (*Server, *httptest.Server) {
	t.Helper()
	return newTestConfig(t, testConfig(), eng)
}

// newTestConfig is newTest with cfg.
func newTestConfig(t *testing.T, cfg Config, eng engine) (*Server, *httptest.Server) {
	t.Helper()
	s, err := newServer(context.Background(), cfg, eng)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s, hs
}

// post sends body to /v1/jacobi and returns the status and decoded body.
func post(t *testing.T, url, contentType, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url+"/v1/jacobi", contentType, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("status %d, body not JSON: %v", resp.StatusCode, err)
	}
	return resp.StatusCode, m
}

func TestJacobiEndpoint(t *testing.T) {
	_, hs := newTest(t, hostEngine)
	code, m := post(t, hs.URL, "application/json", `{"n": 32, "iters": 10, "pe": 1}`)
	if code != http.StatusOK {
		t.Fatalf("status %d: %v", code, m)
	}
	want, _ := solveHost(context.Background(), Job{N: 32, Iters: 10})
	if m["pe"] != 1.0 || m["n"] != 32.0 || m["iters"] != 10.0 || math.Abs(m["norm"].(float64)-want) > 1e-9 || want == 0 {
		t.Errorf("answer %v, want norm %v from PE 1", m, want)
	}
	if code, m := post(t, hs.URL, "", `{"n": 16, "iters": 3}`); code != http.StatusOK {
		t.Errorf("without a PE: %d %v", code, m)
	}
}

// Bad requests get a 4xx whose message names the field; nothing crashes
// and the service keeps serving.
func TestBadRequests(t *testing.T) {
	_, hs := newTest(t, hostEngine)
	cases := []struct {
		name, contentType, body string
		code                    int
		field, text             string
	}{
		{"malformed", "application/json", `{"n": 3`, 400, "", "malformed JSON"},
		{"syntax", "application/json", `{"n": 3,,}`, 400, "", "malformed JSON at byte"},
		{"empty", "application/json", ``, 400, "", "empty"},
		{"not an object", "application/json", `[1,2]`, 400, "", ""},
		{"two objects", "application/json", `{"n":4,"iters":1}{"n":4,"iters":1}`, 400, "", "more than one"},
		{"unknown field", "application/json", `{"n": 4, "iters": 1, "m": 2}`, 400, "m", "unknown field"},
		{"n a string", "application/json", `{"n": "big", "iters": 1}`, 400, "n", "must be int64"},
		{"n fractional", "application/json", `{"n": 4.5, "iters": 1}`, 400, "n", ""},
		{"n missing", "application/json", `{"iters": 1}`, 400, "n", "required"},
		{"iters missing", "application/json", `{"n": 4}`, 400, "iters", "required"},
		{"n negative", "application/json", `{"n": -4, "iters": 1}`, 400, "n", "between 3 and 2048"},
		{"n too large", "application/json", `{"n": 100000, "iters": 1}`, 400, "n", "between 3 and 2048"},
		{"n overflows", "application/json", `{"n": 1e30, "iters": 1}`, 400, "n", ""},
		{"iters zero", "application/json", `{"n": 4, "iters": 0}`, 400, "iters", "between 1 and 10000"},
		{"absurd work", "application/json", `{"n": 2048, "iters": 10000}`, 400, "iters", "cell updates"},
		{"pe out of range", "application/json", `{"n": 4, "iters": 1, "pe": 7}`, 400, "pe", "between 0 and 1"},
		{"pe negative", "application/json", `{"n": 4, "iters": 1, "pe": -1}`, 400, "pe", ""},
		{"timeout zero", "application/json", `{"n": 4, "iters": 1, "timeout_ms": 0}`, 400, "timeout_ms", ""},
		{"body too large", "application/json", `{"n": 4, "iters": 1, "pad": "` + strings.Repeat("x", 8<<10) + `"}`, 413, "", "larger than"},
		{"a form", "application/x-www-form-urlencoded", `n=4&iters=1`, 400, "", "malformed JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, m := post(t, hs.URL, c.contentType, c.body)
			msg, _ := m["error"].(string)
			if code != c.code || (c.field != "" && m["field"] != c.field) || !strings.Contains(msg, c.text) {
				t.Errorf("got %d %v; want %d, field %q, text %q", code, m, c.code, c.field, c.text)
			}
		})
	}
	if code, m := post(t, hs.URL, "application/json", `{"n": 8, "iters": 2}`); code != 200 {
		t.Errorf("after the bad requests: %d %v", code, m)
	}
	resp, err := http.Get(hs.URL + "/v1/jacobi")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/jacobi: %d", resp.StatusCode)
	}
}

// A request whose deadline passes gets a 504, and its solve stops: the
// PE is free again at once.
func TestDeadline(t *testing.T) {
	s, hs := newTest(t, hostEngine)
	t0 := time.Now()
	code, m := post(t, hs.URL, "application/json", `{"n": 2048, "iters": 900, "pe": 0, "timeout_ms": 30}`)
	if code != http.StatusGatewayTimeout {
		t.Fatalf("got %d %v, want 504", code, m)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the 504 took %v", d)
	}
	testhelp.WaitFor(t, "the cancelled solve to leave PE 0", func() bool { return s.svc.Stats().PEs[0].InFlight == 0 })
	t1 := time.Now()
	if code, m := post(t, hs.URL, "application/json", `{"n": 8, "iters": 1, "pe": 0}`); code != 200 {
		t.Fatalf("after the 504: %d %v", code, m)
	}
	// A solve of 2048²·900 cells takes seconds; the next request did not
	// wait for it.
	if d := time.Since(t1); d > time.Second {
		t.Errorf("the next request on PE 0 took %v: the cancelled solve went on", d)
	}
}

// faulty wraps the host solver with a switch that makes the next solve
// fail its PE (a panic, as a crashed kernel would).
type faulty struct{ armed atomic.Bool }

func (f *faulty) engine(ctx context.Context, pe *pgas.PE, maxN int64) (service.Actor[Job, Result], error) {
	a, err := hostEngine(ctx, pe, maxN)
	if err != nil {
		return nil, err
	}
	return service.ActorFunc[Job, Result](func(ctx context.Context, j Job) (Result, error) {
		if f.armed.CompareAndSwap(true, false) {
			panic("injected fault")
		}
		return a.Serve(ctx, j)
	}), nil
}

// A PE fails in the middle of load: every request gets exactly one
// answer (200, or a 5xx while the world fails and restarts), the world
// restarts, the service serves again, and nothing leaks.
func TestPEFailureUnderLoad(t *testing.T) {
	before := runtime.NumGoroutine()
	var f faulty
	s, err := newServer(context.Background(), testConfig(), f.engine)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var ok, unavailable, failed, other atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Post(hs.URL+"/v1/jacobi", "application/json", strings.NewReader(`{"n": 64, "iters": 20, "timeout_ms": 5000}`))
				if err != nil {
					other.Add(1)
					t.Errorf("no answer: %v", err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case 200:
					ok.Add(1)
				case 503:
					unavailable.Add(1)
				case 500:
					failed.Add(1)
				default:
					other.Add(1)
					t.Errorf("status %d", resp.StatusCode)
				}
			}
		}()
	}
	testhelp.WaitFor(t, "10 answers", func() bool { return ok.Load() >= 10 })
	okBefore := ok.Load()
	f.armed.Store(true)
	testhelp.WaitFor(t, "the world's restart", func() bool { return s.svc.Stats().Restarts > 0 && s.svc.Ready() })
	okAtRestart := ok.Load()
	testhelp.WaitFor(t, "10 answers after the restart", func() bool { return ok.Load() >= okAtRestart+10 })
	close(stop)
	wg.Wait()
	if ok.Load() < okAtRestart+10 {
		t.Errorf("%d answered before the fault, %d at the restart, %d in all: the service did not serve again", okBefore, okAtRestart, ok.Load())
	}
	if failed.Load() == 0 {
		t.Error("no request saw the PE's failure")
	}
	t.Logf("200: %d, 500: %d, 503: %d", ok.Load(), failed.Load(), unavailable.Load())
	resp, err := client.Get(hs.URL + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("readyz after the restart: %v %v", resp, err)
	}
	resp.Body.Close()
	hs.Close()
	client.CloseIdleConnections()
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	testhelp.NoGoroutineLeak(t, before)
}

// Shutdown with requests in flight answers all of them, then stops the
// world; /readyz says so.
func TestGracefulShutdown(t *testing.T) {
	// The solves wait for the gate, so that every request is in flight
	// when the shutdown begins.
	gate := make(chan struct{})
	gated := func(ctx context.Context, pe *pgas.PE, maxN int64) (service.Actor[Job, Result], error) {
		a, err := hostEngine(ctx, pe, maxN)
		return service.ActorFunc[Job, Result](func(ctx context.Context, j Job) (Result, error) {
			select {
			case <-gate:
			case <-ctx.Done():
				return Result{}, ctx.Err()
			}
			return a.Serve(ctx, j)
		}), err
	}
	s, err := newServer(context.Background(), testConfig(), gated)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s.Handler()}
	go hs.Serve(ln)
	url := "http://" + ln.Addr().String()
	const n = 12
	codes := make(chan int, n)
	for range n {
		go func() {
			resp, err := http.Post(url+"/v1/jacobi", "application/json", strings.NewReader(`{"n": 64, "iters": 30}`))
			if err != nil {
				codes <- -1
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	testhelp.WaitFor(t, "every request in the service", func() bool {
		st := s.svc.Stats()
		inFlight := st.AnyQueued // CallAny's, until a PE takes them
		for _, p := range st.PEs {
			inFlight += p.InFlight
		}
		return inFlight == n
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	time.AfterFunc(50*time.Millisecond, func() { close(gate) })
	if err := hs.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for range n {
		if c := <-codes; c != 200 {
			t.Errorf("a request in flight at shutdown got %d", c)
		}
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("readyz after shutdown: %d", rec.Code)
	}
}

func TestProbesAndMetrics(t *testing.T) {
	_, hs := newTest(t, hostEngine)
	post(t, hs.URL, "application/json", `{"n": 8, "iters": 2, "pe": 1}`)
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200, "/nonesuch": 404} {
		resp, err := http.Get(hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
		if path != "/metrics" {
			continue
		}
		for _, line := range strings.Split(string(body), "\n") {
			if line != "" && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "symchan_") {
				t.Errorf("metric without the symchan_ prefix: %s", line)
			}
		}
		for _, m := range []string{"symchan_calls_total 1", "symchan_up 1", `symchan_http_requests_total{code="200",route="/v1/jacobi"} 1`, "symchan_inbox_depth", "symchan_restarts_total 0", "symchan_call_duration_seconds_count 1"} {
			if !bytes.Contains(body, []byte(m)) {
				t.Errorf("no %q in /metrics", m)
			}
		}
	}
}

// With SeparateAdmin the public handler has no /metrics and no
// /debug/pprof/ (404), and AdminHandler serves both and nothing else.
func TestSeparateAdmin(t *testing.T) {
	cfg := testConfig()
	cfg.SeparateAdmin, cfg.Pprof = true, true
	s, hs := newTestConfig(t, cfg, hostEngine)
	admin := httptest.NewServer(s.AdminHandler())
	defer admin.Close()
	for _, c := range []struct {
		base, path string
		want       int
	}{
		{hs.URL, "/metrics", 404}, {hs.URL, "/debug/pprof/", 404}, {hs.URL, "/healthz", 200},
		{admin.URL, "/metrics", 200}, {admin.URL, "/debug/pprof/", 200}, {admin.URL, "/v1/jacobi", 404},
	} {
		resp, err := http.Get(c.base + c.path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s on the %s port: %d, want %d", c.path, map[bool]string{true: "admin", false: "public"}[c.base == admin.URL], resp.StatusCode, c.want)
		}
	}
}

func TestLimitsDefaults(t *testing.T) {
	l := Limits{}.withDefaults()
	if l.MaxN != 2048 || l.MaxIters != 10000 || l.MaxWork != 4e9 {
		t.Errorf("%+v", l)
	}
	if err := l.check(Job{N: 3, Iters: 1}); err != nil {
		t.Error(err)
	}
}

// The load benchmark's anchor serves the same endpoint.
func TestPool(t *testing.T) {
	s, err := NewPool(context.Background(), testConfig())
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	code, m := post(t, hs.URL, "application/json", `{"n": 32, "iters": 10}`)
	want, _ := solveHost(context.Background(), Job{N: 32, Iters: 10})
	if code != 200 || m["norm"] != want {
		t.Errorf("%d %v, want norm %v", code, m, want)
	}
	if code, _ := post(t, hs.URL, "application/json", `{"n": 1, "iters": 10}`); code != 400 {
		t.Errorf("a bad request: %d", code)
	}
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Once supervision gives up (here: no restart allowed), Done closes and
// /healthz answers 503, so that a process manager restarts the process.
func TestHealthzWhenSupervisionGivesUp(t *testing.T) {
	var f faulty
	cfg := testConfig()
	cfg.Restart = service.RestartPolicy{Window: time.Minute} // MaxRestarts 0: the first failure stops the service
	s, err := newServer(context.Background(), cfg, f.engine)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	get := func() int {
		resp, err := http.Get(hs.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(); code != 200 {
		t.Fatalf("healthz before the fault: %d", code)
	}
	f.armed.Store(true)
	resp, err := http.Post(hs.URL+"/v1/jacobi", "application/json", strings.NewReader(`{"n": 64, "iters": 20}`))
	if err == nil {
		resp.Body.Close()
	}
	select {
	case <-s.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("Done did not close after the world failed with no restart allowed")
	}
	if s.Err() == nil {
		t.Error("Err is nil after supervision gave up")
	}
	if code := get(); code != 503 {
		t.Errorf("healthz after supervision gave up: %d, want 503", code)
	}
	// A job now gets a 503 that says the service stopped, not the
	// panic's text (the operator's, in the log).
	code, m := post(t, hs.URL, "application/json", `{"n": 16, "iters": 2}`)
	if msg, _ := m["error"].(string); code != 503 || strings.Contains(msg, "injected fault") || !strings.Contains(msg, "stopped") {
		t.Errorf("a job after supervision gave up: %d %v; want 503 saying the service stopped, without the panic's text", code, m)
	}
}

// A gzip body is read as JSON once inflated, within the same size bound;
// other encodings are refused with 415.
func TestContentEncoding(t *testing.T) {
	_, hs := newTest(t, hostEngine)
	gz := func(s string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		_, _ = zw.Write([]byte(s))
		_ = zw.Close()
		return b.String()
	}
	cases := []struct {
		name, encoding, body string
		code                 int
		text                 string
	}{
		{"gzip", "gzip", gz(`{"n": 16, "iters": 3}`), 200, ""},
		{"gzip upper case", "GZIP", gz(`{"n": 16, "iters": 3}`), 200, ""},
		{"identity", "identity", `{"n": 16, "iters": 3}`, 200, ""},
		{"gzip malformed", "gzip", `{"n": 16, "iters": 3}`, 400, "gzip"},
		{"gzip inflating past the bound", "gzip", gz(`{"n": 4, "iters": 1, "pad": "` + strings.Repeat("x", 1<<20) + `"}`), 413, "larger than"},
		{"br", "br", `{"n": 16, "iters": 3}`, 415, "not supported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, hs.URL+"/v1/jacobi", strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Content-Encoding", c.encoding)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var m map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&m)
			if msg, _ := m["error"].(string); resp.StatusCode != c.code || !strings.Contains(msg, c.text) {
				t.Errorf("got %d %v; want %d saying %q", resp.StatusCode, m, c.code, c.text)
			}
		})
	}
}

// The answers a copied template must get right: JSON errors with a
// request ID for unknown paths and methods (counted), the client's sane
// X-Request-ID echoed and an insane one replaced, /readyz 503 once
// draining while jobs are still served, and pprof and the runtime
// collectors only when asked for.
func TestTemplateAnswers(t *testing.T) {
	s, hs := newTest(t, hostEngine)
	do := func(method, path, id string) (int, http.Header, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(`{"n": 8, "iters": 2}`))
		if err != nil {
			t.Fatal(err)
		}
		if id != "" {
			req.Header.Set(RequestIDHeader, id)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, resp.Header, m
	}
	for _, c := range []struct {
		name, method, path, id string
		code                   int
		wantID                 string // "" : a generated one
	}{
		{"unknown path", "GET", "/nonesuch", "", 404, ""},
		{"wrong method", "GET", "/v1/jacobi", "abc-123", 405, "abc-123"},
		{"insane ID replaced", "GET", "/nonesuch", "no spaces please", 404, ""},
		{"a job", "POST", "/v1/jacobi", "job_1", 200, "job_1"},
		{"pprof is off", "GET", "/debug/pprof/", "", 404, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, h, m := do(c.method, c.path, c.id)
			id := h.Get(RequestIDHeader)
			if code != c.code || id == "" || (c.wantID != "" && id != c.wantID) || (c.wantID == "" && id == c.id) {
				t.Fatalf("%s %s: %d, X-Request-ID %q; want %d", c.method, c.path, code, id, c.code)
			}
			if code != 200 && (m["error"] == nil || m["request_id"] != id) {
				t.Fatalf("error body %v: want JSON with the request ID %q", m, id)
			}
			if code == 405 && h.Get("Allow") == "" {
				t.Error("405 without an Allow header")
			}
		})
	}
	metrics := get(t, hs.URL+"/metrics")
	for _, m := range []string{`symchan_http_requests_total{code="404",route="unmatched"} 3`, `symchan_http_requests_total{code="405",route="unmatched"} 1`} {
		if !strings.Contains(metrics, m) {
			t.Errorf("no %q in /metrics", m)
		}
	}
	if strings.Contains(metrics, "go_goroutines") {
		t.Error("the Go collector is registered without RuntimeMetrics")
	}
	s.Drain()
	if code, _, m := do("GET", "/readyz", ""); code != 503 || m["status"] != "draining" {
		t.Errorf("/readyz while draining: %d %v", code, m)
	}
	if code, _, _ := do("POST", "/v1/jacobi", ""); code != 200 {
		t.Errorf("a job while draining: %d, want 200", code)
	}
}

// With Config.Pprof and Config.RuntimeMetrics, /debug/pprof/ and the go_*
// and process_* metrics are served.
func TestTemplateOptIns(t *testing.T) {
	cfg := testConfig()
	cfg.Pprof, cfg.RuntimeMetrics = true, true
	s, err := newServer(context.Background(), cfg, hostEngine)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer func() {
		hs.Close()
		_ = s.Close(context.Background())
	}()
	if body := get(t, hs.URL+"/debug/pprof/"); !strings.Contains(body, "goroutine") {
		t.Error("no pprof index")
	}
	if body := get(t, hs.URL+"/metrics"); !strings.Contains(body, "go_goroutines") || !strings.Contains(body, "process_") {
		t.Error("no go_* or process_* metrics")
	}
}

// get fetches url and returns its body, failing t unless it is a 200.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return string(b)
}

// Load is shed at once: past ConcurrencyPerPE jobs per PE a request gets
// 503 with Retry-After without waiting, and a call that did not start
// (ErrOverloaded, even with its deadline passed meanwhile) is a 503, not a
// 504.
func TestShedLoad(t *testing.T) {
	cfg := testConfig()
	cfg.ConcurrencyPerPE = 1
	s, hs := newTestConfig(t, cfg, hostEngine)
	slow := make(chan int, 2)
	for pe := range 2 { // one slow job per PE: both slots taken
		go func() {
			code, _ := post(t, hs.URL, "application/json", fmt.Sprintf(`{"n": 2048, "iters": 900, "pe": %d, "timeout_ms": 1000}`, pe))
			slow <- code
		}()
	}
	testhelp.WaitFor(t, "both PEs busy", func() bool {
		st := s.svc.Stats()
		return st.PEs[0].InFlight+st.PEs[1].InFlight == 2
	})
	t0 := time.Now()
	resp, err := http.Post(hs.URL+"/v1/jacobi", "application/json", strings.NewReader(`{"n": 64, "iters": 10}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a request past the admitted jobs: %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	// At once: not after a slot frees (the slow jobs hold theirs for up
	// to their 1 s deadline); the bound leaves room for two busy cores.
	if d := time.Since(t0); d > 500*time.Millisecond {
		t.Errorf("the 503 took %v, want it at once, not when a slot frees", d)
	}
	for range 2 {
		<-slow
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/v1/jacobi", nil)
	s.fail(rec, req, fmt.Errorf("%w: did not start: %w", service.ErrOverloaded, context.DeadlineExceeded))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("a call that did not start before its deadline: %d, want 503", rec.Code)
	}
}

// The access log writes one line per request: its ID, route, status,
// duration, PE and bytes; every 4xx at Info and 5xx at Warn, and one 2xx
// or 503 in AccessSample at Info, the rest at Debug.
func TestAccessLog(t *testing.T) {
	var buf syncBuffer
	cfg := testConfig()
	cfg.Logger = slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg.AccessSample = 3
	_, hs := newTestConfig(t, cfg, hostEngine)
	for range 4 {
		post(t, hs.URL, "application/json", `{"n": 8, "iters": 2, "pe": 1}`)
	}
	post(t, hs.URL, "application/json", `{"n": 1, "iters": 2}`)
	post(t, hs.URL, "application/json", `{"n": 64, "iters": 5000, "timeout_ms": 1}`)
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("a log line that is not JSON: %q", l)
		}
		if m["msg"] == "access" {
			lines = append(lines, m)
		}
	}
	// 4 successes sampled 1 in 3: the 1st and the 4th; then the 400 and the
	// 504 (or nothing: a 503, when the 1 ms deadline passed before the PE
	// took the call, is sampled as the successes are, and this one is not
	// the one in 3).
	want := []struct {
		status float64
		level  string
	}{{200, "INFO"}, {200, "INFO"}, {400, "INFO"}, {504, "WARN"}}
	if len(lines) == 3 {
		want = want[:3]
	}
	if len(lines) != len(want) {
		t.Fatalf("%d access lines, want %d: %v", len(lines), len(want), lines)
	}
	for i, w := range want {
		l := lines[i]
		if l["status"] != w.status || l["level"] != w.level || l["route"] != "/v1/jacobi" || l["request_id"] == "" || l["duration_ms"] == nil || l["bytes_out"].(float64) <= 0 {
			t.Errorf("line %d: %v; want status %v at %s with route, request ID, duration and bytes", i, l, w.status, w.level)
		}
	}
	if lines[0]["pe"] != 1.0 || lines[0]["sampled_1_in"] != 3.0 {
		t.Errorf("a sampled success: %v; want pe 1, sampled_1_in 3", lines[0])
	}
}

// syncBuffer is a bytes.Buffer for a logger written from several
// goroutines.
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

// /metrics has symchan_build_info; with PerPEMetrics the service's
// figures carry pe.
func TestBuildInfoAndPerPEMetrics(t *testing.T) {
	cfg := testConfig()
	cfg.PerPEMetrics = true
	_, hs := newTestConfig(t, cfg, hostEngine)
	post(t, hs.URL, "application/json", `{"n": 8, "iters": 2, "pe": 1}`)
	body := get(t, hs.URL+"/metrics")
	for _, m := range []string{"symchan_build_info{goversion=", `symchan_calls_total{pe="1"} 1`, `symchan_call_duration_seconds_count{pe="1"} 1`} {
		if !strings.Contains(body, m) {
			t.Errorf("no %q in /metrics", m)
		}
	}
}
