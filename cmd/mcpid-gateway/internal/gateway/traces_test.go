package gateway

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/metrics"
)

// collector is an OTLP/HTTP trace collector: it keeps the spans POSTed
// to /v1/traces, and counts every request it gets.
type collector struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	requests int
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	body, err := io.ReadAll(r.Body)
	var req coltracepb.ExportTraceServiceRequest
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || err != nil || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			c.spans = append(c.spans, ss.GetSpans()...)
		}
	}
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// sentSpan is what a test reads of a span.
type sentSpan struct {
	Name, Server, Tool, Called, Outcome, ErrorType string
	Error                                          bool
}

// TestTraces: with OTEL_EXPORTER_OTLP_ENDPOINT (or its traces' own
// variable) set, each call is one span sent to the collector when the
// tracer stops, naming the server, the tool and the outcome, with the
// error status when the call did not end ok, and never the arguments;
// with neither set, or with OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none, there is no tracer and nothing is sent.
func TestTraces(t *testing.T) {
	all := []sentSpan{
		{Name: "tools/call", Called: "no_such_tool", Outcome: "unknown_tool", ErrorType: "unknown_tool", Error: true},
		{Name: "tools/call fails", Server: "calls", Tool: "fails", Called: "fails", Outcome: "tool_error", ErrorType: "tool_error", Error: true},
		{Name: "tools/call ok", Server: "calls", Tool: "ok", Called: "ok", Outcome: "ok"},
	}
	for _, tc := range []struct {
		name string
		env  map[string]string // "URL" is the collector's
		want []sentSpan
	}{
		{name: "endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "URL"}, want: all},
		{name: "traces endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "URL/v1/traces"}, want: all},
		{name: "unset"},
		{name: "sdk disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "URL", "OTEL_SDK_DISABLED": "true"}},
		{name: "exporter none", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "URL", "OTEL_TRACES_EXPORTER": "none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			col := new(collector)
			hs := httptest.NewServer(col)
			t.Cleanup(hs.Close)
			for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER"} {
				t.Setenv(k, strings.ReplaceAll(tc.env[k], "URL", hs.URL))
			}
			tracer, stop, err := metrics.StartTracing(t.Context())
			require.NoError(t, err)
			assert.Equal(t, tc.want != nil, tracer != nil, "a tracer only when traces are asked for")
			_, c, _ := observedGateway(t, config{}, tracer, downstreamSpec{"calls", inProcess{callsServer()}})
			for _, name := range []string{"ok", "fails", "no_such_tool"} {
				c.call(t, name, "secret-query")
			}
			require.NoError(t, stop(t.Context()))

			col.mu.Lock()
			defer col.mu.Unlock()
			if tc.want == nil {
				assert.Zero(t, col.requests, "nothing is sent")
				return
			}
			var got []sentSpan
			for _, sp := range col.spans {
				s := sentSpan{Name: sp.GetName(), Error: sp.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR}
				for _, a := range sp.GetAttributes() {
					v := a.GetValue().GetStringValue()
					assert.NotContains(t, v, "secret-query", "no span carries the arguments")
					switch a.GetKey() {
					case "mcpid.gateway.server":
						s.Server = v
					case "mcpid.gateway.tool":
						s.Tool = v
					case "gen_ai.tool.name":
						s.Called = v
					case "mcpid.gateway.outcome":
						s.Outcome = v
					case "error.type":
						s.ErrorType = v
					}
				}
				got = append(got, s)
			}
			slices.SortFunc(got, func(a, b sentSpan) int { return strings.Compare(a.Name, b.Name) })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("spans (-want +got):\n%s", diff)
			}
		})
	}
}
