package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/serve"
)

// TestUnknownTool: a call to a name that routes to no tool answers a tool
// error with the unknown_tool envelope, as text and as structuredContent,
// on every protocol version (a stateful session of 2025-11-25 and a
// -stateless request of 2025-11-25 and of 2026-07-28); with -unknown-tool
// error, the JSON-RPC error -32602 that the SDK answers.
func TestUnknownTool(t *testing.T) {
	for _, tc := range []struct {
		name       string
		errorCode  bool // -unknown-tool error
		stateless  bool
		version    string
		wantCode   string // the envelope's code, or "" for a JSON-RPC error
		wantRPCErr int64
	}{
		{name: "stateful 2025-11-25", version: "2025-11-25", wantCode: "unknown_tool"},
		{name: "stateless 2025-11-25", stateless: true, version: "2025-11-25", wantCode: "unknown_tool"},
		{name: "stateless 2026-07-28", stateless: true, version: "2026-07-28", wantCode: "unknown_tool"},
		{name: "error stateful 2025-11-25", errorCode: true, version: "2025-11-25", wantRPCErr: -32602},
		{name: "error stateless 2026-07-28", errorCode: true, stateless: true, version: "2026-07-28", wantRPCErr: -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := startGateway(t, config{stateless: tc.stateless, unknownToolError: tc.errorCode},
				downstreamSpec{name: "docs", transport: inProcess{docServer("docs")}})
			hs := httptest.NewServer(g.handler(serve.DefaultLimits, tc.stateless))
			t.Cleanup(hs.Close)
			c := &rawClient{t: t, url: hs.URL + "/mcp", version: tc.version}
			meta := ""
			if tc.version == "2025-11-25" {
				a, _ := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`)
				require.Nil(t, a.Error)
				c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			} else {
				meta = v2026Meta + ","
			}
			a, _ := c.post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{` + meta + `"name":"no_such_tool","arguments":{}}}`)
			require.NotNil(t, a)
			if tc.wantRPCErr != 0 {
				require.NotNil(t, a.Error, "want a JSON-RPC error, got %s", a.Result)
				assert.Equal(t, tc.wantRPCErr, a.Error.Code)
				return
			}
			require.Nil(t, a.Error, "want a tool result, not a JSON-RPC error")
			var res mcp.CallToolResult
			require.NoError(t, json.Unmarshal(a.Result, &res))
			assert.True(t, res.IsError)
			assert.Equal(t, tc.wantCode, envelopeCode(t, &res))
			var text map[string]any
			require.NoError(t, json.Unmarshal([]byte(resultText(&res)), &text))
			assert.Equal(t, `no tool is named "no_such_tool"`, text["message"])
			if diff := cmp.Diff(text, res.StructuredContent); diff != "" {
				t.Errorf("structuredContent is not the envelope of the text (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLookupByOwnName: a call by a downstream's own tool name, as MCP Apps
// and prompts make, reaches it when exactly one live tool has that name,
// and is an ambiguous_tool error naming the candidates otherwise.
func TestLookupByOwnName(t *testing.T) {
	_, c := startGateway(t, config{qualifyAll: true}, demoServers()...)
	assert.Equal(t, []string{"alpha__fetch", "alpha__search", "beta__create_issue", "beta__search"}, c.names(t))
	assert.Equal(t, `alpha answered fetch(query="q")`, resultText(c.call(t, "fetch", "q")))
	assert.Equal(t, `beta answered create_issue(query="q")`, resultText(c.call(t, "create_issue", "q")))

	res := c.call(t, "search", "q")
	assert.Equal(t, "ambiguous_tool", envelopeCode(t, res))
	assert.Contains(t, resultText(res), "alpha__search, beta__search")

	res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "Search", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, "unknown_tool", envelopeCode(t, res), "never a case-folded match")
}

// TestErrorEnvelopeChannels: the gateway's own error results carry the
// envelope as text always, and as structuredContent only for tools that
// declare no output schema, which a client would validate it against.
func TestErrorEnvelopeChannels(t *testing.T) {
	tools := `[{"name":"plain","inputSchema":{"type":"object"}},
		{"name":"typed","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]`
	_, c := startGateway(t, config{}, downstreamSpec{"refusing", scripted{answersInitialize: true, tools: tools, refuseCall: "no"}})
	plain := c.call(t, "plain", "x")
	assert.Equal(t, "call_refused", envelopeCode(t, plain))
	require.NotNil(t, plain.StructuredContent)
	typed := c.call(t, "typed", "x")
	assert.Equal(t, "call_refused", envelopeCode(t, typed))
	assert.Nil(t, typed.StructuredContent, "the envelope does not match the tool's output schema")
	res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "typed", Arguments: []int{1}})
	require.NoError(t, err)
	assert.Equal(t, "invalid_arguments", envelopeCode(t, res))
	assert.Nil(t, res.StructuredContent)
}

// BenchmarkRelay measures what the gateway adds to a tool call: the same
// call to the same in-process server, made directly and through the
// gateway, side by side in one run.
func BenchmarkRelay(b *testing.B) {
	echo := inProcessServer("alpha", "search")
	g, _ := startGateway(b, config{}, echo)
	for _, bc := range []struct {
		name string
		to   mcp.Transport
	}{
		{"direct", echo.transport},
		{"gateway", inProcess{g.srv}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(b.Context(), bc.to, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "q3 report"}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(b.Context(), params)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}

// BenchmarkRelayLoad measures what a relayed call costs over the same call
// made directly, under load: c callers (1 and 16) share one client
// session on each path, as a gateway's callers share its one session with
// a downstream, and the two paths take turns, a round of callsPerRound
// calls per caller each, so that both see the same machine (on a shared
// one, the load of the moment). Each iteration is one round of each path.
// It reports each path's median latency (µs) and throughput (calls/s), and
// their ratios.
//
// The setups: "memory", every hop in memory (the gateway's own cost and
// its second MCP hop); "http", the client over streamable HTTP to the
// server or to the gateway, whose downstream is in memory; "stdio", the
// downstream a process over stdio (this test binary), reached directly or
// by the gateway, whose client is in memory.
func BenchmarkRelayLoad(b *testing.B) {
	for _, setup := range []struct {
		name string
		open func(b *testing.B) (direct, relayed *mcp.ClientSession)
	}{
		{"memory", relayMemory},
		{"http", relayHTTP},
		{"stdio", relayStdio},
	} {
		for _, c := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/c=%d", setup.name, c), func(b *testing.B) {
				direct, relayed := setup.open(b)
				var lat [2][]time.Duration
				var took [2]time.Duration
				for round := 0; b.Loop(); round++ {
					for i := range 2 {
						path := (i + round) % 2 // which goes first alternates
						cs := [2]*mcp.ClientSession{direct, relayed}[path]
						l, d := loadRound(b, cs, c)
						lat[path] = append(lat[path], l...)
						took[path] += d
					}
				}
				for path, name := range []string{"direct", "gateway"} {
					slices.Sort(lat[path])
					b.ReportMetric(float64(lat[path][len(lat[path])/2].Microseconds()), name+"-p50-µs")
					b.ReportMetric(float64(len(lat[path]))/took[path].Seconds(), name+"-calls/s")
				}
				b.ReportMetric(float64(lat[1][len(lat[1])/2])/float64(lat[0][len(lat[0])/2]), "p50-ratio")
				b.ReportMetric((float64(len(lat[0]))/took[0].Seconds())/(float64(len(lat[1]))/took[1].Seconds()), "throughput-ratio")
			})
		}
	}
}

// callsPerRound is how many calls each caller makes in one round.
const callsPerRound = 20

// loadRound has c callers make callsPerRound calls each on cs, and returns
// each call's latency and the round's duration.
func loadRound(b *testing.B, cs *mcp.ClientSession, c int) ([]time.Duration, time.Duration) {
	params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "q3 report"}}
	lat := make([]time.Duration, c*callsPerRound)
	var wg sync.WaitGroup
	began := time.Now()
	for w := range c {
		wg.Go(func() {
			for i := range callsPerRound {
				t := time.Now()
				res, err := cs.CallTool(context.Background(), params)
				lat[w*callsPerRound+i] = time.Since(t)
				if err != nil || res.IsError {
					b.Error(err, res)
					return
				}
			}
		})
	}
	wg.Wait()
	return lat, time.Since(began)
}

