package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/serve"
)

// alternating is a load balancer without affinity: it sends each HTTP
// request to the next replica in turn, and records which replica served
// which JSON-RPC method.
type alternating struct {
	replicas []*url.URL

	mu     sync.Mutex
	next   int
	served []string // "METHOD@replica"
}

func (a *alternating) RoundTrip(req *http.Request) (*http.Response, error) {
	a.mu.Lock()
	i := a.next % len(a.replicas)
	a.next++
	a.mu.Unlock()
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	var msg struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &msg)
	a.mu.Lock()
	a.served = append(a.served, fmt.Sprintf("%s@%d", msg.Method, i))
	a.mu.Unlock()
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host, r.Host = a.replicas[i].Scheme, a.replicas[i].Host, a.replicas[i].Host
	return http.DefaultTransport.RoundTrip(r)
}

// statelessReplicas starts two gateways on one store, each over
// downstream processes of its own, serving HTTP with or without
// -stateless, and returns a client transport that alternates between
// them at every request.
func statelessReplicas(t *testing.T, stateless bool) (*alternating, mcp.Transport) {
	store := new(chainstore.Mem)
	lb := &alternating{}
	for range 2 {
		srv, env := testServer(t, "busy", "progress")
		cfg, specs := fromArgs(t, io.Discard, "-server", srv, "-env", env)
		cfg.store, cfg.stateless = store, stateless
		g, _ := startGateway(t, cfg, specs...)
		hs := httptest.NewServer(g.handler(serve.DefaultLimits, stateless))
		t.Cleanup(hs.Close)
		u, err := url.Parse(hs.URL)
		require.NoError(t, err)
		lb.replicas = append(lb.replicas, u)
	}
	return lb, &mcp.StreamableClientTransport{
		Endpoint:   lb.replicas[0].String() + "/mcp",
		HTTPClient: &http.Client{Transport: lb},
		MaxRetries: -1, DisableStandaloneSSE: true,
	}
}

// TestStatelessReplicas: two -stateless replicas on one store, behind a
// load balancer that sends every request of one conversation to the
// other replica in turn, on MCP 2026-07-28: the tools are listed on one
// and called on the other, with the logs asked in the call's _meta and
// its progress arriving. Without -stateless, the second request reaches
// a replica that does not hold the session, and fails.
func TestStatelessReplicas(t *testing.T) {
	lb, transport := statelessReplicas(t, true)
	var heard notes
	client := mcp.NewClient(&mcp.Implementation{Name: "alternating", Version: "v0"}, heard.options())
	cs, err := client.Connect(t.Context(), transport, nil)
	require.NoError(t, err)
	defer cs.Close()
	assert.Equal(t, "2026-07-28", cs.InitializeResult().ProtocolVersion)

	for i := range 3 {
		// Listed once, then twice, then once: each replica answers
		// listings and calls, a call never on the replica that listed.
		for range 1 + i%2 {
			names, err := listNames(t.Context(), cs)
			require.NoError(t, err)
			require.Equal(t, []string{"search"}, names)
		}

		token := fmt.Sprintf("token-%d", i)
		//lint:ignore SA1019 the gateway relays logs while hosts use them
		params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}, Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
		params.SetProgressToken(token)
		res, err := cs.CallTool(t.Context(), params)
		require.NoError(t, err)
		require.Equal(t, "test answered search", resultText(res))
		want := []string{"progress " + token + " 1", "progress " + token + " 2", "log working on search"}
		assert.Equal(t, want, heard.wait(t, len(want)), "the call's progress and logs")
	}

	lb.mu.Lock()
	served := lb.served
	lb.mu.Unlock()
	t.Logf("served: %v", served)
	onReplica := map[string]map[string]bool{}
	for i, s := range served {
		method, replica, _ := strings.Cut(s, "@")
		if method == "tools/call" {
			_, listedOn, _ := strings.Cut(served[i-1], "@")
			assert.NotEqual(t, listedOn, replica, "request %d: a call on the replica that listed: %v", i, served)
		}
		if onReplica[method] == nil {
			onReplica[method] = map[string]bool{}
		}
		onReplica[method][replica] = true
	}
	assert.Len(t, onReplica["tools/list"], 2, "tools/list answered by both replicas: %v", served)
	assert.Len(t, onReplica["tools/call"], 2, "tools/call answered by both replicas: %v", served)

	t.Run("stateful", func(t *testing.T) {
		_, transport := statelessReplicas(t, false)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "alternating", Version: "v0"}, nil).Connect(t.Context(), transport, nil)
		if err == nil {
			defer cs.Close()
			_, err = listNames(t.Context(), cs)
		}
		require.Error(t, err, "a session reaches a replica that does not hold it")
	})
}

