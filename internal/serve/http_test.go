package serve

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// waitFor bounds how long a test waits for a limit to act: a limit of
// shortLimit acts long before, however loaded the machine.
const waitFor = 20 * time.Second

// longLimits are limits none of which acts within a test.
var longLimits = Limits{
	SessionIdle:       longLimit,
	ReadHeaderTimeout: longLimit,
	ReadTimeout:       longLimit,
	IdleTimeout:       longLimit,
	MaxBody:           DefaultLimits.MaxBody,
}

// serveTest serves h with NewServer(h, lim) on a loopback port and returns
// the server's address.
func serveTest(t *testing.T, h http.Handler, lim Limits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := NewServer(h, lim)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return ln.Addr().String()
}

// echo reads each request's body whole, as the handlers of gosdk and
// mcpgo do, and answers with it; read counts the bodies it read whole.
type echo struct{ read atomic.Int64 }

func (e *echo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	e.read.Add(1)
	_, _ = w.Write(body)
}

// TestSlowClientsCutOff: a client that sends its request slowly, or keeps
// an idle connection, is disconnected by the timeout for that case. Each
// row shortens only its own timeout, so the row proves that one.
func TestSlowClientsCutOff(t *testing.T) {
	tests := []struct {
		name  string
		limit func(*Limits)
		// send writes to a fresh connection; the server must then close
		// it without the client sending anything more.
		send func(t *testing.T, conn net.Conn)
	}{
		{
			name:  "slow headers",
			limit: func(l *Limits) { l.ReadHeaderTimeout = shortLimit },
			send: func(t *testing.T, conn net.Conn) {
				_, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
				require.NoError(t, err)
			},
		},
		{
			name:  "slow body",
			limit: func(l *Limits) { l.ReadTimeout = shortLimit },
			send: func(t *testing.T, conn net.Conn) {
				_, err := io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"+
					"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":")
				require.NoError(t, err)
			},
		},
		{
			name:  "idle keep-alive",
			limit: func(l *Limits) { l.IdleTimeout = shortLimit },
			send: func(t *testing.T, conn net.Conn) {
				_, err := io.WriteString(conn, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
				require.NoError(t, err)
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				require.NoError(t, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				require.NoError(t, resp.Body.Close())
				require.Equal(t, http.StatusOK, resp.StatusCode)
				require.False(t, resp.Close, "the connection is kept alive after the answer")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := longLimits
			tt.limit(&lim)
			h := new(echo)
			conn, err := net.Dial("tcp", serveTest(t, h, lim))
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
			if tt.name != "idle keep-alive" {
				assert.Zero(t, h.read.Load(), "an incomplete request was read whole")
			}
		})
	}
}

// TestLongAnswerOutlivesReadTimeout: ReadTimeout bounds reading a request,
// not answering it, once the handler has read the body: an answer that lasts longer, as an event stream does,
// keeps its request's context and its connection; a WriteTimeout would
// cut it.
func TestLongAnswerOutlivesReadTimeout(t *testing.T) {
	lim := longLimits
	lim.ReadTimeout = shortLimit
	addr := serveTest(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // as the handlers of gosdk and mcpgo do first
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
			_, _ = io.WriteString(w, "canceled")
		case <-time.After(2 * shortLimit):
			_, _ = io.WriteString(w, "answered")
		}
	}), lim)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+"/mcp", strings.NewReader("{}"))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "answered", string(got), "the request's context ended with the read timeout")
}
