package gateway

import (
	"context"
	"io"
	"testing"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/cmdtest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHTTPMode: the command run with -http serves the demo servers' tools
// over streamable HTTP, the SDK's client sees their names and has a call
// routed, and the command stops cleanly when its context ends. The bounds
// of the HTTP server are tested with the serve package.
func TestHTTPMode(t *testing.T) {
	endpoint := cmdtest.StartHTTP(t, func(ctx context.Context, stderr io.Writer) error {
		return Run(ctx, []string{"-http", "127.0.0.1:0"}, io.Discard, stderr)
	})
	mc := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, nil)
	cs, err := mc.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
	require.NoError(t, err)
	defer cs.Close()
	names, err := listNames(t.Context(), cs)
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha__search", "beta__search", "create_issue", "fetch"}, names)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "beta__search", Arguments: map[string]any{"query": "q"}})
	require.NoError(t, err)
	assert.Equal(t, `beta answered search(query="q")`, resultText(res))
}
