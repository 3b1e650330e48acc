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

// The figures summed over the PEs by default (series flat in the PEs), or
// labelled pe with PerPE; lint-clean, every name prefixed symchan_.
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
	const head = `
# HELP symchan_calls_total Calls answered by the PE (for a PE of another process: answers received).
# TYPE symchan_calls_total counter
`
	const up = `# HELP symchan_up 1 while the service's world is up and takes calls, 0 otherwise.
# TYPE symchan_up gauge
symchan_up 1
`
	cases := []struct {
		name   string
		opts   []promstats.Option
		want   string
		series int // per-PE metric families' series
	}{
		{"summed", nil, head + "symchan_calls_total 3\n" + up, 1},
		{"per PE", []promstats.Option{promstats.PerPE()}, head + "symchan_calls_total{pe=\"0\"} 0\nsymchan_calls_total{pe=\"1\"} 3\n" + up, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			col := promstats.New(svc, c.opts...)
			if problems, err := testutil.CollectAndLint(col); err != nil || len(problems) > 0 {
				t.Errorf("lint: %v %v", problems, err)
			}
			if err := testutil.CollectAndCompare(col, strings.NewReader(c.want), "symchan_calls_total", "symchan_up"); err != nil {
				t.Error(err)
			}
			reg := prometheus.NewPedanticRegistry()
			if err := reg.Register(col); err != nil {
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
				if mf.GetName() == "symchan_inbox_depth" && len(mf.GetMetric()) != c.series {
					t.Errorf("symchan_inbox_depth has %d series, want %d", len(mf.GetMetric()), c.series)
				}
			}
			if len(mfs) < 15 {
				t.Errorf("%d metric families", len(mfs))
			}
		})
	}
}

// Calls times every call: one observation per call in each histogram (of
// its PE, with PerPE), in the buckets asked for, lint-clean; and no
// metric is a gauge that only grows (the worlds started are a counter).
func TestCalls(t *testing.T) {
	cases := []struct {
		name    string
		opts    []promstats.Option
		label   string // the PE label of the series counted ("" summed)
		buckets int
	}{
		{"summed", nil, "", 23},
		{"per PE", []promstats.Option{promstats.PerPE()}, "1", 23},
		{"buckets", []promstats.Option{promstats.Buckets(0.001, 0.01, 0.1, 1)}, "", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			calls := promstats.NewCalls(c.opts...)
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
			reg.MustRegister(calls, promstats.New(svc, c.opts...))
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
					h := m.GetHistogram()
					if h == nil {
						continue
					}
					label := ""
					if len(m.GetLabel()) > 0 {
						label = m.GetLabel()[0].GetValue()
					}
					if label == c.label {
						counts[name] = h.GetSampleCount()
					}
					if len(h.GetBucket()) != c.buckets {
						t.Errorf("%s has %d buckets, want %d", name, len(h.GetBucket()), c.buckets)
					}
				}
			}
			for _, name := range []string{"symchan_call_queue_seconds", "symchan_call_duration_seconds"} {
				if counts[name] != 5 {
					t.Errorf("%s counted %d calls, want 5", name, counts[name])
				}
			}
		})
	}
}
