package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// limits bounds what the clients of the -http mode can hold on the server.
// Every field is a parameter, so that tests can use short ones.
type limits struct {
	// SessionIdle closes an MCP session that has had no request for this
	// long, with everything it holds. A client that opens sessions and
	// walks away would otherwise keep each one until the process ends.
	SessionIdle time.Duration
	// ReadHeaderTimeout bounds reading a request's headers, ReadTimeout
	// the whole request, body included: a client that sends slowly, or
	// stops, is cut off instead of holding a connection and a goroutine.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	// IdleTimeout closes a keep-alive connection with no request for this
	// long.
	IdleTimeout time.Duration
	// MaxBody bounds a request body. Tool arguments are an id and a
	// query: a megabyte is far beyond any. See limitBody.
	MaxBody int64
}

// defaultLimits are the limits of the -http mode.
//
// There is no WriteTimeout: a streamable HTTP session may keep a GET open
// as an event stream for as long as it lives, and a write deadline would
// cut it. Slow readers of an answer are bounded by the session's idle
// timeout instead.
var defaultLimits = limits{
	SessionIdle:       10 * time.Minute,
	ReadHeaderTimeout: 5 * time.Second,
	ReadTimeout:       30 * time.Second,
	IdleTimeout:       2 * time.Minute,
	MaxBody:           1 << 20,
}

// newHTTPServer returns the http.Server of the -http mode: h, with the
// request body bound and the timeouts of lim.
func newHTTPServer(h http.Handler, lim limits) *http.Server {
	return &http.Server{
		Handler:           limitBody(h, lim.MaxBody),
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		IdleTimeout:       lim.IdleTimeout,
	}
}

// limitBody answers 413 to a request whose Content-Length exceeds max,
// before h sees it, and cuts the body of any other request at max bytes.
// A chunked body over max therefore fails while h reads it: the go-sdk
// answers 413 then, mcp-go (which reads the body whole, unbounded, before
// looking at it) a JSON-RPC parse error with status 400.
func limitBody(h http.Handler, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		h.ServeHTTP(w, r)
	})
}

// checkLoopback returns an error unless addr is host:port with a loopback
// host: an IP literal such as 127.0.0.1 or ::1, or localhost.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-http %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-http %q: refusing to listen on a non-loopback address; this example has no authentication", addr)
}

// serveHTTP serves hs on ln until ctx is done, then shuts it down.
func serveHTTP(ctx context.Context, hs *http.Server, ln net.Listener, stderr io.Writer) error {
	fmt.Fprintf(stderr, "searchfetch: MCP streamable HTTP on http://%s/mcp\n", ln.Addr())
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
