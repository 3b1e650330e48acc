// Command service is an HTTP JSON service that embeds a symchan world:
// each PE is an actor that solves Jacobi problems (in a kernel on GPUs,
// in Go on the host backend), and any HTTP handler calls it.
//
//	go run ./examples/service                      # host backend, 127.0.0.1:8080
//	curl -s -d '{"n":256,"iters":500}' localhost:8080/v1/jacobi
//	curl -s localhost:8080/metrics | grep ^symchan_
//
// SIGINT or SIGTERM shuts it down gracefully: the listener closes, every
// request in flight is answered, then the world stops.
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

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	backend := flag.String("backend", pgas.DefaultBackend, "symchan backend: host, or cuda/nvshmem in a binary built with -tags cuda")
	pes := flag.Int("pes", 0, "PEs (0: "+pgas.EnvPEs+" or the backend's default: one per GPU on cuda, 8 on host)")
	timeout := flag.Duration("timeout", 10*time.Second, "a request's deadline when it names none")
	maxN := flag.Int64("max-n", 2048, "the largest grid side a request may ask for")
	grace := flag.Duration("shutdown-timeout", 30*time.Second, "how long a shutdown waits for requests in flight")
	flag.Parse()
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	if err := run(*addr, *backend, *pes, *timeout, *maxN, *grace, log); err != nil {
		log.Error("service failed", "err", err)
		os.Exit(1)
	}
}

func run(addr, backend string, pes int, timeout time.Duration, maxN int64, grace time.Duration, log *slog.Logger) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := server.New(ctx, server.Config{
		World:   pgas.Config{Backend: backend, PEs: pes},
		Limits:  server.Limits{MaxN: maxN},
		Timeout: timeout,
		Logger:  log,
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = srv.Close(context.Background())
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "backend", backend, "pes", srv.NumPEs())
	select {
	case err = <-served:
	case <-ctx.Done():
		log.Info("shutting down")
	case <-srv.Done():
		// Supervision gave up: exit non-zero, so that the process manager
		// starts a fresh one.
		err = fmt.Errorf("the world stopped for good: %w", srv.Err())
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	// Stop taking requests and answer those in flight, then stop the world.
	if serr := hs.Shutdown(sctx); serr != nil {
		err = errors.Join(err, fmt.Errorf("http shutdown: %w", serr))
	}
	if cerr := srv.Close(sctx); cerr != nil {
		err = errors.Join(err, fmt.Errorf("stopping the world: %w", cerr))
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	log.Info("stopped")
	return err
}
