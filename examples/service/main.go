// Command service is an HTTP JSON service that embeds a symchan world:
// each PE is an actor that solves Jacobi problems (in a kernel on GPUs,
// in Go on the host backend), and any HTTP handler calls it.
//
//	go build -o /tmp/service ./examples/service && /tmp/service   # host backend, 127.0.0.1:8080
//	curl -s -d '{"n":256,"iters":500}' localhost:8080/v1/jacobi
//	curl -s localhost:8080/metrics | grep ^symchan_
//
// SIGINT or SIGTERM drains it: /readyz answers 503 for -drain while it
// keeps serving (load balancers stop sending), then the listener closes,
// idle connections close, the requests in flight are answered within
// -shutdown-timeout (less a reserve for the world's stop; what is left
// then, a stalled upload or a job past it, is closed), the world stops,
// and the process exits 0, -drain plus -shutdown-timeout after the
// signal at most. It exits 1 if supervision gives up on
// the world. examples/service/README.md has the Kubernetes settings.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/symchan/symchan/examples/service/server"
	"github.com/symchan/symchan/pgas"
)

// options are the command's flags.
type options struct {
	addr, admin    string
	backend        string
	pes            int
	timeout        time.Duration
	maxN           int64
	drain, grace   time.Duration
	pprof, runtime bool
	queueDepth     int
	queueWait      time.Duration
	concurrency    int
	perPE, version bool
	accessSample   int
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		os.Exit(2) // the flag package has said why
	}
	if o.version {
		b := server.BuildInfo()
		fmt.Printf("service %s (revision %s, modified %v, %s)\n", b.Version, b.Revision, b.Modified, b.GoVersion)
		return
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", o.addr)
	if err == nil {
		err = run(ctx, ln, o, log)
	}
	if err != nil {
		log.Error("service failed", "err", err)
		os.Exit(1)
	}
}

// parseFlags parses the command's arguments (the flag package prints a
// bad one's error and the usage).
func parseFlags(args []string) (options, error) {
	var o options
	flag := flag.NewFlagSet("service", flag.ContinueOnError)
	flag.StringVar(&o.addr, "addr", "127.0.0.1:8080", "address to listen on")
	flag.StringVar(&o.admin, "admin-addr", "", "address for /metrics and /debug/pprof/ alone (empty: served on -addr)")
	flag.StringVar(&o.backend, "backend", pgas.DefaultBackend, "symchan backend: host, or cuda/nvshmem in a binary built with -tags cuda")
	flag.IntVar(&o.pes, "pes", 0, "PEs (0: "+pgas.EnvPEs+" or the backend's default: one per GPU on cuda, 8 on host)")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Second, "a request's deadline when it names none")
	flag.Int64Var(&o.maxN, "max-n", 2048, "the largest grid side a request may ask for")
	flag.DurationVar(&o.drain, "drain", 5*time.Second, "on SIGTERM, how long /readyz answers 503 while requests are still served")
	flag.DurationVar(&o.grace, "shutdown-timeout", 30*time.Second, "after the drain, how long the requests in flight and the world's stop take together (the requests: all but a third of it, at most 5 s less)")
	flag.BoolVar(&o.pprof, "pprof", false, "serve /debug/pprof/")
	flag.BoolVar(&o.runtime, "runtime-metrics", false, "add the Go runtime's and the process's metrics (go_*, process_*) to /metrics")
	flag.IntVar(&o.queueDepth, "queue-depth", 4, "jobs that may wait for one PE (0: the service's default, 128)")
	flag.DurationVar(&o.queueWait, "queue-wait", 0, "how long a job may wait to start before a 503 (0: until its deadline)")
	flag.IntVar(&o.concurrency, "concurrency", 1, "jobs admitted per PE at once (1: the one it serves; more wait); beyond, 503 at once (0: no limit)")
	flag.BoolVar(&o.perPE, "per-pe-metrics", false, "label the service's metrics with pe (about 20 series a PE; default: summed over the PEs)")
	flag.IntVar(&o.accessSample, "access-log-sample", 100, "log one in this many successful requests at Info, the others at Debug (every other answer is logged; 1: all)")
	flag.BoolVar(&o.version, "version", false, "print the build and exit")
	return o, flag.Parse(args)
}

// Timeouts of the HTTP server: a client that stalls sending its request,
// or keeps an idle connection, does not hold it for ever (a request's
// whole read is bounded by the shorter of readTimeout and
// -shutdown-timeout). A response may take as long as the longest deadline
// a request can ask (10 minutes).
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 10*time.Minute + 30*time.Second
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 64 << 10
)

// run serves on ln until ctx ends (SIGTERM), then drains and stops; it
// returns an error when the world stops for good on its own or a step of
// the stop fails.
func run(ctx context.Context, ln net.Listener, o options, log *slog.Logger) error {
	srv, err := server.New(ctx, server.Config{
		World:            pgas.Config{Backend: o.backend, PEs: o.pes},
		Limits:           server.Limits{MaxN: o.maxN},
		Timeout:          o.timeout,
		Logger:           log,
		Pprof:            o.pprof,
		SeparateAdmin:    o.admin != "",
		PerPEMetrics:     o.perPE,
		AccessSample:     o.accessSample,
		RuntimeMetrics:   o.runtime,
		QueueDepth:       o.queueDepth,
		QueueWait:        o.queueWait,
		ConcurrencyPerPE: o.concurrency,
	})
	if err != nil {
		_ = ln.Close()
		return err
	}
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       min(readTimeout, max(o.grace, time.Second)),
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	if o.admin != "" {
		// Metrics and profiles on a port of their own; no drain (the
		// scraper may read the last figures), closed at the end.
		aln, err := net.Listen("tcp", o.admin)
		if err != nil {
			_ = hs.Close()
			return errors.Join(fmt.Errorf("admin listener: %w", err), srv.Close(context.Background()))
		}
		as := &http.Server{Handler: srv.AdminHandler(), ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readHeaderTimeout,
			WriteTimeout: time.Minute, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes,
			ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
		go func() { _ = as.Serve(aln) }()
		defer as.Close()
		log.Info("admin listening", "addr", aln.Addr().String())
	}
	log.Info("listening", "addr", ln.Addr().String(), "backend", o.backend, "pes", srv.NumPEs())
	select {
	case err = <-served:
	case <-ctx.Done():
		// Not ready any more, still serving: the load balancer takes
		// this instance out before the listener closes.
		log.Info("draining", "for", o.drain)
		srv.Drain()
		select {
		case <-time.After(o.drain):
		case <-srv.Done():
		}
		log.Info("shutting down")
	case <-srv.Done():
		// Supervision gave up: exit non-zero, so that the process manager
		// starts a fresh one.
		err = fmt.Errorf("the world stopped for good: %w", srv.Err())
	}
	// Stop taking requests and answer those in flight, then stop the
	// world, all within -shutdown-timeout: the requests get it but for a
	// reserve (a third, at most 5 s), then what remains is closed (a
	// stalled upload, a job past it: the client's, not a failure of this
	// process), and the world stops in the reserve.
	end := time.Now().Add(o.grace)
	sctx, cancel := context.WithDeadline(context.Background(), end.Add(-min(o.grace/3, 5*time.Second)))
	if serr := hs.Shutdown(sctx); serr != nil {
		log.Warn("requests still in flight at the shutdown timeout: closing their connections", "err", serr)
		_ = hs.Close()
	}
	cancel()
	cctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	if cerr := srv.Close(cctx); cerr != nil {
		err = errors.Join(err, fmt.Errorf("stopping the world: %w", cerr))
	}
	log.Info("stopped")
	return err
}