// TestStatelessRefusesSubscriptions: a stateless gateway answers a
// subscription to resources with an invalid-request error, and lets a
// listen for list changes alone through.
func TestStatelessRefusesSubscriptions(t *testing.T) {
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.ListToolsResult{}, nil }
	h := refuseSubscriptions(next)
	for _, tt := range []struct {
		method  string
		req     mcp.Request
		refused bool
	}{
		{"resources/subscribe", &mcp.SubscribeRequest{Params: &mcp.SubscribeParams{URI: "file:///a"}}, true},
		{"resources/unsubscribe", &mcp.UnsubscribeRequest{Params: &mcp.UnsubscribeParams{URI: "file:///a"}}, true},
		{"subscriptions/listen", &mcp.ServerRequest[*mcp.SubscriptionsListenParams]{Params: &mcp.SubscriptionsListenParams{
			Notifications: &mcp.NotificationSubscriptions{ResourceSubscriptions: []string{"file:///a"}}}}, true},
		{"subscriptions/listen", &mcp.ServerRequest[*mcp.SubscriptionsListenParams]{Params: &mcp.SubscriptionsListenParams{
			Notifications: &mcp.NotificationSubscriptions{ToolsListChanged: true}}}, false},
		{"tools/list", &mcp.ListToolsRequest{Params: &mcp.ListToolsParams{}}, false},
	} {
		_, err := h(t.Context(), tt.method, tt.req)
		if !tt.refused {
			assert.NoError(t, err, tt.method)
			continue
		}
		var werr *jsonrpc.Error
		require.ErrorAs(t, err, &werr, tt.method)
		assert.Equal(t, int64(jsonrpc.CodeInvalidRequest), werr.Code, tt.method)
	}
}

// TestStatelessLogsOnlyWhenAsked: a stateless gateway sends a caller log
// messages only when its request's _meta asks for a level, at that level
// and above, on every protocol version: before MCP 2026-07-28 the SDK
// gives each stateless request a session at level "info", which the
// caller never asked for.
func TestStatelessLogsOnlyWhenAsked(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			_, transport := statelessReplicas(t, true)
			var mu sync.Mutex
			var got []string
			client := mcp.NewClient(&mcp.Implementation{Name: "caller", Version: "v0"}, &mcp.ClientOptions{
				//lint:ignore SA1019 the gateway relays logs while hosts use them
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, fmt.Sprint(req.Params.Level, " ", req.Params.Data))
				},
			})
			cs, err := client.Connect(t.Context(), transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)
			defer cs.Close()
			require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
			// The test server logs "working on search" at info during a
			// call that asked for progress.
			for _, level := range []string{"", "error", "info"} {
				params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}, Meta: mcp.Meta{}}
				if level != "" {
					//lint:ignore SA1019 the gateway relays logs while hosts use them
					params.Meta[mcp.MetaKeyLogLevel] = level
				}
				params.SetProgressToken("token-" + level)
				res, err := cs.CallTool(t.Context(), params)
				require.NoError(t, err)
				require.Equal(t, "test answered search", resultText(res))
			}
			require.Eventually(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(got) > 0
			}, testTimeout, 10*time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, []string{"info working on search"}, got, "the log of the call that asked for info; none of the others")
		})
	}
}

// TestStatelessDebugLogs: a stateless caller whose request's _meta asks
// for debug gets the debug messages of its call, on 2025-11-25 as on
// 2026-07-28 (before 2026-07-28 the SDK gives the request's session the
// level info, and filtered them out before the gateway saw them).
func TestStatelessDebugLogs(t *testing.T) {
	srv, env := testServer(t, "logger", "logs")
	cfg, specs := fromArgs(t, io.Discard, "-server", srv, "-env", env)
	cfg.stateless = true
	g, _ := startGateway(t, cfg, specs...)
	hs := httptest.NewServer(g.handler(serve.DefaultLimits, true))
	t.Cleanup(hs.Close)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			client := mcp.NewClient(&mcp.Implementation{Name: "caller", Version: "v0"}, &mcp.ClientOptions{
				//lint:ignore SA1019 the gateway relays logs while hosts use them
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, string(req.Params.Level))
				},
			})
			cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true},
				&mcp.ClientSessionOptions{ProtocolVersion: version})
			require.NoError(t, err)
			defer cs.Close()
			require.Equal(t, version, cs.InitializeResult().ProtocolVersion)
			//lint:ignore SA1019 the gateway relays logs while hosts use them
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}, Meta: mcp.Meta{mcp.MetaKeyLogLevel: "debug"}})
			require.NoError(t, err)
			require.Equal(t, "test answered search", resultText(res))
			require.Eventually(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(got) >= len(testLogLevels)
			}, testTimeout, 5*time.Millisecond)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, testLogLevels, got)
		})
	}
}
