package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpid/mcpid/searchfetch"
)

// This file is -otel: searchfetch.Options.OnCall, which hears every tool
// call once with its outcome, wired to OpenTelemetry. Each call becomes a
// span, with a child span for its backend call, and is counted and timed
// in metrics. The names follow OpenTelemetry's conventions for MCP
// servers where they have one (the span name "tools/call <tool>",
// mcp.method.name, gen_ai.tool.name, error.type, the histogram
// mcp.server.operation.duration); what only mcpid knows is under mcpid.*.
//
// OnCall reports a call when it has ended, so its spans are made then,
// with the start and end times the Call recorded: a trace shows them where
// they happened. A server that wants the backend's own spans inside the
// call (its HTTP requests, say) starts the call's span in an SDK
// middleware instead, and sets OnCall's outcome on it.

// The instrumentation scope of the example's tracer and meter.
const scope = "github.com/mcpid/mcpid/examples/searchfetch"

// telemetry turns the calls OnCall hears into spans and metrics.
type telemetry struct {
	tracer trace.Tracer
	// duration is each call's latency; calls counts the calls by tool and
	// outcome; hits counts a search's hits shown, dropped and denied.
	duration metric.Float64Histogram
	calls    metric.Int64Counter
	hits     metric.Int64Counter
}

// newTelemetry returns the telemetry of tp and mp.
func newTelemetry(tp trace.TracerProvider, mp metric.MeterProvider) (*telemetry, error) {
	m := mp.Meter(scope)
	duration, err1 := m.Float64Histogram("mcp.server.operation.duration",
		metric.WithUnit("s"), metric.WithDescription("Duration of a tool call, until its answer is ready."))
	calls, err2 := m.Int64Counter("mcpid.tool.calls",
		metric.WithUnit("{call}"), metric.WithDescription("Tool calls, by tool and by the code of their answer (ok for a success)."))
	hits, err3 := m.Int64Counter("mcpid.search.hits",
		metric.WithUnit("{hit}"), metric.WithDescription("Search hits shown, dropped as unfetchable, or denied to the caller."))
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	return &telemetry{tracer: tp.Tracer(scope), duration: duration, calls: calls, hits: hits}, nil
}

// onCall is the tools' Options.OnCall: the span of the call c and of its
// backend call, and its metrics.
func (tm *telemetry) onCall(ctx context.Context, c searchfetch.Call) {
	outcome := "ok"
	if c.Code != "" {
		outcome = string(c.Code)
	}
	common := []attribute.KeyValue{
		attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.tool.name", c.Tool),
	}
	attrs := append(common,
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.StringSlice("mcpid.connections", c.Connections),
		attribute.Int("mcpid.result.bytes", c.Bytes),
		attribute.Int64("mcpid.authorize.duration_ns", c.Authorize.Nanoseconds()),
	)
	if c.Caller.UserID != "" {
		attrs = append(attrs, attribute.String("enduser.id", c.Caller.UserID))
	}
	if c.ID != "" {
		attrs = append(attrs, attribute.String("mcpid.id", c.ID))
	}
	if c.Tool == searchfetch.SearchName {
		attrs = append(attrs, attribute.Int("mcpid.hits.shown", c.Shown),
			attribute.Int("mcpid.hits.dropped", c.Dropped), attribute.Int("mcpid.hits.denied", c.Denied))
	}
	if c.Code != "" {
		attrs = append(attrs, attribute.String("error.type", string(c.Code)))
	}
	ctx, span := tm.tracer.Start(ctx, "tools/call "+c.Tool, trace.WithTimestamp(c.Start),
		trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	if !c.BackendStart.IsZero() {
		_, b := tm.tracer.Start(ctx, "backend "+c.Tool, trace.WithTimestamp(c.BackendStart),
			trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(common...))
		b.End(trace.WithTimestamp(c.BackendStart.Add(c.Backend)))
	}
	if c.Code != "" {
		span.SetStatus(codes.Error, string(c.Code))
	}
	span.End(trace.WithTimestamp(c.Start.Add(c.Duration)))

	if c.Code != "" {
		common = append(common, attribute.String("error.type", string(c.Code)))
	}
	tm.duration.Record(ctx, c.Duration.Seconds(), metric.WithAttributes(common...))
	tm.calls.Add(ctx, 1, metric.WithAttributes(attribute.String("gen_ai.tool.name", c.Tool), attribute.String("mcpid.outcome", outcome)))
	for _, n := range []struct {
		outcome string
		count   int
	}{{"shown", c.Shown}, {"dropped", c.Dropped}, {"denied", c.Denied}} {
		if n.count > 0 {
			tm.hits.Add(ctx, int64(n.count), metric.WithAttributes(attribute.String("gen_ai.tool.name", c.Tool), attribute.String("mcpid.outcome", n.outcome)))
		}
	}
}

// startStdoutTelemetry returns the telemetry of -otel, which writes spans
// as they end and metrics when it is shut down, as JSON lines on w, with
// the function that flushes and stops it. w is stderr: stdout is the
// protocol's in -stdio mode, and the demo's transcript otherwise.
func startStdoutTelemetry(w io.Writer) (*telemetry, func(context.Context) error, error) {
	spans, err := stdouttrace.New(stdouttrace.WithWriter(w))
	if err != nil {
		return nil, nil, err
	}
	metrics, err := stdoutmetric.New(stdoutmetric.WithWriter(w))
	if err != nil {
		return nil, nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metrics)))
	tm, err := newTelemetry(tp, mp)
	if err != nil {
		return nil, nil, err
	}
	return tm, func(ctx context.Context) error { return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx)) }, nil
}

// stopTelemetry flushes and stops the telemetry with stop, within
// telemetryFlush even when the server's context has ended, and reports a
// failure on stderr.
func stopTelemetry(stop func(context.Context) error, stderr io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), telemetryFlush)
	defer cancel()
	if err := stop(ctx); err != nil {
		fmt.Fprintf(stderr, "searchfetch: -otel: %v\n", err)
	}
}

// telemetryFlush bounds the last export of -otel at exit.
const telemetryFlush = 5 * time.Second
