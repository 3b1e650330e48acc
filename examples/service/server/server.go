// Package server is examples/service's HTTP JSON service: a symchan world
// whose PE actors solve Jacobi problems (in kernels on GPUs, in Go on the
// host backend), behind net/http with metrics, health and readiness
// probes, request deadlines passed down to the actors, and a graceful
// shutdown. Package main wires it to flags and signals.
package server

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/actors/service/promstats"
	"github.com/symchan/symchan/pgas"
)

// Config configures a Server.
type Config struct {
	World   pgas.Config           // the world (Backend "host", "cuda" or "nvshmem")
	Limits  Limits                // what one job may ask
	Timeout time.Duration         // a request's deadline when it names none (default 10 s)
	Restart service.RestartPolicy // zero: service.DefaultRestartPolicy
	Logger  *slog.Logger          // default: slog.Default()
	// Pprof serves net/http/pprof's profiles under /debug/pprof/ (off by
	// default: a profile is expensive and tells a lot).
	Pprof bool
	// SeparateAdmin serves /metrics and /debug/pprof/ from AdminHandler
	// only, for a port of their own that the public Service does not
	// expose; otherwise Handler serves them too.
	SeparateAdmin bool
	// RuntimeMetrics adds the Go runtime's and the process's collectors
	// (go_*, process_*) to /metrics.
	RuntimeMetrics bool
	// NoCallMetrics leaves out the per-call queue and service time
	// histograms (promstats.Calls), to measure what they cost.
	NoCallMetrics bool
	// PerPEMetrics labels the service's figures and call histograms with
	// pe (promstats.PerPE): about 20 series a PE. By default they are
	// summed over the PEs, so that /metrics stays as large whatever the
	// world's size.
	PerPEMetrics bool
	// CallBuckets are the call histograms' bucket bounds in seconds
	// (promstats.Buckets); nil: 10 µs to about 80 s, doubling.
	CallBuckets []float64
	// AccessSample is how many successful (2xx) or shed (503) requests
	// the access log writes one of at Info (the others at Debug), so that
	// it can stay on under load and overload; every other answer is
	// logged, at Info (4xx) or Warn (5xx). 0: 100; 1: every request;
	// negative: those at Debug only.
	AccessSample int
	// Options are more options of the world's service: middleware around
	// every call (service.Intercept, e.g. otelstats.Middleware), context
	// carried with calls (service.Carry).
	Options []service.Option
	// Load shedding. QueueDepth and QueueWait are the service's
	// (service.QueueDepth, service.QueueWait; 0: its defaults, no wait
	// bound). ConcurrencyPerPE admits at most that many jobs per PE into
	// the service at once (one served and the rest waiting); a request
	// beyond gets 503 with Retry-After at once (0: no limit).
	QueueDepth       int
	QueueWait        time.Duration
	ConcurrencyPerPE int
}

// A Server serves the endpoints of examples/service (see Handler).
type Server struct {
	cfg      Config
	svc      *service.Service[Job, Result] // nil in a pool's server
	exec     executor
	log      *slog.Logger
	reg      *prometheus.Registry
	reqs     *prometheus.CounterVec
	dur      *prometheus.HistogramVec
	mux      *http.ServeMux
	handler  http.Handler
	admin    *http.ServeMux // /metrics, /debug/pprof/: mux itself without SeparateAdmin
	adminH   http.Handler
	draining atomic.Bool   // Drain was called: /readyz answers 503
	accessN  atomic.Uint64 // requests the access log's sampling has seen (2xx, 503)
	admit    chan struct{} // a slot per job admitted (ConcurrencyPerPE); nil: no limit
}

// New starts the world and returns a Server ready to serve.
func New(ctx context.Context, cfg Config) (*Server, error) {
	eng, err := engineFor(cfg.World.Backend)
	if err != nil {
		return nil, err
	}
	return newServer(ctx, cfg, eng)
}

// Solver returns what makes a PE's solver on backend ("" is the
// default): the actors a Server's service runs, for programs that call
// them directly (the load benchmark's anchor).
func Solver(backend string, maxN int64) (service.NewActor[Job, Result], error) {
	eng, err := engineFor(backend)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, pe *pgas.PE) (service.Actor[Job, Result], error) { return eng(ctx, pe, maxN) }, nil
}

func engineFor(backend string) (engine, error) {
	if eng, ok := engines[cmp.Or(backend, pgas.DefaultBackend)]; ok {
		return eng, nil
	}
	return nil, fmt.Errorf("server: no solver for backend %q (GPU backends need a binary built with -tags cuda)", backend)
}

