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
	"time"

	"github.com/prometheus/client_golang/prometheus"
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
}

// A Server serves the endpoints of examples/service (see Handler).
type Server struct {
	cfg  Config
	svc  *service.Service[Job, Result] // nil in a pool's server
	exec executor
	log  *slog.Logger
	reg  *prometheus.Registry
	reqs *prometheus.CounterVec
	dur  *prometheus.HistogramVec
	mux  *http.ServeMux
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

// newServer is New with the solver given (the tests' faulty ones).
func newServer(ctx context.Context, cfg Config, eng engine) (*Server, error) {
	cfg = cfg.withDefaults()
	maxN := cfg.Limits.MaxN
	svc, err := service.Start(ctx, cfg.World, func(ctx context.Context, pe *pgas.PE) (service.Actor[Job, Result], error) {
		return eng(ctx, pe, maxN)
	}, service.Logger(cfg.Logger), service.Restart(cfg.Restart))
	if err != nil {
		return nil, err
	}
	s := newHTTP(cfg, serviceExec{svc})
	s.svc = svc
	s.reg.MustRegister(promstats.New(svc))
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
	s.reg.MustRegister(s.reqs, s.dur)
	s.mux = http.NewServeMux()
	s.mux.Handle("POST /v1/jacobi", s.instrument("/v1/jacobi", http.HandlerFunc(s.jacobi)))
	s.mux.Handle("GET /healthz", s.instrument("/healthz", http.HandlerFunc(s.healthz)))
	s.mux.Handle("GET /readyz", s.instrument("/readyz", http.HandlerFunc(s.readyz)))
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	return s
}

// Handler serves
//
//	POST /v1/jacobi  {"n": 256, "iters": 1000, "pe": 1, "timeout_ms": 500}
//	                 → {"pe": 1, "n": 256, "iters": 1000, "norm": …, "solve_seconds": …}
//	GET  /healthz    200 while the process serves, 503 once the world stopped for good
//	GET  /readyz     200 while the world is up, 503 otherwise
//	GET  /metrics    Prometheus text format, symchan_* metrics
func (s *Server) Handler() http.Handler { return s.mux }

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
		t0 := time.Now()
		h.ServeHTTP(rec, r)
		s.dur.WithLabelValues(route).Observe(time.Since(t0).Seconds())
		s.reqs.WithLabelValues(route, fmt.Sprint(rec.code)).Inc()
	})
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}
