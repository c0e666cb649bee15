//lint:file-ignore SA1019 MCP 2026-07-28 deprecates logging, which stays functional for at least a year; the gateway relays it while downstreams and hosts use it.

package gateway

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
)

// TestPanicCostsOneRequest: a panic in a handler on a request's path is
// answered with a JSON-RPC internal error and logged at Error with the
// method, in both modes, and the gateway goes on serving; a panic while a
// call's log message is relayed (on the relay's goroutine) loses that
// message alone, and the call is answered.
func TestPanicCostsOneRequest(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		logs := new(syncbuf.Buffer)
		logger := slog.New(slog.NewTextHandler(logs, nil))
		// -unknown-tool error lets a call to a name the gateway does not
		// serve reach the SDK's own tools: boom, below.
		g, _ := startGateway(t, config{stateless: stateless, logger: logger, unknownToolError: true}, sdkLogger("sdk"))
		// A deliberately panicking handler, and a sending middleware that
		// panics on every log message the gateway relays.
		g.srv.AddTool(&mcp.Tool{Name: "boom", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("boom") })
		g.srv.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "notifications/message" {
					panic("no logs today")
				}
				return next(ctx, method, req)
			}
		})
		hs := httptest.NewServer(g.handler(serve.DefaultLimits, stateless))
		t.Cleanup(hs.Close)
		c := &rawClient{t: t, url: hs.URL + "/mcp", version: "2025-11-25"}
		a, _ := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`)
		require.Nil(t, a.Error)
		c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if !stateless {
			a, _ = c.post(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`)
			require.Nil(t, a.Error)
		}

		a, _ = c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"boom","arguments":{}}}`)
		require.NotNil(t, a.Error, "stateless=%v", stateless)
		assert.Equal(t, int64(-32603), a.Error.Code)
		assert.Equal(t, "internal error", a.Error.Message, "the answer names nothing of the fault")
		assert.Contains(t, logs.String(), `level=ERROR msg="gateway: panic while serving a request" method=tools/call panic=boom`)

		a, _ = c.post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"work","arguments":{},"_meta":{"io.modelcontextprotocol/logLevel":"debug"}}}`)
		require.Nil(t, a.Error, "the gateway serves on")
		assert.JSONEq(t, `{"content":[{"type":"text","text":"done"}]}`, string(a.Result))
		assert.Contains(t, logs.String(), `level=ERROR msg="gateway: panic while relaying a notification" method=notifications/message panic="no logs today"`)
	}
}
