package promstats_test

import (
	"context"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/actors/service/promstats"
	"github.com/symchan/symchan/pgas"
)

func TestCollector(t *testing.T) {
	ctx := context.Background()
	svc, err := service.Start(ctx, pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20},
		func(ctx context.Context, pe *pgas.PE) (service.Actor[int64, int64], error) {
			return service.ActorFunc[int64, int64](func(ctx context.Context, x int64) (int64, error) { return x, nil }), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop(ctx)
	for range 3 {
		if _, err := svc.Call(ctx, 1, 7); err != nil {
			t.Fatal(err)
		}
	}
	c := promstats.New(svc)
	if problems, err := testutil.CollectAndLint(c); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}
	want := `
# HELP symchan_calls_total Calls answered by the PE (for a PE of another process: answers received).
# TYPE symchan_calls_total counter
symchan_calls_total{pe="0"} 0
symchan_calls_total{pe="1"} 3
# HELP symchan_up 1 while the service's world is up and takes calls, 0 otherwise.
# TYPE symchan_up gauge
symchan_up 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "symchan_calls_total", "symchan_up"); err != nil {
		t.Error(err)
	}
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if !strings.HasPrefix(mf.GetName(), "symchan_") {
			t.Errorf("metric %s lacks the symchan_ prefix", mf.GetName())
		}
	}
	if len(mfs) < 15 {
		t.Errorf("%d metric families", len(mfs))
	}
}

// Calls times every call: one observation per call in each histogram of
// its PE, lint-clean; and no metric is a gauge that only grows (the
// worlds started are a counter).
func TestCalls(t *testing.T) {
	ctx := context.Background()
	calls := promstats.NewCalls()
	svc, err := service.Start(ctx, pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20},
		func(ctx context.Context, pe *pgas.PE) (service.Actor[int64, int64], error) {
			return service.ActorFunc[int64, int64](func(ctx context.Context, x int64) (int64, error) { return x, nil }), nil
		}, service.Intercept(calls.Middleware))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop(ctx)
	for range 5 {
		if _, err := svc.Call(ctx, 1, 7); err != nil {
			t.Fatal(err)
		}
	}
	if problems, err := testutil.CollectAndLint(calls); err != nil || len(problems) > 0 {
		t.Errorf("lint: %v %v", problems, err)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(calls, promstats.New(svc))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, mf := range mfs {
		name := mf.GetName()
		if mf.GetType().String() == "GAUGE" && (strings.HasSuffix(name, "_total") || strings.Contains(name, "started")) {
			t.Errorf("%s is a gauge of something that only grows", name)
		}
		for _, m := range mf.GetMetric() {
			if h := m.GetHistogram(); h != nil && m.GetLabel()[0].GetValue() == "1" {
				counts[name] = h.GetSampleCount()
			}
		}
	}
	for _, name := range []string{"symchan_call_queue_seconds", "symchan_call_duration_seconds"} {
		if counts[name] != 5 {
			t.Errorf("%s of PE 1 counted %d calls, want 5", name, counts[name])
		}
	}
}
