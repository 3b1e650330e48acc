package bench

import (
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/symchan/symchan/actors/service/otelstats"
	"github.com/symchan/symchan/actors/service/promstats"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/examples/service/server"
	"github.com/symchan/symchan/pgas"
)

var (
	serviceBackend = flag.String("service.backend", "host", "backend of the service benchmarks (cuda, nvshmem: a -tags cuda binary)")
	servicePEs     = flag.Int("service.pes", 2, "PEs of the service benchmarks (0: the backend's default)")
	serviceJob     = flag.String("service.job", `{"n":64,"iters":20}`, "the body of each request of the load benchmark")
	loadDuration   = flag.Duration("load.duration", 0, "how long BenchmarkServiceLoad drives each rate (at least 20s for a report; 0 skips it)")
	loadStart      = flag.Int("load.start", 500, "BenchmarkServiceLoad's first rate, in requests/s")
	loadSLO        = flag.Duration("load.slo", 50*time.Millisecond, "the p99 latency a sustained rate keeps within")
	loadResolution = flag.Float64("load.resolution", 1.0/8, "the sweep stops when the gap between the best sustained rate and the lowest failed one is at most this fraction of the latter")
)

func serviceConfig() server.Config {
	return server.Config{
		World:  pgas.Config{Backend: *serviceBackend, PEs: *servicePEs},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// BenchmarkServiceLoad drives examples/service's POST /v1/jacobi with
// vegeta at rising rates for -load.duration each (doubling until a rate
// is not sustained, then two bisection steps), and reports the highest
// sustained rate (99.9% of the requests answered 200, throughput ≥ 95%
// of the rate, p99 within -load.slo) with its latency percentiles. Anchor: the same endpoint served
// by a plain Go worker pool (server.NewPool: a goroutine per PE calling
// the same solver, fed by a channel). Run it with bench/load.sh.
func BenchmarkServiceLoad(b *testing.B) {
	if *loadDuration == 0 {
		b.Skip("set -load.duration (bench/load.sh) to run the load sweep")
	}
	// The service as examples/service ships it (per-call histograms), with
	// no observability at all, and with OpenTelemetry's tracing and
	// metrics as well: what they cost at the highest rate sustained.
	otelMW, err := otelstats.Middleware(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())), sdktrace.NewTracerProvider())
	if err != nil {
		b.Fatal(err)
	}
	bare := func(cfg server.Config) server.Config { cfg.NoCallMetrics = true; return cfg }
	withOTel := func(cfg server.Config) server.Config {
		cfg.Options = []service.Option{service.Intercept(otelMW), service.Carry(otelstats.Carrier(propagation.TraceContext{}))}
		return cfg
	}
	same := func(cfg server.Config) server.Config { return cfg }
	for _, impl := range []struct {
		name string
		make func(context.Context, server.Config) (*server.Server, error)
		cfg  func(server.Config) server.Config
	}{
		{"symchan", server.New, same},
		{"symchan-bare", server.New, bare},
		{"symchan-otel", server.New, withOTel},
		{"workerpool", server.NewPool, same},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			s, err := impl.make(context.Background(), impl.cfg(serviceConfig()))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close(context.Background())
			hs := httptest.NewServer(s.Handler())
			defer hs.Close()
			best, rate := sweep(b, hs.URL)
			if best == nil {
				b.Fatalf("not even %d requests/s were sustained", *loadStart)
			}
			b.ReportMetric(float64(rate), "max-req/s")
			b.ReportMetric(float64(best.Latencies.P50.Microseconds()), "p50-µs")
			b.ReportMetric(float64(best.Latencies.P99.Microseconds()), "p99-µs")
			b.ReportMetric(float64(best.Latencies.Quantile(0.999).Microseconds()), "p99.9-µs")
		})
	}
}