func (cfg Config) withDefaults() Config {
	cfg.Limits = cfg.Limits.withDefaults()
	if cfg.AccessSample == 0 {
		cfg.AccessSample = 100
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Restart == (service.RestartPolicy{}) {
		cfg.Restart = service.DefaultRestartPolicy
	}
	return cfg
}

// promOptions are promstats' options of cfg.
func (cfg Config) promOptions() []promstats.Option {
	var o []promstats.Option
	if cfg.PerPEMetrics {
		o = append(o, promstats.PerPE())
	}
	if cfg.CallBuckets != nil {
		o = append(o, promstats.Buckets(cfg.CallBuckets...))
	}
	return o
}

// newServer is New with the solver given (the tests' faulty ones).
func newServer(ctx context.Context, cfg Config, eng engine) (*Server, error) {
	cfg = cfg.withDefaults()
	maxN := cfg.Limits.MaxN
	opts := append([]service.Option{service.Logger(cfg.Logger), service.Restart(cfg.Restart)}, cfg.Options...)
	if cfg.QueueDepth > 0 {
		opts = append(opts, service.QueueDepth(cfg.QueueDepth))
	}
	if cfg.QueueWait > 0 {
		opts = append(opts, service.QueueWait(cfg.QueueWait))
	}
	var calls *promstats.Calls
	if !cfg.NoCallMetrics {
		calls = promstats.NewCalls(cfg.promOptions()...) // per-call queue and service time
		opts = append(opts, service.Intercept(calls.Middleware))
	}
	svc, err := service.Start(ctx, cfg.World, func(ctx context.Context, pe *pgas.PE) (service.Actor[Job, Result], error) {
		return eng(ctx, pe, maxN)
	}, opts...)
	if err != nil {
		return nil, err
	}
	s := newHTTP(cfg, serviceExec{svc})
	s.svc = svc
	if cfg.ConcurrencyPerPE > 0 {
		s.admit = make(chan struct{}, cfg.ConcurrencyPerPE*svc.NumPEs())
	}
	s.reg.MustRegister(promstats.New(svc, cfg.promOptions()...))
	if calls != nil {
		s.reg.MustRegister(calls)
	}
	return s, nil
}

// newHTTP makes the Server's HTTP side around exec.
func newHTTP(cfg Config, exec executor) *Server {
	s := &Server{cfg: cfg, exec: exec, log: cfg.Logger, reg: prometheus.NewRegistry(),
		reqs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "symchan_http_requests_total", Help: "HTTP requests answered, by route and status code.",
		}, []string{"route", "code"}),
		dur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "symchan_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route.",
			Buckets: prometheus.ExponentialBuckets(50e-6, 2, 20),
		}, []string{"route"}),
	}
	s.reg.MustRegister(s.reqs, s.dur, buildGauge())
	if cfg.RuntimeMetrics {
		s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	s.mux = http.NewServeMux()
	s.mux.Handle("POST /v1/jacobi", s.instrument("/v1/jacobi", http.HandlerFunc(s.jacobi)))
	s.mux.Handle("GET /healthz", s.instrument("/healthz", http.HandlerFunc(s.healthz)))
	s.mux.Handle("GET /readyz", s.instrument("/readyz", http.HandlerFunc(s.readyz)))
	s.admin = s.mux
	if cfg.SeparateAdmin {
		s.admin = http.NewServeMux()
	}
	s.admin.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	if cfg.Pprof {
		s.admin.HandleFunc("GET /debug/pprof/", pprof.Index)
		s.admin.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		s.admin.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		s.admin.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		s.admin.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	s.handler = withRequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.route(s.mux, w, r) }))
	s.adminH = withRequestID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.route(s.admin, w, r) }))
	return s
}

// Handler serves
//
//	POST /v1/jacobi  {"n": 256, "iters": 1000, "pe": 1, "timeout_ms": 500}
//	                 → {"pe": 1, "n": 256, "iters": 1000, "norm": …, "solve_seconds": …}
//	GET  /healthz    200 while the process serves, 503 once the world stopped for good
//	GET  /readyz     200 while the world is up and the server not draining, 503 otherwise
//	GET  /metrics    Prometheus text format, symchan_* metrics (go_*, process_* with
//	                 Config.RuntimeMetrics)
//	GET  /debug/pprof/  with Config.Pprof
//
// (/metrics and /debug/pprof/ from AdminHandler alone with
// Config.SeparateAdmin).
//
// Every answer carries an X-Request-ID (the client's, when it sent a
// sane one); an error's JSON body repeats it, and the log line of a
// failure the client cannot see the detail of names it too. An unknown
// path or method gets a JSON 404 or 405, counted as route "unmatched".
func (s *Server) Handler() http.Handler { return s.handler }

// AdminHandler serves /metrics and /debug/pprof/ (with Config.Pprof), as
// Handler does without Config.SeparateAdmin: for a port that only the
// cluster's scrapers and operators reach.
func (s *Server) AdminHandler() http.Handler { return s.adminH }

// Drain makes /readyz answer 503 from now on while the server keeps
// serving: on SIGTERM a process drains for a while, so that load
// balancers stop sending before the listener closes, then shuts down.
func (s *Server) Drain() { s.draining.Store(true) }

