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
