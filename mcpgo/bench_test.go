package mcpgo_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/adaptertest"
	"github.com/mcpid/mcpid/mcpgo"
	"github.com/mcpid/mcpid/searchfetch"
)

// handTools registers search and fetch written by hand on mcp-go, doing
// what the adapter does without its argument checks, timeout and panic
// recovery: the baseline of BenchmarkRoundTrip.
func handTools(s *server.MCPServer, b searchfetch.Backend) {
	fail := func(err error) *mcp.CallToolResult {
		env, _ := json.Marshal(err)
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(env))}, StructuredContent: json.RawMessage(env), IsError: true}
	}
	schema := json.RawMessage(`{"type":"object"}`)
	ok := func(text string, structured json.RawMessage) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: structured}
	}
	s.AddTool(mcp.NewToolWithRawSchema("search", "", schema), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Query string `json:"query"`
		}
		if err := req.BindArguments(&in); err != nil {
			return fail(err), nil
		}
		text, structured, err := adaptertest.HandSearch(ctx, b, in.Query)
		if err != nil {
			return fail(err), nil
		}
		return ok(text, structured), nil
	})
	s.AddTool(mcp.NewToolWithRawSchema("fetch", "", schema), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			ID           string `json:"id"`
			ConnectionID string `json:"connection_id"`
		}
		if err := req.BindArguments(&in); err != nil {
			return fail(err), nil
		}
		doc, err := adaptertest.HandFetch(ctx, b, in.ID, in.ConnectionID)
		if err != nil {
			return fail(err), nil
		}
		return ok(string(doc), doc), nil
	})
}

// BenchmarkRoundTrip measures a search and a fetch through mcp-go's client
// and in-process transport, with the tools of the adapter and with the same
// tools written by hand, in one run.
func BenchmarkRoundTrip(b *testing.B) {
	servers := []struct {
		name     string
		register func(*server.MCPServer, searchfetch.Backend)
	}{
		{"adapter", func(s *server.MCPServer, be searchfetch.Backend) { _ = mcpgo.Register(s, be, nil) }},
		{"hand", handTools},
	}
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "refund"}},
		{"fetch", map[string]any{"id": "c1/orders:o1"}},
	}
	for _, call := range calls {
		for _, srv := range servers {
			b.Run(call.tool+"/"+srv.name, func(b *testing.B) {
				s := server.NewMCPServer("bench", "v0.0.1")
				srv.register(s, &adaptertest.Backend{})
				c := connectTo(b, s)
				req := mcp.CallToolRequest{}
				req.Params.Name, req.Params.Arguments = call.tool, call.args
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					res, err := c.CallTool(ctx, req)
					if err != nil || res.IsError {
						require.FailNow(b, "call failed", "%v %v", err, res)
					}
				}
			})
		}
	}
}
