// Package promstats exports a symchan service's figures to Prometheus
// (github.com/prometheus/client_golang). It is a module of its own, so
// that programs that do not export metrics do not depend on the client.
//
//	calls := promstats.NewCalls()
//	svc, err := service.Start(ctx, cfg, newActor, service.Intercept(calls.Middleware))
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(promstats.New(svc), calls)
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// Every metric's name starts with symchan_; counters end in _total and
// gauges are values that go up and down. By default the PEs' figures are
// summed over the PEs (and the call histograms hold every PE's calls), so
// that the series stay as many whatever the world's size; with PerPE each
// carries the label pe instead (about 20 series a PE). A Collector reads
// service.Service.Stats at each scrape (counters cumulative over the
// service's restarts); Calls, a middleware, times every call.
package promstats

import (
	"context"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/symchan/symchan/actors/service"
)

// A Source is what a Collector reads: any *service.Service.
type Source interface {
	Stats() service.Stats
}

// A Collector is a prometheus.Collector of a service's figures.
type Collector struct {
	src Source
	cfg config
}

// An Option configures a Collector or Calls.
type Option func(*config)

type config struct {
	perPE   bool
	buckets []float64
}

// PerPE labels every PE's figures with pe instead of summing them over
// the PEs: the series grow with the world (opt in where the PEs are few).
func PerPE() Option { return func(c *config) { c.perPE = true } }

// Buckets sets the upper bounds (seconds) of the call histograms'
// buckets (Calls), increasing; the default is 10 µs to about 80 s,
// doubling.
func Buckets(b ...float64) Option {
	return func(c *config) { c.buckets = append([]float64(nil), b...) }
}

func configOf(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c
}

// New returns a Collector of src's figures.
func New(src Source, opts ...Option) *Collector { return &Collector{src: src, cfg: configOf(opts)} }

type metric struct {
	desc  [2]*prometheus.Desc // summed over the PEs, and labelled pe
	kind  prometheus.ValueType
	value func(p service.PEStats) float64
}

var (
	upDesc         = prometheus.NewDesc("symchan_up", "1 while the service's world is up and takes calls, 0 otherwise.", nil, nil)
	restartsDesc   = prometheus.NewDesc("symchan_restarts_total", "Restarts of the world after a PE failed.", nil, nil)
	generationDesc = prometheus.NewDesc("symchan_worlds_started_total", "Worlds started so far (1 before the first restart).", nil, nil)
	anyDepthDesc   = prometheus.NewDesc("symchan_any_inbox_depth", "CallAny's calls waiting for a local PE to take them.", nil, nil)
	anyRejDesc     = prometheus.NewDesc("symchan_any_calls_rejected_total", "CallAny's calls whose deadline passed before they got into the inbox (overload).", nil, nil)
	anyAbDesc      = prometheus.NewDesc("symchan_any_calls_abandoned_total", "CallAny's calls whose caller gave up while they waited for a PE.", nil, nil)
	pe             = []string{"pe"}

	perPE = []metric{
		{desc("calls_total", "Calls answered by the PE (for a PE of another process: answers received)."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Calls) }},
		{desc("call_errors_total", "Calls answered with an error."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Errors) }},
		{desc("calls_in_flight", "Calls to the PE under way: waiting in its inbox or being served."), prometheus.GaugeValue,
			func(p service.PEStats) float64 { return float64(p.InFlight) }},
		{desc("inbox_depth", "Calls and messages waiting in the PE's own inbox (CallAny's: symchan_any_inbox_depth)."), prometheus.GaugeValue,
			func(p service.PEStats) float64 { return float64(p.Queued + p.Messages.Queued) }},
		{desc("calls_rejected_total", "Calls whose deadline passed before the PE took them (overload)."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Rejected) }},
		{desc("calls_abandoned_total", "Calls whose caller gave up after the PE took them."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Abandoned) }},
		{desc("pe_failures_total", "Times the PE failed (a panic, a fatal error)."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Failures) }},
		{desc("messages_sent_total", "Messages the PE sent on the service's mailbox."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Messages.Sent) }},
		{desc("message_bytes_sent_total", "Payload bytes of those messages."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Messages.SentBytes) }},
		{desc("messages_received_total", "Messages the PE received on the service's mailbox."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Messages.Received) }},
		{desc("message_bytes_received_total", "Payload bytes of those messages."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Messages.ReceivedBytes) }},
		{desc("credit_waits_total", "Sends that waited for the receiver to free a slot."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Messages.CreditWaits) }},
		{desc("credit_wait_seconds_total", "Time those sends waited."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return p.Messages.CreditWaitTime.Seconds() }},
		{desc("receive_waits_total", "Receives that found nothing ready and waited."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Messages.Waits) }},
		{desc("receive_wakeups_total", "Waits that ended with messages."), prometheus.CounterValue,
			func(p service.PEStats) float64 { return float64(p.Messages.Wakeups) }},
	}
)

