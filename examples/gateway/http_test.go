package main

import (
	"net"
	"testing"

	"github.com/mcpid/mcpid/examples/internal/serve"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHTTP: the SDK's client reaches the gateway over streamable HTTP, as
// the -http mode serves it, sees the tools' names and has a call routed.
// The bounds of the HTTP server are tested with the serve package.
func TestHTTP(t *testing.T) {
	g, _ := startGateway(t, config{}, demoServers()...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	lim := serve.DefaultLimits
	hs := serve.NewServer(serve.GoSDKHandler(g.srv, lim), lim)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })

	mc := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, nil)
	cs, err := mc.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp", MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	names, err := listNames(t.Context(), cs)
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha__search", "beta__search", "create_issue", "fetch"}, names)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "beta__search", Arguments: map[string]any{"query": "q"}})
	require.NoError(t, err)
	assert.Equal(t, `beta answered search(query="q")`, resultText(res))
}
