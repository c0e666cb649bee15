package gateway

import (
	"context"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// askServer is a downstream whose tool "ask" elicits a key from the user
// and answers what came back ("refused" when it cannot), and whose tool
// "hold" answers once release is closed, telling holding when it runs.
// A legacy askServer elicits with elicitation/create during the call;
// otherwise it speaks MCP 2026-07-28 only (it refuses initialize, so the
// gateway's link falls back to that version) and asks as 2026-07-28 does:
// a result that requests input, and the call again with the answer.
func askServer(legacy bool, holding chan<- struct{}, release <-chan struct{}) downstreamSpec {
	srv := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "v0"}, nil)
	if !legacy {
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "initialize" {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "this server speaks MCP 2026-07-28 only"}
				}
				return next(ctx, method, req)
			}
		})
	}
	schema := map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}}}
	answer := func(text string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if legacy {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "enter your API key", RequestedSchema: schema})
			if err != nil || res.Action != "accept" {
				return answer("refused"), nil, nil
			}
			key, _ := res.Content["key"].(string)
			return answer(key), nil, nil
		}
		if res, ok := req.Params.InputResponses["key"].(*mcp.ElicitResult); ok && res.Action == "accept" {
			key, _ := res.Content["key"].(string)
			return answer(key), nil, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"key": &mcp.ElicitParams{
			Message: "enter your API key", RequestedSchema: schema,
		}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "hold"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		holding <- struct{}{}
		<-release
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil, nil
	})
	return downstreamSpec{name: "asker", transport: inProcess{srv}}
}

// TestElicitationOwner: a legacy downstream's elicitation request, which
// names no call, reaches the caller whose call made it when that caller's
// calls are the only ones in flight to the downstream; while another
// caller's call is in flight too, it reaches no one, and the downstream
// gets an error it handles; a caller that did not declare elicitation is
// never asked.
func TestElicitationOwner(t *testing.T) {
	holding, release := make(chan struct{}, 1), make(chan struct{})
	g, _ := startGateway(t, config{}, askServer(true, holding, release))
	asked := &askLog{}
	alice, bob, carol := asked.connect(t, g, "alice", "2025-11-25", true), asked.connect(t, g, "bob", "2025-11-25", true), asked.connect(t, g, "carol", "2025-11-25", false)

	assert.Equal(t, "alice's key", ask(t, alice), "alone in flight: asked")
	assert.Equal(t, "refused", ask(t, carol), "a caller without the capability is never asked")
	holdWhile(t, bob, holding, release, func() {
		assert.Equal(t, "refused", ask(t, alice), "another caller's call in flight: asked no one")
	})
	assert.Equal(t, map[string]int{"alice": 1}, asked.counts())
}

// TestInputRequests: a downstream that speaks MCP 2026-07-28 only asks for
// input in its result, which names its call: the question reaches the caller whose
// call it is, even while another caller's call is in flight, on either
// protocol version of the caller, and the answer goes back to the
// downstream.
func TestInputRequests(t *testing.T) {
	holding, release := make(chan struct{}, 1), make(chan struct{})
	g, _ := startGateway(t, config{}, askServer(false, holding, release))
	asked := &askLog{}
	alice, dave := asked.connect(t, g, "alice", "2025-11-25", true), asked.connect(t, g, "dave", "2026-07-28", true)
	bob := asked.connect(t, g, "bob", "2025-11-25", true)
	holdWhile(t, bob, holding, release, func() {
		assert.Equal(t, "alice's key", ask(t, alice))
		assert.Equal(t, "dave's key", ask(t, dave))
	})
	assert.Equal(t, map[string]int{"alice": 1, "dave": 1}, asked.counts())
}

// askLog counts the elicitations each test client answered.
type askLog struct {
	mu    sync.Mutex
	asked map[string]int
}

func (l *askLog) counts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.asked)
}

// connect connects a client named name to g on the protocol version,
// answering elicitations with its key when answers is set.
func (l *askLog) connect(t *testing.T, g *gateway, name, version string, answers bool) *mcp.ClientSession {
	opts := &mcp.ClientOptions{}
	if answers {
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.asked == nil {
				l.asked = map[string]int{}
			}
			l.asked[name]++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"key": name + "'s key"}}, nil
		}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, opts).Connect(t.Context(), inProcess{g.srv}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// ask calls the tool ask and returns its answer, "refused" for an error.
func ask(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	require.NoError(t, err)
	if res.IsError {
		return "refused"
	}
	return resultText(res)
}

// holdWhile runs f while cs's call of the tool hold is in flight.
func holdWhile(t *testing.T, cs *mcp.ClientSession, holding <-chan struct{}, release chan<- struct{}, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{}})
		assert.NoError(t, err)
	}()
	select {
	case <-holding:
	case <-time.After(testTimeout):
		t.Fatal("hold did not start")
	}
	f()
	close(release)
	<-done
}
