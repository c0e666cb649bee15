//lint:file-ignore SA1019 the test server has logging, which MCP 2026-07-28 deprecates and the gateway still relays.

package gateway

import (
	"context"
	"crypto/subtle"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
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
	subs   []string // the URIs subscribed to, in order
	// callLevels holds the log level in the _meta of each tools/call, in
	// order (nil for a call without one).
	callLevels []any
	hs         *http.Server
	// hang, when set, makes every request wait until its client gives up.
	hang atomic.Bool
}

// notesURI is the resource every remote test server has.
const notesURI = "file:///notes"

// subscribed returns the URIs subscribed to, in order.
func (rs *remoteServer) subscribed() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.subs...)
}

// newRemoteServer starts a remote server with the tool search, for the
// test's life; stateless keeps no session.
func newRemoteServer(t *testing.T, stateless bool) *remoteServer {
	t.Helper()
	rs := &remoteServer{stateless: stateless}
	rs.srv = mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "v1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{Subscribe: true}},
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			rs.mu.Lock()
			defer rs.mu.Unlock()
			rs.subs = append(rs.subs, req.Params.URI)
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	rs.srv.AddResource(&mcp.Resource{URI: notesURI, Name: "notes"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: notesURI, Text: "notes"}}}, nil
	})
	rs.srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && method == "logging/setLevel" && p != nil {
				rs.mu.Lock()
				rs.levels = append(rs.levels, string(p.Level))
				rs.mu.Unlock()
			}
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" && p != nil {
				rs.mu.Lock()
				rs.callLevels = append(rs.callLevels, p.Meta[mcp.MetaKeyLogLevel])
				rs.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	rs.addTool("search")
	rs.forget()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	rs.url = "http://" + ln.Addr().String() + "/mcp"
	rs.serve(t, ln)
	t.Cleanup(rs.die)
	return rs
}

// serve serves rs on ln until die.
func (rs *remoteServer) serve(t *testing.T, ln net.Listener) {
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+docsToken)) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if rs.hang.Load() {
			<-r.Context().Done() // a server that stopped answering
			return
		}
		(*rs.handler.Load()).ServeHTTP(w, r)
	})}
	rs.mu.Lock()
	rs.hs = hs
	rs.mu.Unlock()
	go func() { _ = hs.Serve(ln) }()
}

// die stops rs at once, as a process that crashed: its listener and
// every connection close.
func (rs *remoteServer) die() {
	rs.mu.Lock()
	hs := rs.hs
	rs.mu.Unlock()
	_ = hs.Close()
}

// revive serves rs again at its address, after die, as the process
// restarted: it knows none of the sessions it had.
func (rs *remoteServer) revive(t *testing.T) {
	u, err := url.Parse(rs.url)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", u.Host)
	require.NoError(t, err)
	rs.forget()
	rs.serve(t, ln)
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
	rs := newRemoteServer(t, false)
	_, c, _ := remoteGateway(t, rs)
	assert.Equal(t, []string{"search"}, c.names(t))
	assert.Equal(t, "docs answered search: q", resultText(c.call(t, "search", "q")))

	rs.addTool("fetch")
	waitChanged(t, c)
	require.Eventually(t, c.hasNames(t.Context(), 2), testTimeout, 20*time.Millisecond)
	assert.Equal(t, []string{"fetch", "search"}, c.names(t))
}