// sweep finds the highest rate that url sustains.
func sweep(b *testing.B, url string) (best *vegeta.Metrics, bestRate int) {
	bad := 0
	for rate := *loadStart; ; {
		m := attack(url, rate, *loadDuration)
		ok := m.Success >= 0.999 && m.Throughput >= 0.95*float64(rate) && m.Latencies.P99 <= *loadSLO
		b.Logf("%6d req/s offered: %8.0f/s answered, success %.4f, p50 %v, p99 %v, p99.9 %v, sustained %v",
			rate, m.Throughput, m.Success, m.Latencies.P50, m.Latencies.P99, m.Latencies.Quantile(0.999), ok)
		if len(m.Errors) > 0 {
			b.Logf("        errors: %.300s", strings.Join(m.Errors, "; "))
		}
		if ok {
			best, bestRate = m, rate
		} else {
			bad = rate
		}
		time.Sleep(2 * time.Second) // the last step's requests leave the server
		switch {
		case bad == 0:
			rate *= 2
		case float64(bad-bestRate) <= *loadResolution*float64(bad) || bestRate == 0:
			return best, bestRate
		default:
			rate = (bestRate + bad) / 2
		}
	}
}

// attack sends POSTs of the job to url at rate for d.
func attack(url string, rate int, d time.Duration) *vegeta.Metrics {
	target := vegeta.Target{Method: "POST", URL: url + "/v1/jacobi", Body: []byte(*serviceJob),
		Header: http.Header{"Content-Type": []string{"application/json"}}}
	// Bounded concurrency: past saturation the rate is not kept up (and
	// the step fails), instead of every late request opening a socket.
	const conns = 1024
	a := vegeta.NewAttacker(vegeta.Timeout(15*time.Second), vegeta.KeepAlive(true),
		vegeta.MaxWorkers(conns), vegeta.Connections(conns), vegeta.MaxConnections(conns))
	var m vegeta.Metrics
	for r := range a.Attack(vegeta.NewStaticTargeter(target), vegeta.Rate{Freq: rate, Per: time.Second}, d, "load") {
		m.Add(r)
	}
	m.Close()
	return &m
}

// BenchmarkServiceCall: the cost of a request's path through the service
// (a Call from a goroutine that is not a PE → the actor on a PE → the
// reply) beside a direct call of the same solver on the same PE
// (impl=direct), for the -service.job solve. Their difference is what the
// service adds per request.
func BenchmarkServiceCall(b *testing.B) {
	job := parseJob(b)
	newActor, err := server.Solver(*serviceBackend, job.N)
	if err != nil {
		b.Fatal(err)
	}
	cfg := pgas.Config{Backend: *serviceBackend, PEs: *servicePEs}
	// The observability's cost: the same calls with promstats' histograms,
	// and with OpenTelemetry's span and histograms (its SDK, sampling
	// every span, exporting none).
	otelMW, err := otelstats.Middleware(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())), sdktrace.NewTracerProvider())
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []struct {
		impl string
		opts []service.Option
	}{
		{"symchan", nil},
		{"symchan-promstats", []service.Option{service.Intercept(promstats.NewCalls().Middleware)}},
		{"symchan-otel", []service.Option{service.Intercept(otelMW), service.Carry(otelstats.Carrier(propagation.TraceContext{}))}},
	} {
		b.Run("impl="+v.impl, func(b *testing.B) {
			svc, err := service.Start(context.Background(), cfg, newActor, v.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer svc.Stop(context.Background())
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				if _, err := svc.Call(ctx, 0, job); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("impl=direct", func(b *testing.B) {
		err := pgas.Run(context.Background(), cfg, func(ctx context.Context, pe *pgas.PE) error {
			if pe.ID() != 0 {
				return nil
			}
			a, err := newActor(ctx, pe)
			if err != nil {
				return err
			}
			if c, ok := a.(io.Closer); ok {
				defer c.Close()
			}
			b.ResetTimer()
			for range b.N {
				if _, err := a.Serve(ctx, job); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	})
}

// parseJob reads -service.job, the endpoint's JSON.
func parseJob(b *testing.B) server.Job {
	var j struct{ N, Iters int64 }
	if err := json.Unmarshal([]byte(*serviceJob), &j); err != nil || j.N == 0 || j.Iters == 0 {
		b.Fatalf("-service.job %s: want {\"n\":N,\"iters\":I}: %v", *serviceJob, err)
	}
	return server.Job{N: j.N, Iters: j.Iters}
}
