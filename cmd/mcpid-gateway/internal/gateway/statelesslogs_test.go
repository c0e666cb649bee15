//lint:file-ignore SA1019 MCP 2026-07-28 deprecates logging, which stays functional for at least a year; the gateway relays it while downstreams and hosts use it.

package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/serve"
)

// sdkLogger is a downstream on the go-sdk whose tool "work" logs one
// message at each of four levels, through the SDK's ServerSession.Log:
// so it sends nothing unless the gateway asked it for a level.
func sdkLogger(name string) downstreamSpec {
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "work"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		for _, level := range []mcp.LoggingLevel{"debug", "info", "warning", "error"} {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Data: string(level)})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	return downstreamSpec{name: name, transport: inProcess{srv}}
}

// TestLogLevels: a caller gets the log messages of its call that its level
// asks for, on both protocol versions, from a go-sdk downstream (which
// sends none until asked): the level it set with logging/setLevel before
// MCP 2026-07-28, its request's _meta level on 2026-07-28; a caller that
// asked for no level gets none.
func TestLogLevels(t *testing.T) {
	g, _ := startGateway(t, config{}, sdkLogger("sdk"))
	for _, tc := range []struct {
		name     string
		version  string
		setLevel mcp.LoggingLevel // "" sets none
		meta     string           // the call's _meta level; "" for none
		want     []string
	}{
		{"2025-11-25, no level", "2025-11-25", "", "", nil},
		{"2025-11-25, setLevel warning", "2025-11-25", "warning", "", []string{"warning", "error"}},
		{"2025-11-25, setLevel debug", "2025-11-25", "debug", "", []string{"debug", "info", "warning", "error"}},
		{"2026-07-28, no level", "2026-07-28", "", "", nil},
		{"2026-07-28, _meta info", "2026-07-28", "", "info", []string{"info", "warning", "error"}},
		{"2026-07-28, _meta error", "2026-07-28", "", "error", []string{"error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			client := mcp.NewClient(&mcp.Implementation{Name: "reader", Version: "v0"}, &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, string(req.Params.Level))
				},
			})
			cs, err := client.Connect(t.Context(), inProcess{g.srv}, &mcp.ClientSessionOptions{ProtocolVersion: tc.version})
			require.NoError(t, err)
			defer cs.Close()
			require.Equal(t, tc.version, cs.InitializeResult().ProtocolVersion)
			if tc.setLevel != "" {
				require.NoError(t, cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: tc.setLevel}))
			}
			params := &mcp.CallToolParams{Name: "work", Arguments: map[string]any{}}
			if tc.meta != "" {
				params.Meta = mcp.Meta{mcp.MetaKeyLogLevel: tc.meta}
			}
			res, err := cs.CallTool(t.Context(), params)
			require.NoError(t, err)
			require.Equal(t, "done", resultText(res))
			// The client may handle a notification after the answer
			// that followed it: wait for the messages wanted, then one
			// round trip more for any message beyond them.
			require.Eventually(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(got) >= len(tc.want)
			}, testTimeout, 5*time.Millisecond)
			require.NoError(t, cs.Ping(t.Context(), nil))
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tc.want, got)
		})
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