// TestRemoteHeaderFlags: a -header that cannot be sent stops the start
// with a usage error naming the server, the header or the variable, and
// never the value: an unset variable (a typo of DOCS_TOKEN), a value with
// a line break, an invalid or reserved header name, a server that is not
// HTTP, no such server. A ${VAR} anywhere in the value is read.
func TestRemoteHeaderFlags(t *testing.T) {
	t.Setenv("DOCS_TOKEN", docsToken)
	t.Setenv("DOCS_BROKEN", docsToken+"\r\nX-Injected: 1")
	o, err := parseArgs([]string{"-stdio", "-server", "docs=https://docs.example/mcp",
		"-header", "docs=Authorization: Bearer ${DOCS_TOKEN}", "-header", "docs=X-Both: ${DOCS_TOKEN}/${DOCS_TOKEN}", "-relist", "5s"}, io.Discard)
	require.NoError(t, err)
	require.Len(t, o.servers, 1)
	assert.Equal(t, http.Header{"Authorization": {"Bearer " + docsToken}, "X-Both": {docsToken + "/" + docsToken}}, o.servers[0].header)
	assert.Equal(t, "https://docs.example/mcp", o.servers[0].url)
	assert.Equal(t, 5*time.Second, o.servers[0].relist)

	for _, tt := range []struct {
		name   string
		header string
		want   string // in the error
	}{
		{"unset variable", "docs=Authorization: Bearer ${DOCS_TOKN}", "DOCS_TOKN is not set"},
		{"line break", "docs=Authorization: ${DOCS_BROKEN}", "control character"},
		{"invalid name", "docs=Bad Name: ${DOCS_TOKEN}", `"Bad Name"`},
		{"no name", "docs=: ${DOCS_TOKEN}", "not a valid HTTP header name"},
		{"reserved name", "docs=Mcp-Session-Id: ${DOCS_TOKEN}", "Mcp-Session-Id"},
		{"unclosed variable", "docs=Authorization: Bearer ${DOCS_TOKEN", `without its closing "}"`},
		{"stdio server", "local=Authorization: ${DOCS_TOKEN}", `"local" runs a command over stdio`},
		{"no such server", "other=Authorization: ${DOCS_TOKEN}", `no -server is named "other"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stderr := new(strings.Builder)
			err := Run(t.Context(), []string{"-stdio", "-server", "docs=https://docs.example/mcp", "-server", "local=/bin/true",
				"-header", "docs=X-Fine: ${DOCS_TOKEN}", "-header", tt.header}, io.Discard, stderr)
			require.ErrorIs(t, err, serve.ErrUsage)
			assert.Contains(t, stderr.String(), tt.want)
			assert.NotContains(t, stderr.String()+err.Error(), docsToken, "a header's value is never shown")
		})
	}
	_, err = parseArgs([]string{"-stdio", "-server", "docs=https://docs.example/mcp", "-env", "docs=A=B"}, io.Discard)
	require.ErrorIs(t, err, serve.ErrUsage, "-env for an HTTP server")
	_, err = parseArgs([]string{"-stdio", "-relist", "-1s"}, io.Discard)
	require.ErrorIs(t, err, serve.ErrUsage)
}

// remoteGateway starts a gateway on rs as the server docs, with the token
// from DOCS_TOKEN and the extra flags, logging at debug to the returned
// buffer.
func remoteGateway(t *testing.T, rs *remoteServer, flags ...string) (*gateway, *client, *syncbuf.Buffer) {
	t.Helper()
	return remoteGatewayTimeout(t, rs, testTimeout, flags...)
}

// remoteGatewayTimeout is remoteGateway with the gateway's timeout.
func remoteGatewayTimeout(t *testing.T, rs *remoteServer, timeout time.Duration, flags ...string) (*gateway, *client, *syncbuf.Buffer) {
	t.Helper()
	t.Setenv("DOCS_TOKEN", docsToken)
	logs := new(syncbuf.Buffer)
	cfg, specs := fromArgs(t, io.Discard, append(docsArgs(rs), flags...)...)
	cfg.logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.timeout = timeout
	g, c := startGateway(t, cfg, specs...)
	t.Cleanup(func() {
		assert.NotContains(t, logs.String(), docsToken, "a header's value is never logged")
	})
	return g, c, logs
}

// TestRemoteSessionExpired: a downstream whose server forgets its
// sessions (it restarted, or they expired) answers 404 to the gateway's
// next request; the gateway opens a new session, sets its logging level
// and the callers' resource subscriptions again, and sends the call that
// met the 404 again: its caller sees the answer.
func TestRemoteSessionExpired(t *testing.T) {
	rs := newRemoteServer(t, false)
	g, c, _ := remoteGateway(t, rs)
	listening(t, g, "docs")
	// A client of 2025-11-25 subscribes with resources/subscribe.
	sub, err := mcp.NewClient(&mcp.Implementation{Name: "subscriber", Version: "v0"}, nil).Connect(t.Context(), inProcess{g.srv}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Close() })
	require.NoError(t, sub.Subscribe(t.Context(), &mcp.SubscribeParams{URI: notesURI}))
	assert.Equal(t, []string{"debug"}, rs.levelsSet())
	assert.Equal(t, []string{notesURI}, rs.subscribed())

	rs.forget()
	assert.Equal(t, "docs answered search: again", resultText(c.call(t, "search", "again")), "the call is sent again on the new session")
	assert.Equal(t, []string{"debug", "debug"}, rs.levelsSet(), "the new session's level is set")
	require.Eventually(t, func() bool { return len(rs.subscribed()) == 2 }, testTimeout, 10*time.Millisecond)
	assert.Equal(t, []string{notesURI, notesURI}, rs.subscribed(), "the subscription is made again")
}

// TestRemoteCallAsksForLogs: a call to an HTTP downstream that keeps no
// session carries the log level in its _meta, since the level set when
// the gateway connected reached a session that ended there; to one that
// keeps a session, the level is set once and its calls carry none.
func TestRemoteCallAsksForLogs(t *testing.T) {
	for _, tt := range []struct {
		name      string
		stateless bool
		want      any
	}{
		{"keeps a session", false, nil},
		{"keeps no session", true, "debug"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := newRemoteServer(t, tt.stateless)
			_, c, _ := remoteGateway(t, rs)
			assert.Equal(t, "docs answered search: q", resultText(c.call(t, "search", "q")))
			rs.mu.Lock()
			defer rs.mu.Unlock()
			assert.Equal(t, []any{tt.want}, rs.callLevels)
		})
	}
}

// TestRemoteResourceUpdated: a caller subscribed to a resource of an HTTP
// downstream gets the updates its server sends outside any call, and gets
// them again once the downstream's session was opened again: the
// subscriptions are made on the session that listens, on whose stream the
// server sends them.
func TestRemoteResourceUpdated(t *testing.T) {
	rs := newRemoteServer(t, false)
	g, c, _ := remoteGateway(t, rs)
	listening(t, g, "docs")
	updated := make(chan string, 8)
	sub, err := mcp.NewClient(&mcp.Implementation{Name: "subscriber", Version: "v0"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	}).Connect(t.Context(), inProcess{g.srv}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Close() })
	require.NoError(t, sub.Subscribe(t.Context(), &mcp.SubscribeParams{URI: notesURI}))
	// The SDK opens a session's event stream just after the session, and
	// its server drops what it sends before: the update is sent again
	// until one arrives.
	waitUpdate := func(why string) {
		t.Helper()
		deadline := time.After(testTimeout)
		for {
			require.NoError(t, rs.srv.ResourceUpdated(t.Context(), &mcp.ResourceUpdatedNotificationParams{URI: notesURI}))
			select {
			case uri := <-updated:
				assert.Equal(t, notesURI, uri, why)
				return
			case <-time.After(50 * time.Millisecond):
			case <-deadline:
				t.Fatal("no update reached the subscriber: " + why)
			}
		}
	}
	waitUpdate("an update sent outside a call")

	rs.forget()
	assert.Equal(t, "docs answered search: again", resultText(c.call(t, "search", "again")))
	require.Eventually(t, func() bool { return len(rs.subscribed()) == 2 }, testTimeout, 10*time.Millisecond)
	waitUpdate("an update after the session was opened again")
}

// TestRemoteSessionless: a server that keeps no session sends no
// list_changed; with -relist, its tools are listed again on that interval,
// and a tool it adds is served.
func TestRemoteSessionless(t *testing.T) {
	rs := newRemoteServer(t, true)
	_, c, _ := remoteGateway(t, rs, "-relist", "50ms")
	assert.Equal(t, []string{"search"}, c.names(t))
	assert.Equal(t, "docs answered search: q", resultText(c.call(t, "search", "q")))
	rs.addTool("fetch")
	waitChanged(t, c)
	require.Eventually(t, c.hasNames(t.Context(), 2), testTimeout, 20*time.Millisecond)
	assert.Equal(t, []string{"fetch", "search"}, c.names(t))
}

// TestRemoteHung: a downstream that stops answering costs its callers at
// most -timeout: the call answers resource_unavailable, which is
// retryable; once it answers again, so do its calls.
func TestRemoteHung(t *testing.T) {
	skipShort(t)
	rs := newRemoteServer(t, false)
	g, c, _ := remoteGatewayTimeout(t, rs, time.Second, "-timeout", "1s")
	listening(t, g, "docs")
	rs.hang.Store(true)
	res := c.call(t, "search", "q")
	assert.Equal(t, "resource_unavailable", envelopeCode(t, res))
	assert.Contains(t, resultText(res), `"retryable":true`)
	rs.hang.Store(false)
	// The hung call may have ended the session, which opens again after
	// the restart backoff (at most -timeout): within that and a call's
	// -timeout, with room for a slow machine, a call gets the answer.
	require.Eventually(t, func() bool { return resultText(c.call(t, "search", "back")) == "docs answered search: back" },
		4*time.Second, 50*time.Millisecond)
}

// listening waits until the gateway g has opened the listening session of
// its HTTP downstream server (see watch).
func listening(t *testing.T, g *gateway, server string) {
	t.Helper()
	require.Eventually(t, func() bool {
		g.mu.Lock()
		d := g.downstreams[server]
		g.mu.Unlock()
		return d != nil && d.Listener() != nil
	}, testTimeout, 10*time.Millisecond)
}

// TestRemoteDies: a downstream whose server dies keeps its tools listed,
// each call answering resource_unavailable; the gateway reconnects with
// the restart backoff (each wait within -timeout), and once the server is
// back, with a new tool, its tools come back and clients are told.
func TestRemoteDies(t *testing.T) {
	skipShort(t)
	rs := newRemoteServer(t, false)
	_, c, logs := remoteGateway(t, rs, "-timeout", "2s")
	rs.die()
	assert.Equal(t, "resource_unavailable", envelopeCode(t, c.call(t, "search", "q")))
	assert.Equal(t, []string{"search"}, c.names(t), "its tools stay listed while it is down")
	require.Eventually(t, func() bool { return len(restartWaits(t, logs.String())["docs"]) >= 2 }, testTimeout, 20*time.Millisecond,
		"the gateway tries to reconnect, with backoff")

	rs.addTool("fetch")
	rs.revive(t)
	waitChanged(t, c)
	require.Eventually(t, c.hasNames(t.Context(), 2), testTimeout, 20*time.Millisecond)
	assert.Equal(t, []string{"fetch", "search"}, c.names(t))
	assert.Equal(t, "docs answered fetch: q", resultText(c.call(t, "fetch", "q")))
	waits := restartWaits(t, logs.String())["docs"]
	for i, w := range waits {
		assert.LessOrEqual(t, w, 2*time.Second, "wait %d", i)
	}
	assert.Equal(t, retryMin, waits[0], "the backoff starts at its first step: %v", waits)
	assert.Equal(t, 2*retryMin, waits[1], "and doubles: %v", waits)
}

// TestRemoteRedirect: a downstream that answers with a redirect is
// refused, with a warning naming the server and never the Location (whose
// query may hold a signature or a token); the redirect is not followed.
func TestRemoteRedirect(t *testing.T) {
	rs := newRemoteServer(t, false)
	var followed atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { followed.Store(true) }))
	t.Cleanup(target.Close)
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/mcp?sig=redirect-secret", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirect.Close)
	t.Setenv("DOCS_TOKEN", docsToken)
	logs := new(syncbuf.Buffer)
	cfg, specs := fromArgs(t, io.Discard, append(docsArgs(rs), "-server", "moved="+redirect.URL+"/mcp",
		"-header", "moved=Authorization: Bearer ${DOCS_TOKEN}", "-start-timeout", "2s")...)
	cfg.logger = slog.New(slog.NewJSONHandler(logs, nil))
	_, c := startGateway(t, cfg, specs...)
	assert.Equal(t, []string{"search"}, c.names(t), "the redirecting server lists nothing")
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "redirects are refused") }, testTimeout, 20*time.Millisecond)
	assert.Contains(t, logs.String(), `server \"moved\" answered 307 with a redirect`)
	assert.NotContains(t, logs.String(), "redirect-secret")
	assert.NotContains(t, logs.String(), docsToken)
	assert.False(t, followed.Load(), "the redirect is not followed")
}

// TestRemoteBodyBound: a response body beyond the listener's bound (1 MiB)
// is refused as the gateway reads it, without reading the rest: the call
// answers resource_unavailable, and the server could not write the body
// whole.
func TestRemoteBodyBound(t *testing.T) {
	const huge = 64 << 20
	var written atomic.Int64
	var inner http.Handler
	srv := mcp.NewServer(&mcp.Implementation{Name: "huge", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "dump"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "small"}}}, nil, nil
	})
	inner = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), `"tools/call"`) {
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			inner.ServeHTTP(w, r)
			return
		}
		// An answer that never ends, in JSON, with no Content-Length.
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for written.Load() < huge {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(hs.Close)
	logs := new(syncbuf.Buffer)
	cfg, specs := fromArgs(t, io.Discard, "-server", "huge="+hs.URL+"/mcp")
	cfg.logger = slog.New(slog.NewJSONHandler(logs, nil))
	_, c := startGateway(t, cfg, specs...)
	res := c.call(t, "dump", "")
	assert.Equal(t, "resource_unavailable", envelopeCode(t, res), resultText(res))
	assert.Contains(t, logs.String(), "the response body is too large (more than 1048576 bytes)")
	assert.Less(t, written.Load(), int64(huge), "the gateway stopped reading")
}

// TestRemoteAndStdio: one gateway serves a stdio downstream and an HTTP
// one together.
func TestRemoteAndStdio(t *testing.T) {
	rs := newRemoteServer(t, false)
	local, env := testServer(t, "local", "tools=lookup")
	t.Setenv("DOCS_TOKEN", docsToken)
	cfg, specs := fromArgs(t, io.Discard, append(docsArgs(rs), "-server", local, "-env", env)...)
	_, c := startGateway(t, cfg, specs...)
	require.Eventually(t, c.hasNames(t.Context(), 2), testTimeout, 20*time.Millisecond)
	assert.Equal(t, []string{"lookup", "search"}, c.names(t))
	assert.Equal(t, "docs answered search: q", resultText(c.call(t, "search", "q")))
	assert.Equal(t, "test answered lookup", resultText(c.call(t, "lookup", "q")))
}