// connect connects a client session over t, closed when b ends.
func connect(b *testing.B, t mcp.Transport) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(b.Context(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

func relayMemory(b *testing.B) (direct, relayed *mcp.ClientSession) {
	echo := inProcessServer("alpha", "search")
	g, _ := startGateway(b, config{}, echo)
	return connect(b, echo.transport), connect(b, inProcess{g.srv})
}

func relayHTTP(b *testing.B) (direct, relayed *mcp.ClientSession) {
	echo := inProcessServer("alpha", "search")
	g, _ := startGateway(b, config{}, echo)
	serveHTTP := func(h *httptest.Server) mcp.Transport {
		b.Cleanup(h.Close)
		return &mcp.StreamableClientTransport{Endpoint: h.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}
	}
	down := httptest.NewServer(serve.Mount(gosdk.NewHTTPHandler(echo.transport.(inProcess).srv, httpOptions(serve.DefaultLimits))))
	up := httptest.NewServer(g.handler(serve.DefaultLimits, false))
	return connect(b, serveHTTP(down)), connect(b, serveHTTP(up))
}

func relayStdio(b *testing.B) (direct, relayed *mcp.ClientSession) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	process := func() *exec.Cmd {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), testServerEnv+"=tools=search")
		return cmd
	}
	srv := "alpha='" + exe + "'"
	env := "alpha=" + testServerEnv + "=tools=search"
	o, err := parseArgs([]string{"-stdio", "-server", srv, "-env", env}, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	g, _ := startGateway(b, o.cfg, o.servers[0].spec(os.Environ(), io.Discard, nil))
	return connect(b, &mcp.CommandTransport{Command: process()}), connect(b, inProcess{g.srv})
}