// route serves r with the route of mux that matches it, or a JSON 404 or
// 405.
func (s *Server) route(mux *http.ServeMux, w http.ResponseWriter, r *http.Request) {
	h, pattern := mux.Handler(r)
	if pattern != "" {
		h.ServeHTTP(w, r)
		return
	}
	// No route: the mux's own answer says 404 or 405 (and its Allow
	// header); the body becomes JSON.
	rec := &headerOnly{header: http.Header{}, code: http.StatusNotFound}
	h.ServeHTTP(rec, r)
	if allow := rec.header.Get("Allow"); allow != "" {
		w.Header().Set("Allow", allow)
	}
	s.instrument("unmatched", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		msg := "no such path"
		if rec.code == http.StatusMethodNotAllowed {
			msg = "method " + r.Method + " not allowed here"
		}
		s.writeError(w, r, &httpError{rec.code, msg, ""})
	})).ServeHTTP(w, r)
}

// headerOnly records the status and headers a handler answers with and
// drops its body.
type headerOnly struct {
	header http.Header
	code   int
}

func (h *headerOnly) Header() http.Header         { return h.header }
func (h *headerOnly) Write(b []byte) (int, error) { return len(b), nil }
func (h *headerOnly) WriteHeader(code int)        { h.code = code }

// Service is the server's symchan service (nil in a pool's server).
func (s *Server) Service() *service.Service[Job, Result] { return s.svc }

// NumPEs is the number of PEs that solve.
func (s *Server) NumPEs() int { return s.exec.numPEs() }

// Close stops the world; call it after http.Server.Shutdown has answered
// the requests in flight.
func (s *Server) Close(ctx context.Context) error { return s.exec.close(ctx) }

// Done is closed once the world has stopped for good: after Close, or
// when supervision gave up (the restart policy was exhausted). A process
// should then exit; /healthz answers 503 from then on.
func (s *Server) Done() <-chan struct{} { return s.exec.done() }

// Err is why the world stopped, once Done is closed (nil after a clean
// Close).
func (s *Server) Err() error { return s.exec.err() }

// An executor runs jobs: the symchan service, or the anchor's pool.
type executor interface {
	call(ctx context.Context, pe int, j Job) (Result, error) // pe < 0: any
	numPEs() int
	state() string // "ready" while it takes jobs
	close(ctx context.Context) error
	done() <-chan struct{} // closed once it stopped for good
	err() error            // why, once done
}

type serviceExec struct{ svc *service.Service[Job, Result] }

func (e serviceExec) call(ctx context.Context, pe int, j Job) (Result, error) {
	if pe < 0 {
		return e.svc.CallAny(ctx, j)
	}
	return e.svc.Call(ctx, pe, j)
}

func (e serviceExec) numPEs() int                     { return e.svc.NumPEs() }
func (e serviceExec) state() string                   { return e.svc.State().String() }
func (e serviceExec) close(ctx context.Context) error { return e.svc.Stop(ctx) }
func (e serviceExec) done() <-chan struct{}           { return e.svc.Done() }
func (e serviceExec) err() error                      { return e.svc.Err() }

// instrument counts and times route's requests.
func (s *Server) instrument(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		acc := &access{pe: -1}
		t0 := time.Now()
		h.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), accessKey{}, acc)))
		took := time.Since(t0)
		s.dur.WithLabelValues(route).Observe(took.Seconds())
		s.reqs.WithLabelValues(route, fmt.Sprint(rec.code)).Inc()
		s.accessLog(r, route, rec, acc, took)
	})
}

// An access is what a handler adds to its request's access log line.
type access struct {
	pe int // the PE that served it; -1: none
}

type accessKey struct{}

// setPE records, for the access log, the PE that served r.
func setPE(r *http.Request, pe int) {
	if a, ok := r.Context().Value(accessKey{}).(*access); ok {
		a.pe = pe
	}
}

// accessLog writes r's access log line: request ID, method, route,
// status, duration, PE and bytes, levelled and sampled (AccessSample).
func (s *Server) accessLog(r *http.Request, route string, rec *statusRecorder, acc *access, took time.Duration) {
	level := slog.LevelInfo
	sample := s.cfg.AccessSample
	sampled := rec.code < 300 || rec.code == http.StatusServiceUnavailable
	switch {
	case !sampled && rec.code >= 500:
		level = slog.LevelWarn
	case !sampled:
	case sample < 0 || sample > 1 && s.accessN.Add(1)%uint64(sample) != 1:
		level = slog.LevelDebug
	}
	ctx := r.Context()
	if !s.log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String("request_id", requestID(r)), slog.String("method", r.Method), slog.String("route", route),
		slog.Int("status", rec.code), slog.Float64("duration_ms", float64(took.Microseconds())/1e3),
		slog.Int64("bytes_in", max(r.ContentLength, 0)), slog.Int64("bytes_out", rec.bytes),
	}
	if acc.pe >= 0 {
		attrs = append(attrs, slog.Int("pe", acc.pe))
	}
	if level == slog.LevelInfo && sampled && sample > 1 {
		attrs = append(attrs, slog.Int("sampled_1_in", sample))
	}
	s.log.LogAttrs(ctx, level, "access", attrs...)
}

type statusRecorder struct {
	http.ResponseWriter
	code  int
	bytes int64
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}
