// Package otelstats exports a symchan service to OpenTelemetry: a span and
// two latency histograms per call (a service.Middleware), the trace's
// context carried with calls between processes (a service.Carrier), and
// the service's figures as observable instruments. It is a module of its
// own, so that programs that do not use OpenTelemetry do not depend on it.
//
//	mw, err := otelstats.Middleware(otel.GetMeterProvider(), otel.GetTracerProvider())
//	svc, err := service.Start(ctx, cfg, newActor,
//		service.Intercept(mw), service.Carry(otelstats.Carrier(otel.GetTextMapPropagator())))
//	reg, err := otelstats.Observe(otel.GetMeterProvider(), svc)
//	defer reg.Unregister()
//
// One trace then shows the caller's span (an HTTP handler's), the call's
// wait for its PE and the PE's work, whichever process serves it.
package otelstats

import (
	"bufio"
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/symchan/symchan/actors/service"
)

// scope is the instrumentation scope of the meters and tracers.
const scope = "github.com/symchan/symchan/actors/service"

// peKey is the attribute that names a call's PE.
const peKey = attribute.Key("symchan.pe")

// Middleware returns a service.Middleware that records every call: a
// span "symchan.call" (a child of the caller's span, across processes
// too with Carrier), the histogram symchan.call.queue_wait (seconds a
// call made in this process waited for its PE) and symchan.call.duration
// (seconds the PE took), both with the attribute symchan.pe. The span is
// of kind SERVER for a call from another process and INTERNAL for one made
// in this process (it runs inside the caller's own span). A call that
// ends with an error sets the span's status.
func Middleware(mp metric.MeterProvider, tp trace.TracerProvider) (service.Middleware, error) {
	meter := mp.Meter(scope)
	queue, err := meter.Float64Histogram("symchan.call.queue_wait", metric.WithUnit("s"),
		metric.WithDescription("Time a call made in this process waited for its PE to take it."))
	if err != nil {
		return nil, err
	}
	dur, err := meter.Float64Histogram("symchan.call.duration", metric.WithUnit("s"),
		metric.WithDescription("Time a PE took to serve a call."))
	if err != nil {
		return nil, err
	}
	tracer := tp.Tracer(scope)
	var perPE sync.Map // PE → metric.MeasurementOption: an attribute set made once
	return func(ctx context.Context, c service.CallInfo, next func(context.Context) error) error {
		o, ok := perPE.Load(c.PE)
		if !ok {
			o, _ = perPE.LoadOrStore(c.PE, metric.WithAttributeSet(attribute.NewSet(peKey.Int(c.PE))))
		}
		pe := o.(metric.MeasurementOption)
		if !c.Sent.IsZero() {
			queue.Record(ctx, c.Started.Sub(c.Sent).Seconds(), pe)
		}
		// A call from another process arrives there (a server span); one
		// made in this process is work inside the caller's own span.
		kind := trace.SpanKindInternal
		if c.Remote {
			kind = trace.SpanKindServer
		}
		ctx, span := tracer.Start(ctx, "symchan.call", trace.WithSpanKind(kind),
			trace.WithAttributes(peKey.Int(c.PE), attribute.Bool("symchan.remote", c.Remote)))
		err := next(ctx)
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
		dur.Record(ctx, time.Since(c.Started).Seconds(), pe)
		return err
	}, nil
}

// Carrier returns a service.Carrier that carries what p propagates (a
// trace's context, baggage) with the calls between processes, as
// key=value lines.
func Carrier(p propagation.TextMapPropagator) service.Carrier { return carrier{p} }

type carrier struct{ p propagation.TextMapPropagator }

func (c carrier) Inject(ctx context.Context) []byte {
	m := propagation.MapCarrier{}
	c.p.Inject(ctx, m)
	var b bytes.Buffer
	for _, k := range m.Keys() {
		b.WriteString(k + "=" + strconv.Quote(m.Get(k)) + "\n")
	}
	return b.Bytes()
}

func (c carrier) Extract(ctx context.Context, b []byte) context.Context {
	m := propagation.MapCarrier{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if uv, err := strconv.Unquote(v); ok && err == nil {
			m.Set(k, uv)
		}
	}
	return c.p.Extract(ctx, m)
}

// A Source is what Observe reads: any *service.Service.
type Source interface {
	Stats() service.Stats
}

// Observe registers, on mp's meter, observable instruments of src's
// figures, read at each collection: symchan.up (1 while the world takes
// calls), symchan.restarts and symchan.calls (counters; calls per PE),
// symchan.calls.queued and symchan.calls.in_flight (per PE). Unregister the
// returned registration when src is gone.
func Observe(mp metric.MeterProvider, src Source) (metric.Registration, error) {
	meter := mp.Meter(scope)
	up, err := meter.Int64ObservableGauge("symchan.up", metric.WithDescription("1 while the service's world is up and takes calls."))
	if err != nil {
		return nil, err
	}
	restarts, err := meter.Int64ObservableCounter("symchan.restarts", metric.WithDescription("Restarts of the world after a PE failed."))
	if err != nil {
		return nil, err
	}
	calls, err := meter.Int64ObservableCounter("symchan.calls", metric.WithDescription("Calls answered by the PE."))
	if err != nil {
		return nil, err
	}
	depth, err := meter.Int64ObservableGauge("symchan.calls.queued", metric.WithDescription("Calls waiting in the PE's inbox."))
	if err != nil {
		return nil, err
	}
	inFlight, err := meter.Int64ObservableGauge("symchan.calls.in_flight", metric.WithDescription("Calls to the PE under way."))
	if err != nil {
		return nil, err
	}
	return meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		st := src.Stats()
		var u int64
		if st.State == service.StateReady {
			u = 1
		}
		o.ObserveInt64(up, u)
		o.ObserveInt64(restarts, int64(st.Restarts))
		for _, p := range st.PEs {
			pe := metric.WithAttributes(peKey.Int(p.PE))
			o.ObserveInt64(calls, int64(p.Calls), pe)
			o.ObserveInt64(depth, int64(p.Queued), pe)
			o.ObserveInt64(inFlight, int64(p.InFlight), pe)
		}
		return nil
	}, up, restarts, calls, depth, inFlight)
}
