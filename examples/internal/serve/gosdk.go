package serve

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDKHandler returns the streamable HTTP endpoint of srv, an MCP server
// of the official Go SDK, at /mcp. The SDK ends a session after
// lim.SessionIdle without a request (its SessionTimeout), and bounds each
// body by lim.MaxBody as well.
func GoSDKHandler(srv *mcp.Server, lim Limits) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		SessionTimeout:      lim.SessionIdle,
		MaxRequestBodyBytes: lim.MaxBody,
	}))
	return mux
}
