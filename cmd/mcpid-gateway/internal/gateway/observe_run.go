package gateway

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/metrics"
	"github.com/mcpid/mcpid/internal/serve"
)

// flushTraces bounds the flush of the spans not sent yet when the gateway
// stops: a collector that does not answer delays the exit by this much,
// no more.
const flushTraces = 5 * time.Second

// specs returns the downstreams of the command line: its -server flags,
// or with none the demo's servers.
func (o *options) specs(stderr io.Writer) []downstreamSpec {
	if len(o.servers) == 0 {
		return demoServers()
	}
	var specs []downstreamSpec
	for _, s := range o.servers {
		specs = append(specs, s.spec(os.Environ(), stderr, o.cfg.logger))
	}
	return specs
}

// observe sets o.cfg up with the gateway's metrics, and traces when the
// environment asks for them (see metrics.StartTracing); with -metrics, it
// serves /metrics on that listener from now on. The function it returns
// stops that listener and flushes the spans, within flushTraces; Run
// calls it once the gateway is closed, so that every call's span is in.
func observe(ctx context.Context, o *options, stderr io.Writer) (func(), error) {
	tracer, stopTracing, err := metrics.StartTracing(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting the traces (OTEL_EXPORTER_OTLP_*): %w", err)
	}
	var servers []string
	for _, spec := range o.specs(io.Discard) {
		servers = append(servers, spec.name)
	}
	o.cfg.metrics = metrics.New(servers, tracer)
	stop := func() {
		flushCtx, cancel := context.WithTimeout(context.Background(), flushTraces)
		defer cancel()
		_ = stopTracing(flushCtx)
	}
	if o.metrics == "" {
		return stop, nil
	}
	o.cfg.metricsApart = true
	ln, err := net.Listen("tcp", o.metrics)
	if err != nil {
		stop()
		return nil, fmt.Errorf("-metrics: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", o.cfg.metrics.Handler())
	hs := serve.NewServer(mux, o.limits)
	fmt.Fprintf(stderr, "gateway: metrics on http://%s/metrics\n", ln.Addr())
	go func() { _ = hs.Serve(ln) }()
	return func() {
		_ = hs.Close()
		stop()
	}, nil
}
