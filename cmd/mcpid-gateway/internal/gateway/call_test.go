package gateway

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/serve"
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
