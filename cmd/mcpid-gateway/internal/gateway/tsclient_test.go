package gateway

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/serve"
)

// TestTSClientCalls: the official TypeScript client's own calls
// (listTools(), listPrompts() and ping(), sent without params,
// listResources() and callTool()) through a stateful and a -stateless
// gateway, each answered. It skips under -short (make test runs no Node),
// and when node or the client's packages are not installed (npm ci in
// examples/tsclient), unless MCPID_TSCLIENT=1, as make ts-journeys sets,
// where it fails.
func TestTSClientCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the TypeScript client on Node: skipped under -short (make ts-journeys runs this test)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "..", "examples", "tsclient"))
	require.NoError(t, err)
	_, errNode := exec.LookPath("node")
	_, errSDK := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"))
	if errNode != nil || errSDK != nil {
		if os.Getenv("MCPID_TSCLIENT") == "1" {
			t.Fatalf("the TypeScript client cannot run: node: %v; its packages: %v", errNode, errSDK)
		}
		t.Skip("the TypeScript client is not installed (npm ci in examples/tsclient; make ts-journeys runs this test)")
	}
	for _, stateless := range []bool{false, true} {
		g, _ := startGateway(t, config{stateless: stateless}, downstreamSpec{name: "docs", transport: inProcess{docServer("docs")}})
		hs := httptest.NewServer(g.handler(serve.DefaultLimits, stateless))
		t.Cleanup(hs.Close)
		ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
		out, err := exec.CommandContext(ctx, "node", filepath.Join(dir, "gateway.mjs"), hs.URL+"/mcp", "touch").Output()
		cancel()
		require.NoError(t, err, "stateless=%v: %s", stateless, out)
		var got map[string]any
		require.NoError(t, json.Unmarshal(out, &got), "%s", out)
		want := map[string]any{
			"listTools":     []any{"link", "touch"},
			"listPrompts":   []any{"summarize"},
			"listResources": []any{"file:///README.md"},
			"ping":          map[string]any{},
			"callTool":      []any{"touched"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("stateless=%v: the client's calls (-want +got):\n%s", stateless, diff)
		}
	}
}
