package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Limits bounds what the clients of an HTTP server can hold of it. Every
// field is a parameter, so that tests can shorten one at a time.
type Limits struct {
	// SessionIdle ends an MCP session that has had no request for this
	// long, with everything it holds: a client that opens sessions and
	// walks away would otherwise keep each one until the process ends.
	// The SDK's handler enforces it; see GoSDKHandler.
	SessionIdle time.Duration
	// ReadHeaderTimeout bounds reading a request's headers, ReadTimeout
	// the whole request, body included: a client that sends slowly, or
	// stops, is cut off instead of holding a connection and a goroutine.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	// IdleTimeout closes a keep-alive connection with no request for this
	// long.
	IdleTimeout time.Duration
	// MaxBody bounds a request body in bytes.
	MaxBody int64
	// MaxSessions bounds the MCP sessions open at once: a request that
	// would open another (one without an Mcp-Session-Id) is answered 503
	// with a JSON-RPC error while this many are open. Idle sessions still
	// hold memory until SessionIdle ends them, and one client can open
	// thousands a second. 0 means no bound. Requests that open sessions
	// at the same moment may each pass the check: the bound may be
	// exceeded by the initializations in flight, never by more.
	MaxSessions int
}

// DefaultLimits are the limits of the examples' -http mode. Tool
// arguments are an id, a query or a small object: a MiB of body is far
// beyond any.
//
// There is no WriteTimeout: a streamable HTTP session may keep an event
// stream open for as long as it lives, and a write deadline would cut it.
// A slow reader of an answer is bounded by the session's idle timeout
// instead.
var DefaultLimits = Limits{
	SessionIdle:       10 * time.Minute,
	ReadHeaderTimeout: 5 * time.Second,
	ReadTimeout:       30 * time.Second,
	IdleTimeout:       2 * time.Minute,
	MaxBody:           1 << 20,
	MaxSessions:       1000,
}

// maxHeaderBytes bounds a request's headers: an MCP request carries a few
// short ones, so 64 KiB is generous (net/http's default is 1 MiB).
const maxHeaderBytes = 64 << 10

// NewServer returns the http.Server that serves h within lim.
//
// The server reads each request body whole before h runs, at most
// lim.MaxBody bytes and within ReadTimeout: a body over lim.MaxBody is
// answered 413 and a slow one is cut off, before h sees any of it, with
// every SDK alike (mcp-go reads bodies unbounded, and answers a cut one
// as a JSON-RPC parse error). Once a body has been read to its end,
// net/http lifts the read deadline, so ReadTimeout never ends an answer
// that outlasts it, such as an event stream.
func NewServer(h http.Handler, lim Limits) *http.Server {
	return &http.Server{
		Handler:           readBody(h, lim.MaxBody),
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// readBody is the handler of NewServer: it reads the body of each request
// whole, at most limit bytes, and passes the request on to h.
func readBody(h http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > limit {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
		if err != nil {
			if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "cannot read the request body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	})
}

// CapSessions returns h with the session bound of lim: while live
// reports lim.MaxSessions or more open sessions, a request without an
// Mcp-Session-Id header, which would open one, is answered 503 with a
// JSON-RPC error and a Retry-After header, and h never sees it. Requests
// within a session pass.
func CapSessions(h http.Handler, lim Limits, live func() int) http.Handler {
	if lim.MaxSessions <= 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" && live() >= lim.MaxSessions {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "10")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, tooManySessions)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// tooManySessions is the body of CapSessions' 503: a JSON-RPC error with
// no id, since the request that would have opened a session is refused
// whole.
const tooManySessions = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"the server has too many open sessions; retry later"}}`

// Serve serves hs on ln until ctx is done, then shuts it down, giving
// open requests 5 seconds to finish. It announces the endpoint on stderr
// under the command's name.
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, name string, stderr io.Writer) error {
	fmt.Fprintf(stderr, "%s: MCP streamable HTTP on http://%s/mcp\n", name, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		return hs.Close()
	}
	return nil
}
