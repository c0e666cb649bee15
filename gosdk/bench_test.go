package gosdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// handTools registers search and fetch written by hand with the go-sdk's
// raw AddTool, doing what the adapter does without its argument checks,
// timeout and panic recovery: the baseline of BenchmarkRoundTrip.
func handTools(s *mcp.Server, b searchfetch.Backend) {
	fail := func(err error) *mcp.CallToolResult {
		env, _ := json.Marshal(err)
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(env)}}, StructuredContent: json.RawMessage(env)}
		res.SetError(err)
		return res
	}
	schema := json.RawMessage(`{"type":"object"}`)
	ok := func(text string, structured json.RawMessage) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}
	}
	s.AddTool(&mcp.Tool{Name: "search", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return fail(err), nil
		}
		text, structured, err := adaptertest.HandSearch(ctx, b, in.Query)
		if err != nil {
			return fail(err), nil
		}
		return ok(text, structured), nil
	})
	s.AddTool(&mcp.Tool{Name: "fetch", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			ID           string `json:"id"`
			ConnectionID string `json:"connection_id"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return fail(err), nil
		}
		doc, err := adaptertest.HandFetch(ctx, b, in.ID, in.ConnectionID)
		if err != nil {
			return fail(err), nil
		}
		return ok(string(doc), doc), nil
	})
}

// BenchmarkRoundTrip measures a search and a fetch through the go-sdk's
// client and in-memory transport, with the tools of the adapter and with the
// same tools written by hand, in one run.
func BenchmarkRoundTrip(b *testing.B) {
	servers := []struct {
		name     string
		register func(*mcp.Server, searchfetch.Backend)
	}{
		{"adapter", func(s *mcp.Server, be searchfetch.Backend) { _ = gosdk.Register(s, be, nil) }},
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
				s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "v0.0.1"}, nil)
				srv.register(s, &adaptertest.Backend{})
				session := connectTo(b, s)
				params := &mcp.CallToolParams{Name: call.tool, Arguments: call.args}
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					res, err := session.CallTool(ctx, params)
					if err != nil || res.IsError {
						require.FailNow(b, "call failed", "%v %v", err, res)
					}
				}
			})
		}
	}
}
