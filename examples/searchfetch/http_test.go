package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longLimits are limits none of which acts within a test.
var longLimits = serve.Limits{
	SessionIdle:       time.Minute,
	ReadHeaderTimeout: time.Minute,
	ReadTimeout:       time.Minute,
	IdleTimeout:       time.Minute,
	MaxBody:           serve.DefaultLimits.MaxBody,
	MaxSessions:       serve.DefaultLimits.MaxSessions,
}

// serveLoopback serves s over streamable HTTP on 127.0.0.1 as hc says, as
// the -http mode does, and returns the server's address.
func serveLoopback(t *testing.T, s mcpServer, hc httpConfig) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := serve.NewServer(s.handler(hc), hc.lim)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
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
			addr := serveLoopback(t, newTestServer(t, sdk, false), httpConfig{lim: longLimits})
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

// TestSessionCap: over HTTP, with each SDK, at most -max-sessions
// sessions are open: at the bound, an initialize closes the session idle
// longest, whose requests are then answered 404, and the others go on.
// (The handlers' own tests hold the bound under bursts, floods, users and
// requests in flight.)
func TestSessionCap(t *testing.T) {
	const maxSessions = 3
	for _, sdk := range sdks {
		t.Run(sdk, func(t *testing.T) {
			lim := longLimits
			lim.MaxSessions = maxSessions
			addr := serveLoopback(t, newTestServer(t, sdk, false), httpConfig{lim: lim})
			var ids []string
			for range maxSessions + 1 {
				status, header, body := initialize(t, addr, "")
				require.Equal(t, http.StatusOK, status, body)
				require.NotEmpty(t, header.Get("Mcp-Session-Id"))
				ids = append(ids, header.Get("Mcp-Session-Id"))
			}
			assert.Equal(t, http.StatusNotFound, ping(t, addr, ids[0]), "the session idle longest is closed")
			for _, id := range ids[1:] {
				assert.Equal(t, http.StatusOK, ping(t, addr, id))
			}
		})
	}
}

// ping sends a ping on the session id and returns the answer's status.
func ping(t *testing.T, addr, id string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// initialize sends an initialize request of protocol version 2025-06-18,
// the last one whose sessions the server holds between requests, with
// the bearer token token unless it is "", and returns the answer's
// status, header and body.
func initialize(t *testing.T, addr, token string) (int, http.Header, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
		`"capabilities":{},"clientInfo":{"name":"http-test","version":"0"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(b)
}
