package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/mcpgo"
	"github.com/mcpid/mcpid/searchfetch"
)

// handTools registers search and fetch written by hand on mcp-go, doing
// what the adapter does without its argument checks, its backend call
// bounded by adaptertest.Bounded as the adapter bounds it by default: the
// baseline of BenchmarkRoundTrip.
func handTools(s *server.MCPServer, b searchfetch.Backend) {
	schema := json.RawMessage(`{"type":"object"}`)
	for _, tool := range adaptertest.HandTools(b) {
		s.AddTool(mcp.NewToolWithRawSchema(tool.Name, "", schema), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, structured, err := tool.Call(ctx, req.BindArguments)
			if err != nil {
				env, _ := json.Marshal(err)
				return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(string(env))}, StructuredContent: json.RawMessage(env), IsError: true}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, StructuredContent: structured}, nil
		})
	}
}

// roundTrips are the round-trip benchmarks on this SDK.
var roundTrips = adaptertest.RoundTrips[*server.MCPServer]{
	Trip:    roundTrip,
	Adapter: func(s *server.MCPServer, be searchfetch.Backend) { _ = mcpgo.Register(s, be, nil) },
	Hand:    handTools,
	Inline: func(s *server.MCPServer, be searchfetch.Backend) {
		_ = mcpgo.Register(s, be, &searchfetch.Options{Inline: true})
	},
}

// roundTrip returns call made through mcp-go's client and in-process
// transport, to a new server whose tools register adds over
// adaptertest.Backend; it fails on a tool error too.
func roundTrip(tb testing.TB, register func(*server.MCPServer, searchfetch.Backend), call adaptertest.BenchCall) func() error {
	s := server.NewMCPServer("bench", "v0.0.1")
	register(s, &adaptertest.Backend{})
	c := connectTo(tb, s)
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = call.Tool, call.Args
	ctx := context.Background()
	return func() error {
		res, err := c.CallTool(ctx, req)
		if err == nil && res.IsError {
			err = fmt.Errorf("tool error: %v", res.Content)
		}
		return err
	}
}

// BenchmarkRoundTrip measures a search and a fetch through mcp-go's client
// and in-process transport, with the tools of the adapter and with the same
// tools written by hand, one after the other in one run.
func BenchmarkRoundTrip(b *testing.B) { roundTrips.Bench(b) }

// BenchmarkRoundTripPaired makes the same calls through the adapter and by
// hand alternately in one loop; see [adaptertest.RoundTrips.BenchPaired].
func BenchmarkRoundTripPaired(b *testing.B) { roundTrips.BenchPaired(b) }

// TestHandTwin: the hand-written tools the benchmarks measure the adapter
// against answer their calls exactly as the adapter does.
func TestHandTwin(t *testing.T) {
	s := server.NewMCPServer("hand", "v0.0.1")
	handTools(s, &adaptertest.Backend{})
	adaptertest.RunTwin(t, connect(t, &adaptertest.Backend{}, nil), mcpClient{c: connectTo(t, s)})
}
