package otelstats_test

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/actors/service/otelstats"
	"github.com/symchan/symchan/pgas"
)

// A call's span is a child of the caller's, with its PE; a failed call
// marks its span; the histograms count every call; Observe reports the
// service's figures; the carrier's bytes bring the trace back.
func TestMiddlewareAndObserve(t *testing.T) {
	ctx := context.Background()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	mw, err := otelstats.Middleware(mp, tp)
	if err != nil {
		t.Fatal(err)
	}
	prop := propagation.TraceContext{}
	svc, err := service.Start(ctx, pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20},
		func(ctx context.Context, pe *pgas.PE) (service.Actor[int64, int64], error) {
			return service.ActorFunc[int64, int64](func(ctx context.Context, x int64) (int64, error) {
				if x < 0 {
					return 0, errors.New("negative")
				}
				return x, nil
			}), nil
		}, service.Intercept(mw), service.Carry(otelstats.Carrier(prop)))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop(ctx)
	reg, err := otelstats.Observe(mp, svc)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Unregister()

	parentCtx, parent := tp.Tracer("test").Start(ctx, "handler")
	for _, x := range []int64{1, 2, -1} {
		_, _ = svc.Call(parentCtx, 1, x)
	}
	parent.End()
	var calls, failed int
	for _, s := range spans.Ended() {
		if s.Name() != "symchan.call" {
			continue
		}
		calls++
		if s.Parent().SpanID() != parent.SpanContext().SpanID() || s.Parent().TraceID() != parent.SpanContext().TraceID() {
			t.Errorf("span %s is not the caller's child", s.SpanContext().SpanID())
		}
		if s.Status().Code.String() == "Error" {
			failed++
		}
		if s.SpanKind() != trace.SpanKindInternal {
			t.Errorf("span of a call made in this process is of kind %v, want INTERNAL", s.SpanKind())
		}
	}
	if calls != 3 || failed != 1 {
		t.Errorf("%d call spans, %d failed; want 3 and 1", calls, failed)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = true
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok {
				var n uint64
				for _, dp := range h.DataPoints {
					n += dp.Count
				}
				if n != 3 {
					t.Errorf("%s counted %d calls, want 3", m.Name, n)
				}
			}
		}
	}
	for _, name := range []string{"symchan.call.queue_wait", "symchan.call.duration", "symchan.up", "symchan.restarts", "symchan.calls", "symchan.calls.queued", "symchan.calls.in_flight"} {
		if !got[name] {
			t.Errorf("no %s", name)
		}
	}

	// The carrier: what one side injects, the other extracts.
	c := otelstats.Carrier(prop)
	b := c.Inject(parentCtx)
	if len(b) == 0 {
		t.Fatal("the carrier injected nothing for a traced context")
	}
	back := trace.SpanContextFromContext(c.Extract(ctx, b))
	if back.TraceID() != parent.SpanContext().TraceID() || back.SpanID() != parent.SpanContext().SpanID() {
		t.Errorf("extracted %v, want the caller's span %v", back, parent.SpanContext())
	}
	if trace.SpanContextFromContext(c.Extract(ctx, []byte("garbage\nx=unquoted"))).IsValid() {
		t.Error("garbage extracted as a span")
	}
}
