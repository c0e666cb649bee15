package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/metrics"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
)

// callsServer is a downstream whose tools end each call in another way:
// ok answers, fails answers a tool error, slow answers only when the call
// is cancelled. It has a prompt, so that both chains hold a table.
func callsServer() *mcp.Server {
	type args struct {
		Query string `json:"query"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "calls", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ok"}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "fails"}, func(context.Context, *mcp.CallToolRequest, args) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it failed"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ args) (*mcp.CallToolResult, any, error) {
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	srv.AddPrompt(&mcp.Prompt{Name: "brief"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	return srv
}

// scrape gets url (a /metrics) and returns its metric families.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(res.Body)
	require.NoError(t, err)
	return fams
}

// series returns the series of the family name: each one's labels, as
// name=value joined by ",", and its value (a histogram's count).
func series(fams map[string]*dto.MetricFamily, name string) map[string]float64 {
	out := map[string]float64{}
	f := fams[name]
	if f == nil {
		return out
	}
	for _, m := range f.GetMetric() {
		var labels []string
		for _, l := range m.GetLabel() {
			labels = append(labels, l.GetName()+"="+l.GetValue())
		}
		v := m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
		out[strings.Join(labels, ",")] = v
	}
	return out
}

// observedGateway starts a gateway with metrics (spans to tracer, when
// not nil) on the servers of specs, and serves its HTTP handler.
func observedGateway(t *testing.T, cfg config, tracer trace.Tracer, specs ...downstreamSpec) (*gateway, *client, string) {
	t.Helper()
	var names []string
	for _, s := range specs {
		names = append(names, s.name)
	}
	cfg.metrics = metrics.New(names, tracer)
	g, c := startGateway(t, cfg, specs...)
	select {
	case <-g.promptsReady:
	case <-time.After(testTimeout):
		t.Fatal("the prompts' chain is not ready")
	}
	hs := httptest.NewServer(g.handler(serve.DefaultLimits, false))
	t.Cleanup(hs.Close)
	return g, c, hs.URL
}

// TestCallMetrics: every outcome of the closed set is counted under the
// server the call went to (an unknown tool under server ""), each call's
// duration observed once, on /metrics beside the MCP endpoint; the
// store reads up and each chain's generation is the held table's.
func TestCallMetrics(t *testing.T) {
	tool := func(name string) string { return `[{"name":"` + name + `","inputSchema":{"type":"object"}}]` }
	g, c, url := observedGateway(t, config{timeout: 2 * time.Second}, nil,
		downstreamSpec{"calls", inProcess{callsServer()}},
		downstreamSpec{"crash", scripted{answersInitialize: true, tools: tool("crashes"), crashOnCall: true}},
		downstreamSpec{"refuse", scripted{answersInitialize: true, tools: tool("refused"), refuseCall: "no"}},
	)
	for name, want := range map[string]string{
		"ok": "", "fails": "", "slow": "resource_unavailable", "crashes": "resource_unavailable",
		"refused": "call_refused", "no_such_tool": "unknown_tool",
	} {
		assert.Equal(t, want, codeOf(c.call(t, name, "q")), name)
	}

	fams := scrape(t, url+"/metrics")
	want := map[string]float64{
		"outcome=ok,server=calls": 1, "outcome=tool_error,server=calls": 1, "outcome=timeout,server=calls": 1,
		"outcome=unavailable,server=crash": 1, "outcome=error,server=refuse": 1, "outcome=unknown_tool,server=": 1,
	}
	if diff := cmp.Diff(want, series(fams, "mcpid_gateway_calls_total")); diff != "" {
		t.Errorf("mcpid_gateway_calls_total (-want +got):\n%s", diff)
	}
	want = map[string]float64{"server=calls": 3, "server=crash": 1, "server=refuse": 1, "server=": 1}
	if diff := cmp.Diff(want, series(fams, "mcpid_gateway_call_duration_seconds")); diff != "" {
		t.Errorf("mcpid_gateway_call_duration_seconds counts (-want +got):\n%s", diff)
	}
	assert.Equal(t, map[string]float64{"": 1}, series(fams, "mcpid_gateway_store_up"))
	_, tools := g.table.Load().names.Chain()
	_, prompts := g.kinds.PromptNames().Chain()
	require.NotZero(t, tools)
	assert.Equal(t, map[string]float64{"chain=tools": float64(tools), "chain=prompts": float64(prompts)},
		series(fams, "mcpid_gateway_chain_generation"))
}

// TestHostileDownstreamAddsNoSeries: a downstream whose tool errors carry
// codes of its own choosing, and whose JSON-RPC errors have arbitrary
// codes and messages, adds no series: its calls count as tool_error and
// error.
func TestHostileDownstreamAddsNoSeries(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile", Version: "v0"}, nil)
	var n atomic.Int64
	mcp.AddTool(srv, &mcp.Tool{Name: "evil"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		i := n.Add(1)
		code := fmt.Sprintf("evil_%d\"} 1\n", i)
		if i%2 == 0 {
			return nil, nil, &jsonrpc.Error{Code: 1000 + i, Message: code}
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
			Text: `{"type":"adapter_error","code":"` + strings.ReplaceAll(code, "\n", `\n`) + `","message":"m"}`}}}, nil, nil
	})
	_, c, url := observedGateway(t, config{}, nil, downstreamSpec{"hostile", inProcess{srv}})
	for range 20 {
		c.call(t, "evil", "q")
	}
	fams := scrape(t, url+"/metrics")
	want := map[string]float64{"outcome=tool_error,server=hostile": 10, "outcome=error,server=hostile": 10}
	if diff := cmp.Diff(want, series(fams, "mcpid_gateway_calls_total")); diff != "" {
		t.Errorf("mcpid_gateway_calls_total (-want +got):\n%s", diff)
	}
}

// connectOnce is a transport that connects once, and fails every later
// attempt: a downstream that died and cannot start again.
type connectOnce struct {
	mcp.Transport
	used *atomic.Bool
}

func (o connectOnce) Connect(ctx context.Context) (mcp.Connection, error) {
	if o.used.Swap(true) {
		return nil, io.ErrUnexpectedEOF
	}
	return o.Transport.Connect(ctx)
}

// TestDownstreamUp: mcpid_gateway_downstream_up is 1 for a connected
// downstream, and goes to 0 when it dies; every configured server has a
// series.
func TestDownstreamUp(t *testing.T) {
	dying := scripted{answersInitialize: true, tools: `[{"name":"boom","inputSchema":{"type":"object"}}]`, crashOnCall: true}
	_, c, url := observedGateway(t, config{}, nil,
		downstreamSpec{"dying", connectOnce{dying, new(atomic.Bool)}},
		downstreamSpec{"calls", inProcess{callsServer()}})
	up := func() map[string]float64 { return series(scrape(t, url+"/metrics"), "mcpid_gateway_downstream_up") }
	assert.Equal(t, map[string]float64{"server=dying": 1, "server=calls": 1}, up())

	assert.Equal(t, "resource_unavailable", codeOf(c.call(t, "boom", "q")), "the call kills it")
	require.Eventually(t, func() bool { return up()["server=dying"] == 0 }, testTimeout, 20*time.Millisecond)
	assert.Equal(t, map[string]float64{"server=dying": 0, "server=calls": 1}, up())
}

// TestMetricsListener: with -metrics ADDR, /metrics is served there (a
// stdio or HTTP gateway alike), and the HTTP listener answers it 404.
func TestMetricsListener(t *testing.T) {
	srv, env := testServer(t, "one", "who=one")
	stderr := new(syncbuf.Buffer)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, []string{"-http", "127.0.0.1:0", "-metrics", "127.0.0.1:0", "-server", srv, "-env", env, "-log-level", "warn"}, io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	metricsURL := waitLine(t, stderr, "gateway: metrics on ")
	mcpURL := strings.TrimSuffix(waitLine(t, stderr, "gateway: MCP streamable HTTP on "), "/mcp")

	assert.Equal(t, map[string]float64{"server=one": 1}, series(scrape(t, waitUp(t, metricsURL)), "mcpid_gateway_downstream_up"))
	res, err := http.Get(mcpURL + "/metrics")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
}

// waitUp returns url once its /metrics says that every downstream is up.
func waitUp(t *testing.T, url string) string {
	t.Helper()
	require.Eventually(t, func() bool {
		res, err := http.Get(url)
		if err != nil {
			return false
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return strings.Contains(string(body), "mcpid_gateway_downstream_up{server=\"one\"} 1")
	}, testTimeout, 20*time.Millisecond)
	return url
}

// waitLine returns the rest of the first line of buf that starts with
// prefix, once one is written.
func waitLine(t *testing.T, buf *syncbuf.Buffer, prefix string) string {
	t.Helper()
	var rest string
	require.Eventually(t, func() bool {
		for line := range strings.Lines(buf.String()) {
			if s, ok := strings.CutPrefix(line, prefix); ok {
				rest = strings.TrimSpace(s)
				return true
			}
		}
		return false
	}, testTimeout, 10*time.Millisecond, "no line %q", prefix)
	return rest
}
