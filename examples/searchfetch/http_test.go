package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid/examples/internal/serve"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitFor bounds how long a test polls for a limit to act: a limit of a
// second acts long before, however loaded the machine.
const waitFor = 20 * time.Second

// longLimits are limits none of which acts within a test.
var longLimits = serve.Limits{
	SessionIdle:       time.Minute,
	ReadHeaderTimeout: time.Minute,
	ReadTimeout:       time.Minute,
	IdleTimeout:       time.Minute,
	MaxBody:           serve.DefaultLimits.MaxBody,
}

// serveLoopback serves s over streamable HTTP on 127.0.0.1 with lim, as
// the -http mode does, and returns the server's address.
func serveLoopback(t *testing.T, s mcpServer, lim serve.Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := serve.NewServer(s.handler(lim), lim)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// openSessions returns how many MCP sessions s holds now.
func openSessions(t *testing.T, s mcpServer) int {
	t.Helper()
	switch s := s.(type) {
	case gosdkServer:
		n := 0
		for range s.srv.Sessions() {
			n++
		}
		return n
	case mcpgoServer:
		return int(s.live.Load())
	}
	t.Fatalf("unknown server %T", s)
	return 0
}

// openSession opens an MCP session over HTTP with an initialize request of
// protocol version 2025-06-18, the last one whose sessions the server
// holds between requests, and abandons it: no further request, no DELETE.
func openSession(t *testing.T, addr string) {
	t.Helper()
	status, header, _ := initialize(t, addr)
	require.Equal(t, http.StatusOK, status)
	require.NotEmpty(t, header.Get("Mcp-Session-Id"))
}

// TestSessionsExpireWhenIdle: sessions that clients open over HTTP and
// abandon, without a DELETE, are closed once they have been idle for
// SessionIdle, with each SDK. (The go-sdk row also covers the gateway
// example, which serves through the same [serve.GoSDKHandler].)
func TestSessionsExpireWhenIdle(t *testing.T) {
	const abandoned = 5
	// sessionIdle is long enough that a session a client has just opened
	// is usually still there when the test looks; mcp-go sweeps once a
	// second at most anyway.
	const sessionIdle = 2 * time.Second
	for _, sdk := range sdks {
		t.Run(sdk, func(t *testing.T) {
			s := newTestServer(t, sdk, false)
			lim := longLimits
			lim.SessionIdle = sessionIdle
			addr := serveLoopback(t, s, lim)
			// The server does keep sessions, so their end below is the
			// idle timeout's work. One count that sees a session held is
			// proof enough, and on a loaded machine a single look may come
			// too late.
			held := 0
			for range abandoned {
				openSession(t, addr)
				held = max(held, openSessions(t, s))
			}
			require.Positive(t, held, "the server holds the sessions it opens")
			require.Eventually(t, func() bool { return openSessions(t, s) == 0 }, waitFor, 10*time.Millisecond,
				"abandoned sessions are closed after SessionIdle")
		})
	}
}

// TestArgumentErrorsOverHTTP: over streamable HTTP, with each SDK, tool
// arguments of the wrong shape are answered with the envelope of an
// invalid_arguments tool error, since the tools are registered raw and
// check their arguments themselves. A call to a tool that does not exist
// never reaches a handler: each SDK answers it with a JSON-RPC error of
// its own, which a server cannot turn into an envelope.
func TestArgumentErrorsOverHTTP(t *testing.T) {
	tests := []struct {
		name string
		args any
	}{
		{"id not a string", map[string]any{"id": 7}},
		{"id missing", map[string]any{}},
		{"unknown argument", map[string]any{"id": "orders:o1", "connection": "cin_4f2a"}},
		{"not an object", "orders:o1"},
	}
	for _, sdk := range sdks {
		t.Run(sdk, func(t *testing.T) {
			addr := serveLoopback(t, newTestServer(t, sdk, false), longLimits)
			ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}, nil)
			require.NoError(t, err)
			defer cs.Close()
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: tt.args})
					require.NoError(t, err)
					e := envelopeOf(t, res)
					assert.Equal(t, searchfetch.CodeInvalidArguments, e.Code)
				})
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch_all", Arguments: map[string]any{}})
			require.Error(t, err, "an unknown tool is a protocol error")
		})
	}
}

// TestSessionCap: over HTTP, with each SDK, a client cannot open more than
// MaxSessions sessions: the next initialize is answered 503 with a JSON-RPC
// error, and a session that ends makes room again.
func TestSessionCap(t *testing.T) {
	const maxSessions = 3
	for _, sdk := range sdks {
		t.Run(sdk, func(t *testing.T) {
			s := newTestServer(t, sdk, false)
			lim := longLimits
			lim.MaxSessions = maxSessions
			lim.SessionIdle = 2 * time.Second
			addr := serveLoopback(t, s, lim)
			for range maxSessions {
				openSession(t, addr)
			}
			require.Equal(t, maxSessions, openSessions(t, s))
			status, _, body := initialize(t, addr)
			assert.Equal(t, http.StatusServiceUnavailable, status)
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"the server has too many open sessions; retry later"}}`, body)
			assert.Equal(t, maxSessions, openSessions(t, s), "the refused request opened nothing")

			// The idle sessions end; then a new one opens.
			require.Eventually(t, func() bool { return openSessions(t, s) < maxSessions }, waitFor, 10*time.Millisecond)
			openSession(t, addr)
		})
	}
}

// initialize sends an initialize request that would open a session and
// returns the answer's status, header and body.
func initialize(t *testing.T, addr string) (int, http.Header, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"http-test","version":"0"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}
