package gateway

import (
	"context"
	"crypto/subtle"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docsToken is the bearer token the test's HTTP servers want.
const docsToken = "s3cret-docs-token"

// remoteServer is a go-sdk MCP server over loopback HTTP, behind a
// bearer token, as a remote downstream of the gateway.
type remoteServer struct {
	srv       *mcp.Server
	url       string
	stateless bool
	// handler serves the MCP endpoint; forget replaces it with a new one,
	// which knows none of the sessions the old one opened.
	handler atomic.Pointer[http.Handler]
	// levels counts logging/setLevel requests, by the level set.
	mu     sync.Mutex
	levels []string
}

// newRemoteServer starts a remote server with the tool search, for the
// test's life; stateless keeps no session.
func newRemoteServer(t *testing.T, stateless bool) *remoteServer {
	t.Helper()
	rs := &remoteServer{stateless: stateless, srv: mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})}
	rs.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && method == "logging/setLevel" && p != nil {
				rs.mu.Lock()
				rs.levels = append(rs.levels, string(p.Level))
				rs.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	rs.addTool("search")
	rs.forget()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+docsToken)) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		(*rs.handler.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	rs.url = hs.URL + "/mcp"
	return rs
}

// addTool adds a tool that answers "docs answered NAME: QUERY".
func (rs *remoteServer) addTool(name string) {
	type in struct {
		Query string `json:"query"`
	}
	mcp.AddTool(rs.srv, &mcp.Tool{Name: name}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "docs answered " + name + ": " + a.Query}}}, nil, nil
	})
}

// forget serves the endpoint with a new handler, which knows no session.
func (rs *remoteServer) forget() {
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return rs.srv },
		&mcp.StreamableHTTPOptions{Stateless: rs.stateless})
	rs.handler.Store(&h)
}

// levelsSet returns the logging levels the gateway set, in order.
func (rs *remoteServer) levelsSet() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.levels...)
}

// docsArgs are the flags that reach rs as the server docs, with the token
// from DOCS_TOKEN.
func docsArgs(rs *remoteServer) []string {
	return []string{"-server", "docs=" + rs.url, "-header", "docs=Authorization: Bearer ${DOCS_TOKEN}"}
}

// TestRemoteDownstream: a server at an http URL is reached over
// streamable HTTP with the header of its -header, whose ${DOCS_TOKEN}
// the environment gives: its tools are listed under their names and a
// call is relayed.
func TestRemoteDownstream(t *testing.T) {
	t.Setenv("DOCS_TOKEN", docsToken)
	rs := newRemoteServer(t, false)
	cfg, specs := fromArgs(t, io.Discard, docsArgs(rs)...)
	_, c := startGateway(t, cfg, specs...)
	assert.Equal(t, []string{"search"}, c.names(t))
	assert.Equal(t, "docs answered search: q", resultText(c.call(t, "search", "q")))

	rs.addTool("fetch")
	waitChanged(t, c)
	require.Eventually(t, c.hasNames(t.Context(), 2), testTimeout, 20*time.Millisecond)
	assert.Equal(t, []string{"fetch", "search"}, c.names(t))
}
