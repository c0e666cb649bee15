package serve

import (
	"context"
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
	// The handler enforces it (HTTPOptions.SessionIdle).
	SessionIdle time.Duration
	// ReadHeaderTimeout bounds reading a request's headers, ReadTimeout
	// the whole request, body included: a client that sends slowly, or
	// stops, is cut off instead of holding a connection and a goroutine.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	// IdleTimeout closes a keep-alive connection with no request for this
	// long.
	IdleTimeout time.Duration
	// MaxBody bounds a request body in bytes (HTTPOptions.MaxBody).
	MaxBody int64
	// MaxSessions bounds the MCP sessions open at once
	// (HTTPOptions.MaxSessions): at the bound a new session closes the
	// one idle longest, and only while every session has a request in
	// flight is it refused, 503. Idle sessions hold memory until
	// SessionIdle ends them, and one client can open thousands a second.
	MaxSessions int
}

// DefaultLimits are the limits of the commands' -http mode. Tool
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

// NewServer returns the http.Server that serves h within lim: the
// timeouts that gosdk.NewHTTPHandler and mcpgo.NewHTTPHandler leave to
// the server around them. h reads each request body whole before it
// answers (both handlers do), so ReadTimeout bounds reading the request
// and never an answer that outlasts it, such as an event stream: once a
// body has been read to its end, net/http lifts the read deadline.
func NewServer(h http.Handler, lim Limits) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// Mount returns a handler that serves h at /mcp, the endpoint the
// commands announce, and answers 404 elsewhere.
func Mount(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return mux
}

// Serve serves hs on ln until ctx is done, then shuts it down, giving
// open requests 5 seconds to finish (see ServeGrace). It announces the
// endpoint on stderr under the command's name.
func Serve(ctx context.Context, hs *http.Server, ln net.Listener, name string, stderr io.Writer) error {
	return ServeGrace(ctx, hs, ln, name, stderr, 5*time.Second)
}

// ServeGrace is Serve with grace as the time open requests have to
// finish. Once ctx is done it stops accepting, closes idle connections,
// runs the functions registered with hs.RegisterOnShutdown (a command
// ends its event streams there: they would hold the shutdown for all of
// grace), waits at most grace for the requests being answered, and then
// closes every connection left.
func ServeGrace(ctx context.Context, hs *http.Server, ln net.Listener, name string, stderr io.Writer, grace time.Duration) error {
	fmt.Fprintf(stderr, "%s: MCP streamable HTTP on http://%s/mcp\n", name, ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		return hs.Close()
	}
	return nil
}
