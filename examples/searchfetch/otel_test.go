package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestOtel: with -otel's wiring, every tool call is a span named after its
// tool with its outcome, the backend call a child span within it, and the
// calls are counted by outcome and timed; read back through in-memory
// exporters, on both SDKs.
func TestOtel(t *testing.T) {
	for _, sdk := range sdks {
		t.Run(sdk, func(t *testing.T) {
			spans := tracetest.NewSpanRecorder()
			reader := sdkmetric.NewManualReader()
			tm, err := newTelemetry(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)),
				sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
			require.NoError(t, err)
			_, rc := newTestFixture(t)
			s := connect(t, newMCPServer(sdk, rc, false, nil, nil, false, func(o *searchfetch.Options) { o.OnCall = tm.onCall }))

			text, _ := s.ok(t, "search", map[string]any{"query": demoOpaqueQuery})
			ids := mcpid.ExtractIDs(text)
			require.NotEmpty(t, ids)
			s.ok(t, "fetch", map[string]any{"id": ids[0]})
			e := s.toolError(t, "fetch", map[string]any{"id": "cin_4f2a/orders:../../etc/passwd"})
			require.ErrorIs(t, e, mcpid.ErrInvalidID)

			// Spans: one per call, in order, each backend call a child
			// of its call, within it; none for the fetch that never
			// reached the backend.
			ended := spans.Ended()
			var calls, backends []sdktrace.ReadOnlySpan
			for _, sp := range ended {
				if sp.Parent().IsValid() {
					backends = append(backends, sp)
				} else {
					calls = append(calls, sp)
				}
			}
			require.Len(t, calls, 3)
			require.Len(t, backends, 2)
			assert.Equal(t, []string{"tools/call search", "tools/call fetch", "tools/call fetch"},
				[]string{calls[0].Name(), calls[1].Name(), calls[2].Name()})
			for i, b := range backends {
				call := calls[i]
				assert.Equal(t, "backend "+[]string{"search", "fetch"}[i], b.Name())
				assert.Equal(t, call.SpanContext().SpanID(), b.Parent().SpanID(), "the backend's span is its call's child")
				assert.Equal(t, call.SpanContext().TraceID(), b.SpanContext().TraceID())
				assert.False(t, b.StartTime().Before(call.StartTime()), "the backend starts within its call")
				assert.False(t, b.EndTime().After(call.EndTime()), "the backend ends within its call")
				assert.Equal(t, codes.Unset, call.Status().Code)
			}
			search := attrs(calls[0])
			assert.Equal(t, "search", search["gen_ai.tool.name"].AsString())
			assert.Equal(t, int64(len(ids)), search["mcpid.hits.shown"].AsInt64())
			assert.NotEmpty(t, search["mcpid.connections"].AsStringSlice())
			fetch := attrs(calls[1])
			assert.Equal(t, ids[0], fetch["mcpid.id"].AsString())
			h, err := mcpid.Parse(ids[0])
			require.NoError(t, err)
			assert.Equal(t, []string{h.ConnectionID()}, fetch["mcpid.connections"].AsStringSlice())
			failed := attrs(calls[2])
			assert.Equal(t, codes.Error, calls[2].Status().Code)
			assert.Equal(t, string(mcpid.CodeInvalidID), failed["error.type"].AsString())

			// Metrics: the calls by outcome, the hits shown, and the
			// latency of each call.
			var rm metricdata.ResourceMetrics
			require.NoError(t, reader.Collect(context.Background(), &rm))
			require.Len(t, rm.ScopeMetrics, 1)
			byName := map[string]metricdata.Aggregation{}
			for _, m := range rm.ScopeMetrics[0].Metrics {
				byName[m.Name] = m.Data
			}
			assert.Equal(t, map[string]int64{"search ok": 1, "fetch ok": 1, "fetch invalid_id": 1}, sums(t, byName["mcpid.tool.calls"]))
			assert.Equal(t, map[string]int64{"search shown": int64(len(ids))}, sums(t, byName["mcpid.search.hits"]))
			hist, ok := byName["mcp.server.operation.duration"].(metricdata.Histogram[float64])
			require.True(t, ok, "mcp.server.operation.duration is a histogram")
			var count uint64
			for _, p := range hist.DataPoints {
				count += p.Count
				assert.Positive(t, p.Sum)
			}
			assert.Equal(t, uint64(3), count, "every call is timed")
		})
	}
}

// attrs returns the attributes of sp by key.
func attrs(sp sdktrace.ReadOnlySpan) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range sp.Attributes() {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

// sums returns the points of a counter by "<tool> <outcome>".
func sums(t *testing.T, data metricdata.Aggregation) map[string]int64 {
	t.Helper()
	sum, ok := data.(metricdata.Sum[int64])
	require.True(t, ok, "a counter: %T", data)
	m := map[string]int64{}
	for _, p := range sum.DataPoints {
		tool, _ := p.Attributes.Value("gen_ai.tool.name")
		outcome, _ := p.Attributes.Value("mcpid.outcome")
		m[tool.AsString()+" "+outcome.AsString()] += p.Value
	}
	return m
}

// TestOtelFlag: the demo with -otel writes its spans and, at exit, its
// metrics to stderr, and its transcript to stdout as without it.
func TestOtelFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-otel"}, nil, nopCloser{&stdout}, &stderr))
	out := stderr.String()
	for _, want := range []string{`"Name":"tools/call search"`, `"Name":"backend fetch"`, `"Name":"mcp.server.operation.duration"`, `"Name":"mcpid.tool.calls"`} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, stdout.String(), `"SpanContext"`, "telemetry stays off stdout")
	assert.Contains(t, stdout.String(), demoOpaqueQuery, "the transcript")
}
