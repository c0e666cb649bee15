package metrics

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/trace"
)

// The chains whose generations mcpid_gateway_chain_generation reports.
const (
	ChainTools   = "tools"
	ChainPrompts = "prompts"
)

// durationBuckets are the bounds, in seconds, of the calls' histogram:
// from a millisecond (what a relay over loopback costs) to a minute (past
// the gateway's default 30 s timeout, so that a timed-out call lands in a
// bucket of its own).
var durationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// State is what the gateway's metrics read of it at each scrape: the
// truth at that moment, not a copy kept up to date beside it.
type State interface {
	// DownstreamUp reports whether the configured server has a session.
	DownstreamUp(server string) bool
	// StoreUp reports whether the store of the names was up at the last
	// naming round or probe.
	StoreUp() bool
	// Generation returns the generation of the table the chain
	// ([ChainTools] or [ChainPrompts]) holds, and false while it holds
	// none.
	Generation(chain string) (uint64, bool)
}

// Metrics are the gateway's metrics and traces. Its methods may be called
// on a nil *Metrics, and then do nothing: a gateway built without
// metrics records none.
type Metrics struct {
	reg       *prometheus.Registry
	servers   map[string]bool
	calls     *prometheus.CounterVec
	durations *prometheus.HistogramVec
	state     atomic.Pointer[State]
	tracer    trace.Tracer
}

// New returns the metrics of a gateway whose configured servers are
// servers (the only values of a server label beside ""), whose spans go to
// tracer (nil: none). Until [Metrics.Watch] is told the gateway's state,
// every downstream and the store read as down and no chain's generation is
// reported.
func New(servers []string, tracer trace.Tracer) *Metrics {
	m := &Metrics{
		reg:     prometheus.NewRegistry(),
		servers: map[string]bool{},
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcpid_gateway_calls_total",
			Help: "The tools/call requests the gateway answered, by downstream server (\"\" for a name that routes to none) and outcome.",
		}, []string{"server", "outcome"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mcpid_gateway_call_duration_seconds",
			Help:    "How long the gateway took to answer a tools/call, by downstream server.",
			Buckets: durationBuckets,
		}, []string{"server"}),
		tracer: tracer,
	}
	for _, s := range servers {
		m.servers[s] = true
	}
	m.reg.MustRegister(m.calls, m.durations, stateCollector{m},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Watch has the metrics read the gateway's state s from now on.
func (m *Metrics) Watch(s State) {
	if m != nil {
		m.state.Store(&s)
	}
}

// Handler returns the handler of /metrics: every metric in Prometheus'
// text format (or another the scraper asks for).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Call is one tools/call as the gateway answered it.
type Call struct {
	// Server is the configured server the call went to; "" (or any name
	// not configured) for a call that routes to none.
	Server string
	// Tool is the downstream's own name of the tool; Name the name it was
	// called by (cut short by the caller of Record when it routes to no
	// tool: it is the caller's text).
	Tool, Name string
	Outcome    Outcome
	Start      time.Time
	Duration   time.Duration
}

// Record counts the call c and, with a tracer, sends its span. A server
// that is not configured counts as "", an outcome outside the set as
// [Error]: no value outside the closed sets becomes a label.
func (m *Metrics) Record(ctx context.Context, c Call) {
	if m == nil {
		return
	}
	if !m.servers[c.Server] {
		c.Server = ""
	}
	if !c.Outcome.valid() {
		c.Outcome = Error
	}
	m.calls.WithLabelValues(c.Server, string(c.Outcome)).Inc()
	m.durations.WithLabelValues(c.Server).Observe(c.Duration.Seconds())
	m.span(ctx, c)
}

// stateCollector reports the gauges that read the gateway's state at
// each scrape.
type stateCollector struct{ m *Metrics }

var (
	downstreamUpDesc = prometheus.NewDesc("mcpid_gateway_downstream_up",
		"1 while the configured downstream server has a session, 0 while it is down or starting.", []string{"server"}, nil)
	storeUpDesc = prometheus.NewDesc("mcpid_gateway_store_up",
		"1 while the store of the names was up at the last naming round or probe, 0 while it is down, refused, or not reached yet.", nil, nil)
	generationDesc = prometheus.NewDesc("mcpid_gateway_chain_generation",
		"The generation of the table the naming chain holds (tools or prompts); absent while it holds none.", []string{"chain"}, nil)
)

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- downstreamUpDesc
	ch <- storeUpDesc
	ch <- generationDesc
}

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	var s State
	if p := c.m.state.Load(); p != nil {
		s = *p
	}
	for server := range c.m.servers {
		ch <- prometheus.MustNewConstMetric(downstreamUpDesc, prometheus.GaugeValue, gauge(s != nil && s.DownstreamUp(server)), server)
	}
	ch <- prometheus.MustNewConstMetric(storeUpDesc, prometheus.GaugeValue, gauge(s != nil && s.StoreUp()))
	if s == nil {
		return
	}
	for _, chain := range []string{ChainTools, ChainPrompts} {
		if gen, ok := s.Generation(chain); ok {
			ch <- prometheus.MustNewConstMetric(generationDesc, prometheus.GaugeValue, float64(gen), chain)
		}
	}
}

// gauge is 1 for true, 0 for false.
func gauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
