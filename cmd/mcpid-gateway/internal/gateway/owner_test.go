//lint:file-ignore SA1019 MCP 2026-07-28 deprecates logging and elicitation, which stay functional for at least a year; the gateway relays them while downstreams and hosts use them.

package gateway

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	require.Eventually(t, func() bool { return d.inFlight.Owner() != nil }, testTimeout, 10*time.Millisecond,
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
	require.Eventually(t, func() bool { return d.inFlight.Owner() == nil }, testTimeout, 10*time.Millisecond,
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
	assert.Equal(t, 1, d.inFlight.Counted(), "bob's unanswered call still counts")
	require.Eventually(t, func() bool { return d.inFlight.Counted() == 0 }, testTimeout, 10*time.Millisecond,
		"a -timeout later, it no longer does")
	done := holdCall(t, alice, o)
	assert.NotNil(t, d.inFlight.Owner(), "alice's call is the only one")
	close(o.release)
	<-done
	require.Eventually(t, func() bool { return len(aliceSeen.get()) > 0 }, testTimeout, 10*time.Millisecond)
	assert.Equal(t, []string{"log: alice's log"}, aliceSeen.get())
	assert.Empty(t, bobSeen.get())
}
