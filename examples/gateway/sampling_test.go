package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// askServer is a downstream whose tool "ask" elicits a key from the user
// (as MCP 2026-07-28 asks: a result that requests input, and the call
// again with the answer) and answers what came back, and whose tool
// "hold" answers once release is closed, telling holding when it runs.
func askServer(holding chan<- struct{}, release <-chan struct{}) downstreamSpec {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if res, ok := req.Params.InputResponses["key"].(*mcp.ElicitResult); ok && res.Action == "accept" {
			key, _ := res.Content["key"].(string)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: key}}}, nil, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"key": &mcp.ElicitParams{
			Message: "enter your API key",
			RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}},
			},
		}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "hold"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		holding <- struct{}{}
		<-release
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil, nil
	})
	return downstreamSpec{name: "asker", transport: inProcess{srv}}
}

// TestElicitationOwner: a downstream's elicitation reaches the caller
// whose call made it when that caller's calls are the only ones in flight
// to the downstream; while another caller's call is in flight too, it
// reaches no one, and the downstream gets an error it handles; a caller
// that did not declare elicitation is never asked.
func TestElicitationOwner(t *testing.T) {
	holding, release := make(chan struct{}, 1), make(chan struct{})
	g, _ := startGateway(t, config{}, askServer(holding, release))
	var mu sync.Mutex
	asked := map[string]int{}
	connect := func(name string, answers bool) *mcp.ClientSession {
		opts := &mcp.ClientOptions{}
		if answers {
			opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				asked[name]++
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"key": name + "'s key"}}, nil
			}
		}
		// A caller before MCP 2026-07-28, which the gateway asks with
		// elicitation/create during its call.
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, opts).Connect(t.Context(), inProcess{g.srv}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	alice, bob, carol := connect("alice", true), connect("bob", true), connect("carol", false)
	ask := func(cs *mcp.ClientSession) string {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		require.NoError(t, err)
		if res.IsError {
			return "refused"
		}
		return resultText(res)
	}

	assert.Equal(t, "alice's key", ask(alice), "alone in flight: asked")
	assert.Equal(t, "refused", ask(carol), "a caller without the capability is never asked")

	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := bob.CallTool(context.Background(), &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{}})
		assert.NoError(t, err)
	}()
	select {
	case <-holding:
	case <-time.After(testTimeout):
		t.Fatal("hold did not start")
	}
	assert.Equal(t, "refused", ask(alice), "another caller's call in flight: asked no one")
	close(release)
	<-done
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, map[string]int{"alice": 1}, asked)
}
