package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/serve"
)

// startingReplica starts a -stateless gateway on the stores given, over
// one docServer downstream that connects only once release is closed,
// and returns it with a client connected once /healthz answers: as a
// replica of a rolling restart that a load balancer sends a request to
// as soon as the process serves. release nil makes the downstream never
// connect.
func startingReplica(t *testing.T, cfg config, release chan struct{}) (*gateway, *mcp.ClientSession) {
	t.Helper()
	cfg.stateless = true
	if cfg.timeout == 0 {
		cfg.timeout = testTimeout
	}
	g, err := newGateway(cfg)
	require.NoError(t, err)
	t.Cleanup(g.close)
	if release == nil {
		release = make(chan struct{})
	}
	docs := downstreamSpec{name: "docs", transport: gatedTransport{inProcess{docServer("docs")}, release}}
	require.NoError(t, g.start(t.Context(), []downstreamSpec{docs}))
	hs := httptest.NewServer(g.handler(serve.DefaultLimits, true))
	t.Cleanup(hs.Close)
	require.Equal(t, http.StatusOK, get(t, hs.URL+"/healthz", nil))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "caller", Version: "v0"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return g, cs
}

// releaseOn returns a receiving middleware that closes release when a
// request of method reaches the gateway: the downstream starts only once
// the request is in.
func releaseOn(method string, release chan struct{}) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
			if m == method {
				select {
				case <-release:
				default:
					close(release)
				}
			}
			return next(ctx, m, req)
		}
	}
}

// TestStartingReplicaRoutes: a replica that has just started, whose
// downstream has not listed yet, answers a request that routes by a name
// the stored table holds (tools/call, prompts/get, resources/read) once
// the downstream has listed, never "unknown"; so does one that no table
// is stored for yet, once the chain's first round is done. A downstream
// that does not list within -start-timeout leaves such requests answered
// resource_unavailable, which says to try again: a tool error for
// tools/call, the envelope in the JSON-RPC error's data for the others.
func TestStartingReplicaRoutes(t *testing.T) {
	// The chain, as the replicas before the restart stored it.
	store, promptStore := new(chainstore.Mem), new(chainstore.Mem)
	before, _ := startGateway(t, config{store: store, promptStore: promptStore}, downstreamSpec{name: "docs", transport: inProcess{docServer("docs")}})
	require.Eventually(t, func() bool { return before.kinds.ServedPrompts() == 1 }, testTimeout, 10*time.Millisecond)
	before.close()

	requests := []struct {
		method string
		send   func(cs *mcp.ClientSession) (string, error)
	}{
		{"tools/call", func(cs *mcp.ClientSession) (string, error) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "touch", Arguments: map[string]any{}})
			if err != nil {
				return "", err
			}
			if code := codeOf(res); code != "" {
				return "tool error " + code, nil
			}
			return resultText(res), nil
		}},
		{"prompts/get", func(cs *mcp.ClientSession) (string, error) {
			res, err := cs.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"topic": "ids"}})
			if err != nil {
				return "", err
			}
			return res.Messages[0].Content.(*mcp.TextContent).Text, nil
		}},
		{"resources/read", func(cs *mcp.ClientSession) (string, error) {
			res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///README.md"})
			if err != nil {
				return "", err
			}
			return res.Contents[0].Text, nil
		}},
	}
	answers := map[string]string{"tools/call": "touched", "prompts/get": "docs summarizes ids", "resources/read": "docs's README"}
	for _, r := range requests {
		t.Run(r.method, func(t *testing.T) {
			release := make(chan struct{})
			g, cs := startingReplica(t, config{store: store, promptStore: promptStore}, release)
			g.srv.AddReceivingMiddleware(releaseOn(r.method, release))
			got, err := r.send(cs)
			require.NoError(t, err)
			assert.Equal(t, answers[r.method], got, "a name the stored table holds, sent before its downstream listed")
		})
		t.Run(r.method+" no table yet", func(t *testing.T) {
			release := make(chan struct{})
			g, cs := startingReplica(t, config{}, release)
			g.srv.AddReceivingMiddleware(releaseOn(r.method, release))
			got, err := r.send(cs)
			require.NoError(t, err)
			assert.Equal(t, answers[r.method], got, "sent before the chain's first round")
		})
		t.Run(r.method+" never listed", func(t *testing.T) {
			_, cs := startingReplica(t, config{store: store, promptStore: promptStore, startTimeout: 200 * time.Millisecond}, nil)
			got, err := r.send(cs)
			if r.method == "tools/call" {
				require.NoError(t, err)
				assert.Equal(t, "tool error resource_unavailable", got)
				return
			}
			var werr *jsonrpc.Error
			require.True(t, errors.As(err, &werr), "want a JSON-RPC error, got %v", err)
			var env struct{ Code string }
			require.NoError(t, json.Unmarshal(werr.Data, &env), "the envelope in the error's data: %s", werr.Data)
			assert.Equal(t, "resource_unavailable", env.Code)
		})
	}
}
