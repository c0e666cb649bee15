//lint:file-ignore SA1019 MCP 2026-07-28 deprecates logging and elicitation, which stay functional for at least a year; the gateway relays them while downstreams and hosts use them.

package gateway

import (
	"context"
	"fmt"
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

// ownerServer is a downstream whose work outlives what the gateway waits
// for, or that the gateway never registered before: its tool "late"
// ignores cancellation, waits for goLate, then logs and asks for bob's
// secret and tells lateDone; its prompt "p"'s completion waits for goC,
// then does the same; its tool "hold" tells holding, waits for release,
// and logs "alice's log" before it answers.
type ownerServer struct {
	goLate, goC, release chan struct{}
	holding, lateDone    chan struct{}
}

func newOwnerServer() *ownerServer {
	return &ownerServer{
		goLate: make(chan struct{}), goC: make(chan struct{}), release: make(chan struct{}),
		holding: make(chan struct{}, 1), lateDone: make(chan struct{}),
	}
}

func (o *ownerServer) spec() downstreamSpec {
	secret := func(ss *mcp.ServerSession, what string) {
		_ = ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: "error", Data: "bob's secret " + what})
		_, _ = ss.Elicit(context.Background(), &mcp.ElicitParams{Message: "bob: enter your API key " + what,
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}}}})
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "owner", Version: "v0"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			<-o.goC
			secret(req.Session, "(completion)")
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{"x"}}}, nil
		},
	})
	srv.AddPrompt(&mcp.Prompt{Name: "p", Arguments: []*mcp.PromptArgument{{Name: "a"}}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "late"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		<-o.goLate
		secret(req.Session, "(late call)")
		close(o.lateDone)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "hold"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		o.holding <- struct{}{}
		<-o.release
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Data: "alice's log"})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil, nil
	})
	return downstreamSpec{name: "owner", transport: inProcess{srv}}
}

// seenLog is what one caller received: its log messages and the
// elicitations it was asked.
type seenLog struct {
	mu   sync.Mutex
	msgs []string
}

func (s *seenLog) add(m string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, m)
}

func (s *seenLog) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.msgs...)
}

// ownerClient connects a caller to g that asks for every log level and
// declines every elicitation, recording both in s.
func ownerClient(t *testing.T, g *gateway, s *seenLog) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			s.add("elicit: " + r.Params.Message)
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			s.add(fmt.Sprint("log: ", r.Params.Data))
		},
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, opts).Connect(t.Context(), inProcess{g.srv}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	require.NoError(t, cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "debug"}))
	return cs
}

// holdCall calls "hold" as cs in the background, once the server holds it,
// and returns a channel closed when it is answered.
func holdCall(t *testing.T, cs *mcp.ClientSession, o *ownerServer) <-chan struct{} {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{}})
	}()
	select {
	case <-o.holding:
	case <-time.After(testTimeout):
		t.Fatal("hold was not called")
	}
	return done
}

// TestTimedOutCallStillOwns: bob's call times out at the gateway, but the
// downstream goes on with it; while alice's call is then in flight, what
// the downstream sends for bob's call (a log, an elicitation) reaches no
// one, since it names no call and bob's still counts. Once the downstream
// answers bob's call, alice's own log reaches her again.
func TestTimedOutCallStillOwns(t *testing.T) {
	o := newOwnerServer()
	g, _ := startGateway(t, config{timeout: time.Second}, o.spec())
	var aliceSeen, bobSeen seenLog
	alice, bob := ownerClient(t, g, &aliceSeen), ownerClient(t, g, &bobSeen)

	res, err := bob.CallTool(t.Context(), &mcp.CallToolParams{Name: "late", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.Equal(t, "resource_unavailable", envelopeCode(t, res), "bob's call timed out")
	done := holdCall(t, alice, o)
	close(o.goLate)
	<-o.lateDone
	d := g.downstreams["owner"]
	require.Eventually(t, func() bool { return d.InFlight.Owner() != nil }, testTimeout, 10*time.Millisecond,
		"once the downstream answers bob's call, alice's call is the only one")
	close(o.release)
	<-done
	// A client handles a notification on a goroutine of its own: it may
	// come after the answer.
	require.Eventually(t, func() bool { return len(aliceSeen.get()) > 0 }, testTimeout, 10*time.Millisecond)
	assert.Equal(t, []string{"log: alice's log"}, aliceSeen.get(), "none of bob's; alice's own")
	assert.Empty(t, bobSeen.get(), "bob's call was over: nothing to send it with")
}

// TestEveryRelayedRequestOwns: a completion, like any relayed request,
// counts as its caller's call in flight: what the downstream sends while
// it works on bob's completion and alice's call never reaches alice.
func TestEveryRelayedRequestOwns(t *testing.T) {
	o := newOwnerServer()
	g, _ := startGateway(t, config{}, o.spec())
	var aliceSeen, bobSeen seenLog
	alice, bob := ownerClient(t, g, &aliceSeen), ownerClient(t, g, &bobSeen)
	done := holdCall(t, alice, o)
	completed := make(chan error, 1)
	go func() {
		_, err := bob.Complete(context.Background(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "p"},
			Argument: mcp.CompleteParamsArgument{Name: "a"}})
		completed <- err
	}()
	d := g.downstreams["owner"]
	require.Eventually(t, func() bool { return d.InFlight.Owner() == nil }, testTimeout, 10*time.Millisecond,
		"bob's completion is in flight beside alice's call")
	close(o.goC)
	require.NoError(t, <-completed)
	close(o.release)
	<-done
	require.Eventually(t, func() bool { return len(aliceSeen.get()) > 0 }, testTimeout, 10*time.Millisecond)
	assert.Equal(t, []string{"log: alice's log"}, aliceSeen.get(), "none of bob's")
	assert.Empty(t, bobSeen.get(), "alice's call was in flight too")
}

// TestStaleCallExpires: a downstream may never answer a request the
// gateway stopped waiting for (MCP asks a server not to answer a
// cancelled request): bob's call counts while one more -timeout passes,
// then no longer, and alice's own log reaches her again.
func TestStaleCallExpires(t *testing.T) {
	o := newOwnerServer()
	g, _ := startGateway(t, config{timeout: time.Second}, o.spec())
	t.Cleanup(func() { close(o.goLate) }) // before the gateway closes: bob's call never ends while the test runs
	var aliceSeen, bobSeen seenLog
	alice, bob := ownerClient(t, g, &aliceSeen), ownerClient(t, g, &bobSeen)

	res, err := bob.CallTool(t.Context(), &mcp.CallToolParams{Name: "late", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.Equal(t, "resource_unavailable", envelopeCode(t, res), "bob's call timed out")
	d := g.downstreams["owner"]
	assert.Equal(t, 1, d.InFlight.Counted(), "bob's unanswered call still counts")
	require.Eventually(t, func() bool { return d.InFlight.Counted() == 0 }, testTimeout, 10*time.Millisecond,
		"a -timeout later, it no longer does")
	done := holdCall(t, alice, o)
	assert.NotNil(t, d.InFlight.Owner(), "alice's call is the only one")
	close(o.release)
	<-done
	require.Eventually(t, func() bool { return len(aliceSeen.get()) > 0 }, testTimeout, 10*time.Millisecond)
	assert.Equal(t, []string{"log: alice's log"}, aliceSeen.get())
	assert.Empty(t, bobSeen.get())
}
