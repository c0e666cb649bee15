package serve

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GoSDKHandler returns the streamable HTTP endpoint of srv, an MCP server
// of the official Go SDK, at /mcp. The SDK ends a session after
// lim.SessionIdle without a request (its SessionTimeout), and bounds each
// body by lim.MaxBody as well; [CapSessions] bounds the open sessions,
// which the SDK counts ([mcp.Server.Sessions]).
func GoSDKHandler(srv *mcp.Server, lim Limits) http.Handler {
	mux := http.NewServeMux()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		SessionTimeout:      lim.SessionIdle,
		MaxRequestBodyBytes: lim.MaxBody,
	})
	mux.Handle("/mcp", CapSessions(h, lim, func() int { return GoSDKSessions(srv) }))
	return mux
}

// GoSDKSessions returns the number of sessions srv holds now.
func GoSDKSessions(srv *mcp.Server) int {
	n := 0
	for range srv.Sessions() {
		n++
	}
	return n
}
