package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shortLimit is the limit a test shortens to see it act; longLimit is
// what it gives every limit it does not test, far beyond any scheduling
// delay, so that only the limit under test can act.
const (
	shortLimit = 200 * time.Millisecond
	longLimit  = time.Minute
)

// waitFor bounds how long a test polls for a limit to act: a limit of
// shortLimit acts long before, however loaded the machine.
const waitFor = 20 * time.Second

// longLimits are limits none of which acts within a test.
var longLimits = limits{
	SessionIdle:       longLimit,
	ReadHeaderTimeout: longLimit,
	ReadTimeout:       longLimit,
	IdleTimeout:       longLimit,
	MaxBody:           defaultLimits.MaxBody,
}

// serveLoopback serves s over streamable HTTP on 127.0.0.1 with lim, as
// the -http mode does, and returns the server's address.
func serveLoopback(t *testing.T, s mcpServer, lim limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := newHTTPServer(s.handler(lim), lim)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// TestSessionsExpireWhenIdle: sessions that clients open and abandon,
// without a DELETE, are closed once they have been idle for SessionIdle.
func TestSessionsExpireWhenIdle(t *testing.T) {
	const abandoned = 5
	s := newTestServer(t, "gosdk", false).(gosdkServer)
	lim := longLimits
	lim.SessionIdle = shortLimit
	addr := serveLoopback(t, s, lim)

	ctx, cancel := context.WithTimeout(t.Context(), waitFor)
	defer cancel()
	for range abandoned {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "abandoning", Version: "v0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}, nil)
		require.NoError(t, err)
		// Closing would end the session with a DELETE; an abandoned
		// session is never closed by its client. The cleanup only frees
		// the client's side once the test is over.
		t.Cleanup(func() { _ = cs.Close() })
	}
	sessions := func() int {
		n := 0
		for range s.srv.Sessions() {
			n++
		}
		return n
	}
	require.Equal(t, abandoned, sessions(), "every session is open after its initialize")
	require.Eventually(t, func() bool { return sessions() == 0 }, waitFor, 10*time.Millisecond,
		"abandoned sessions are closed after SessionIdle")
}

// TestSlowClientsCutOff: a client that sends its request slowly, or keeps
// an idle connection, is disconnected by the timeout for that case. Each
// row shortens only its own timeout, so the row proves that one.
func TestSlowClientsCutOff(t *testing.T) {
	tests := []struct {
		name  string
		limit func(*limits)
		// send writes to a fresh connection; the server must then close
		// it without the client sending anything more.
		send func(t *testing.T, conn net.Conn)
	}{
		{
			name:  "slow headers",
			limit: func(l *limits) { l.ReadHeaderTimeout = shortLimit },
			send: func(t *testing.T, conn net.Conn) {
				_, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
				require.NoError(t, err)
			},
		},
		{
			name:  "slow body",
			limit: func(l *limits) { l.ReadTimeout = shortLimit },
			send: func(t *testing.T, conn net.Conn) {
				_, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"+
					"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
					"Content-Length: 100\r\n\r\n{\"jsonrpc\":")
				require.NoError(t, err)
			},
		},
		{
			name:  "idle keep-alive",
			limit: func(l *limits) { l.IdleTimeout = shortLimit },
			send: func(t *testing.T, conn net.Conn) {
				_, err := io.WriteString(conn, "GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
				require.NoError(t, err)
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				require.NoError(t, resp.Body.Close())
				require.Equal(t, http.StatusNotFound, resp.StatusCode)
				require.False(t, resp.Close, "the connection is kept alive after the answer")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := longLimits
			tt.limit(&lim)
			addr := serveLoopback(t, newTestServer(t, "gosdk", false), lim)
			conn, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer conn.Close()
			// The client's own deadline only keeps a failing test from
			// hanging: the server must close first.
			require.NoError(t, conn.SetDeadline(time.Now().Add(waitFor)))
			tt.send(t, conn)
			_, err = io.Copy(io.Discard, conn)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the server kept the connection open: %v", err)
			}
		})
	}
}

// TestRequestBodyBounded: a request body over MaxBody is refused with 413
// before the SDK decodes it.
func TestRequestBodyBounded(t *testing.T) {
	lim := longLimits
	lim.MaxBody = 1 << 10
	addr := serveLoopback(t, newTestServer(t, "gosdk", false), lim)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 2<<10) + `"}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	accepted atomic.Int32
}

// Accept counts each connection it returns.
func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// TestResourceConnectionsReused: a burst of concurrent fetches reuses the
// resource client's connections instead of dialling anew once a few are
// idle. A fetch that finds no idle connection dials one and takes
// whichever is ready first, so a pool that keeps every connection accepts
// between one and two per fetch in flight (16 to 22 here), never more;
// net/http's default pool of 2 idle connections accepts 50 to 90.
func TestResourceConnectionsReused(t *testing.T) {
	const (
		inFlight = 16
		each     = 50
	)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	counted := &countingListener{Listener: ln}
	_, base, stop := startFixture(counted)
	t.Cleanup(stop)
	rc, err := newResourceClient(base, longLimit)
	require.NoError(t, err)
	req, err := mcpid.ResolveFetch("cin_4f2a/orders:o1", "")
	require.NoError(t, err)

	var wg sync.WaitGroup
	errs := make(chan error, inFlight*each)
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, err := rc.record(t.Context(), req); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, int(counted.accepted.Load()), 2*inFlight, "%d fetches", inFlight*each)
}
