package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveTestHTTP serves the gateway's MCP server over HTTP on a loopback
// port with the bounds of hc, and returns the endpoint's URL.
func serveTestHTTP(t *testing.T, hc httpConfig) string {
	t.Helper()
	g, _ := startGateway(t, config{}, inProcessServer("alpha", "search"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := newHTTPServer(g.srv, hc)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

func post(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// TestHTTPSessionExpiry: a session that a client opens and abandons is
// ended after the idle timeout.
func TestHTTPSessionExpiry(t *testing.T) {
	hc := defaultHTTPConfig()
	hc.sessionTimeout = 200 * time.Millisecond
	url := serveTestHTTP(t, hc)

	resp := post(t, url, "", initializeBody)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	session := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, session)
	_, _ = io.Copy(io.Discard, resp.Body)

	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	assert.Equal(t, http.StatusOK, post(t, url, session, list).StatusCode, "a live session")
	// Every request keeps a session alive: wait well past the timeout
	// without one.
	time.Sleep(5 * hc.sessionTimeout)
	assert.Equal(t, http.StatusNotFound, post(t, url, session, list).StatusCode, "the abandoned session is not reclaimed")
}

// TestHTTPSlowBody: a client that sends its body too slowly is cut off
// after the read timeout.
func TestHTTPSlowBody(t *testing.T) {
	hc := defaultHTTPConfig()
	hc.readTimeout = 300 * time.Millisecond
	url := serveTestHTTP(t, hc)

	conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	// The server answers 400 or just closes; either way the connection
	// ends, long before the client's own deadline.
	_, err = io.Copy(io.Discard, bufio.NewReader(conn))
	var ne net.Error
	assert.False(t, errors.As(err, &ne) && ne.Timeout(), "the server held the slow connection: %v", err)
}

func TestHTTPBodyLimit(t *testing.T) {
	hc := defaultHTTPConfig()
	hc.maxBody = 1 << 10
	url := serveTestHTTP(t, hc)
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 2<<10) + `"}}`
	assert.Equal(t, http.StatusRequestEntityTooLarge, post(t, url, "", big).StatusCode)
	assert.Equal(t, http.StatusOK, post(t, url, "", initializeBody).StatusCode)
}

// TestHTTPClient: the SDK's own client works through the bounds: a
// session outlives the read timeout, and a call is routed.
func TestHTTPClient(t *testing.T) {
	hc := defaultHTTPConfig()
	hc.readTimeout = 200 * time.Millisecond
	url := serveTestHTTP(t, hc)
	mc := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil)
	cs, err := mc.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	require.NoError(t, err)
	defer cs.Close()
	time.Sleep(400 * time.Millisecond)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "q"}})
	require.NoError(t, err)
	assert.Equal(t, `alpha answered search(query="q")`, resultText(res))
}
