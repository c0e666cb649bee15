package metrics

import (
	"context"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// tracerName is the instrumentation scope of the gateway's spans.
const tracerName = "github.com/mcpid/mcpid/cmd/mcpid-gateway"

// The attributes of a call's span. mcp.method.name and gen_ai.tool.name
// are OpenTelemetry's names for an MCP request and the tool it calls; the
// others are the gateway's own.
const (
	attrMethod  = attribute.Key("mcp.method.name")
	attrName    = attribute.Key("gen_ai.tool.name")
	attrServer  = attribute.Key("mcpid.gateway.server")
	attrTool    = attribute.Key("mcpid.gateway.tool")
	attrOutcome = attribute.Key("mcpid.gateway.outcome")
	attrError   = attribute.Key("error.type")
)

// StartTracing returns the tracer of the gateway's spans and the function
// that flushes and stops it (within its context's deadline), as
// OpenTelemetry's environment variables say: traces are on when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
// set, sent as OTLP over HTTP (protobuf) by the exporter, which reads
// those and the other OTEL_EXPORTER_OTLP_* variables (headers, timeout,
// TLS) itself; OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turn
// them off. Off, the tracer is nil: no exporter runs and nothing is sent.
func StartTracing(ctx context.Context) (trace.Tracer, func(context.Context) error, error) {
	off := func(context.Context) error { return nil }
	if !tracesOn() {
		return nil, off, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, off, err
	}
	// The service's name, unless OTEL_SERVICE_NAME or
	// OTEL_RESOURCE_ATTRIBUTES give another (WithFromEnv comes last).
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "mcpid-gateway")), resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		_ = exp.Shutdown(ctx)
		return nil, off, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp.Tracer(tracerName), tp.Shutdown, nil
}

// tracesOn reports whether the environment asks for traces (see
// StartTracing).
func tracesOn() bool {
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_TRACES_EXPORTER")), "none") {
		return false
	}
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// span sends the span of the call c, which has ended: its name is the
// method and, for a call that routed to a tool, the name called; its
// attributes name the server, the tool and the outcome, never the
// arguments or the result. A call that did not end ok has the error
// status, with its outcome as error.type, as OpenTelemetry's conventions
// for MCP have it (a downstream's tool error included).
func (m *Metrics) span(ctx context.Context, c Call) {
	if m.tracer == nil {
		return
	}
	name := "tools/call"
	if c.Outcome != UnknownTool {
		name += " " + c.Name
	}
	_, sp := m.tracer.Start(ctx, name, trace.WithTimestamp(c.Start), trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attrMethod.String("tools/call"), attrName.String(c.Name),
			attrServer.String(c.Server), attrTool.String(c.Tool), attrOutcome.String(string(c.Outcome))))
	if c.Outcome != OK {
		sp.SetAttributes(attrError.String(string(c.Outcome)))
		sp.SetStatus(codes.Error, string(c.Outcome))
	}
	sp.End(trace.WithTimestamp(c.Start.Add(c.Duration)))
}