// desc is a per-PE metric's descriptors: summed (no label), per PE.
func desc(name, help string) [2]*prometheus.Desc {
	return [2]*prometheus.Desc{prometheus.NewDesc("symchan_"+name, help, nil, nil), prometheus.NewDesc("symchan_"+name, help, pe, nil)}
}

// which is 1 where the PEs' figures are labelled, 0 where summed.
func (c config) which() int {
	if c.perPE {
		return 1
	}
	return 0
}

// Describe sends the descriptors of every metric.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- upDesc
	ch <- restartsDesc
	ch <- generationDesc
	ch <- anyDepthDesc
	ch <- anyRejDesc
	ch <- anyAbDesc
	for _, m := range perPE {
		ch <- m.desc[c.cfg.which()]
	}
}

// Collect reads the service's figures and sends them.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	st := c.src.Stats()
	up := 0.0
	if st.State == service.StateReady {
		up = 1
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, up)
	ch <- prometheus.MustNewConstMetric(restartsDesc, prometheus.CounterValue, float64(st.Restarts))
	ch <- prometheus.MustNewConstMetric(generationDesc, prometheus.CounterValue, float64(st.Generation))
	ch <- prometheus.MustNewConstMetric(anyDepthDesc, prometheus.GaugeValue, float64(st.AnyQueued))
	ch <- prometheus.MustNewConstMetric(anyRejDesc, prometheus.CounterValue, float64(st.AnyRejected))
	ch <- prometheus.MustNewConstMetric(anyAbDesc, prometheus.CounterValue, float64(st.AnyAbandoned))
	if !c.cfg.perPE {
		for _, m := range perPE {
			sum := 0.0
			for _, p := range st.PEs {
				sum += m.value(p)
			}
			ch <- prometheus.MustNewConstMetric(m.desc[0], m.kind, sum)
		}
		return
	}
	for _, p := range st.PEs {
		id := strconv.Itoa(p.PE)
		for _, m := range perPE {
			ch <- prometheus.MustNewConstMetric(m.desc[1], m.kind, m.value(p), id)
		}
	}
}

// Calls times every call a service serves (a service.Middleware) into two
// histograms (one per PE with PerPE): symchan_call_queue_seconds, how
// long a call waited for its PE (calls made in this process), and
// symchan_call_duration_seconds, how long the PE took to serve it. It is
// a prometheus.Collector of them.
type Calls struct {
	queue, serve *prometheus.HistogramVec
	perPE        bool
}

// NewCalls returns Calls, with buckets from 10 µs to about 80 s unless
// Buckets says otherwise.
func NewCalls(opts ...Option) *Calls {
	cfg := configOf(opts)
	buckets := cfg.buckets
	if buckets == nil {
		buckets = prometheus.ExponentialBuckets(10e-6, 2, 23)
	}
	var labels []string
	if cfg.perPE {
		labels = pe
	}
	return &Calls{
		queue: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "symchan_call_queue_seconds", Help: "Time a call made in this process waited for its PE to take it.", Buckets: buckets,
		}, labels),
		serve: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "symchan_call_duration_seconds", Help: "Time a PE took to serve a call (the actor and the middlewares inside this one).", Buckets: buckets,
		}, labels),
		perPE: cfg.perPE,
	}
}

// Middleware is the service.Middleware that times the calls; install it
// with service.Intercept.
func (c *Calls) Middleware(ctx context.Context, info service.CallInfo, next func(context.Context) error) error {
	var lv []string
	if c.perPE {
		lv = []string{strconv.Itoa(info.PE)}
	}
	if !info.Sent.IsZero() {
		c.queue.WithLabelValues(lv...).Observe(info.Started.Sub(info.Sent).Seconds())
	}
	err := next(ctx)
	c.serve.WithLabelValues(lv...).Observe(time.Since(info.Started).Seconds())
	return err
}

// Describe sends the histograms' descriptors.
func (c *Calls) Describe(ch chan<- *prometheus.Desc) {
	c.queue.Describe(ch)
	c.serve.Describe(ch)
}

// Collect sends the histograms.
func (c *Calls) Collect(ch chan<- prometheus.Metric) {
	c.queue.Collect(ch)
	c.serve.Collect(ch)
}
