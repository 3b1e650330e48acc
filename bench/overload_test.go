package bench

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/symchan/symchan/examples/service/server"
)

var (
	overloadDuration = flag.Duration("overload.duration", 0, "how long BenchmarkServiceOverload offers its overload (10s for a report; 0 skips it)")
	overloadFactor   = flag.Float64("overload.factor", 6, "BenchmarkServiceOverload's offered rate, in multiples of the measured capacity")
	overloadJob      = flag.String("overload.job", `{"n":256,"iters":500}`, "the body of each request of the overload benchmark")
)

// BenchmarkServiceOverload offers examples/service -overload.factor times
// the rate its PEs can serve (measured first: sequential solves on every
// PE) for -overload.duration, and reports what issue 50 asks of a service
// that sheds load: the fraction of requests answered at all
// (answered-frac), the 95th percentile of the 503s' latency
// (rejected-p95-ms), the successful requests' p99 over the p99 of the
// same requests unloaded (ok-p99-ratio, the unloaded p99 measured in the
// same run at a quarter of capacity), and how many file descriptors and
// MiB of RSS the process gained from the end of the overload's first
// second to its end (the process holds vegeta's client side too). impl=shedding runs the example's default flags
// (-concurrency 1, -queue-depth 4); impl=unbounded the same server
// without them (no admission limit, QueueDepth 128, no queue-wait bound),
// as the example shipped before.
func BenchmarkServiceOverload(b *testing.B) {
	if *overloadDuration == 0 {
		b.Skip("set -overload.duration to run the overload benchmark")
	}
	for _, impl := range []struct {
		name string
		cfg  func(server.Config) server.Config
	}{
		{"shedding", func(c server.Config) server.Config { c.ConcurrencyPerPE, c.QueueDepth = 1, 4; return c }},
		{"unbounded", func(c server.Config) server.Config { return c }},
	} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			cfg := impl.cfg(serviceConfig())
			cfg.Timeout = 10 * time.Second
			s, err := server.New(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close(context.Background())
			hs := httptest.NewServer(s.Handler())
			defer hs.Close()
			capacity := measureCapacity(b, hs.URL, s.NumPEs())
			unloaded := overloadAttack(hs.URL, max(1, int(capacity/4)), 5*time.Second)
			rate := int(*overloadFactor * capacity)
			var fd1, rss1 int
			mark := time.AfterFunc(time.Second, func() { fd1, rss1 = openFDs(), rssMiB() })
			m := overloadAttack(hs.URL, rate, *overloadDuration)
			mark.Stop()
			fd2, rss2 := openFDs(), rssMiB()
			b.Logf("capacity %.1f req/s, offered %d req/s for %v: %d requests, %d answered 200, %d answered 503, %d other, %d not answered; unloaded p99 %v, 200s' p99 %v, 503s' p95 %v; fds %d → %d, RSS %d → %d MiB",
				capacity, rate, *overloadDuration, m.total, m.ok, m.rejected, m.other, m.unanswered, unloaded.okP99, m.okP99, m.rejectedP95, fd1, fd2, rss1, rss2)
			b.ReportMetric(float64(m.total-m.unanswered)/float64(max(m.total, 1)), "answered-frac")
			b.ReportMetric(float64(m.rejectedP95.Microseconds())/1e3, "rejected-p95-ms")
			if unloaded.okP99 > 0 {
				b.ReportMetric(float64(m.okP99)/float64(unloaded.okP99), "ok-p99-ratio")
			}
			b.ReportMetric(float64(fd2-fd1), "fd-growth")
			b.ReportMetric(float64(rss2-rss1), "rss-growth-MiB")
		})
	}
}

// measureCapacity is the requests per second n PEs serve: n over the
// median time of sequential solves of the job.
func measureCapacity(b *testing.B, url string, n int) float64 {
	var ds []time.Duration
	for range 9 {
		t0 := time.Now()
		resp, err := http.Post(url+"/v1/jacobi", "application/json", strings.NewReader(*overloadJob))
		if err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("a solve answered %d", resp.StatusCode)
		}
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	return float64(n) / ds[len(ds)/2].Seconds()
}

// overloadResult is what an attack's answers were.
type overloadResult struct {
	total, ok, rejected, other, unanswered int
	okP99, rejectedP95                     time.Duration
}

// overloadAttack sends the job to url at rate for d and sorts the answers.
func overloadAttack(url string, rate int, d time.Duration) overloadResult {
	target := vegeta.Target{Method: "POST", URL: url + "/v1/jacobi", Body: []byte(*overloadJob),
		Header: http.Header{"Content-Type": []string{"application/json"}}}
	const conns = 4096
	a := vegeta.NewAttacker(vegeta.Timeout(15*time.Second), vegeta.KeepAlive(true),
		vegeta.MaxWorkers(conns), vegeta.Connections(conns), vegeta.MaxConnections(conns))
	var r overloadResult
	var ok, rej []time.Duration
	for res := range a.Attack(vegeta.NewStaticTargeter(target), vegeta.Rate{Freq: rate, Per: time.Second}, d, "overload") {
		r.total++
		switch res.Code {
		case http.StatusOK:
			r.ok++
			ok = append(ok, res.Latency)
		case http.StatusServiceUnavailable:
			r.rejected++
			rej = append(rej, res.Latency)
		case 0:
			r.unanswered++
		default:
			r.other++
		}
	}
	r.okP99, r.rejectedP95 = quantile(ok, 0.99), quantile(rej, 0.95)
	return r
}

func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}

// openFDs counts this process's open file descriptors (Linux; 0 elsewhere).
func openFDs() int {
	es, _ := os.ReadDir("/proc/self/fd")
	return len(es)
}

// rssMiB is this process's resident set in MiB (Linux; 0 elsewhere).
func rssMiB() int {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.Atoi(f[1])
	return pages * os.Getpagesize() >> 20
}
