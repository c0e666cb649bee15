package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpConfig bounds what one HTTP client can hold of the gateway.
type httpConfig struct {
	readHeaderTimeout time.Duration // to read a request's headers
	readTimeout       time.Duration // to read a whole request, body included
	idleTimeout       time.Duration // a keep-alive connection between requests
	sessionTimeout    time.Duration // an MCP session with no request
	maxBody           int64         // bytes in one request body
}

func defaultHTTPConfig() httpConfig {
	return httpConfig{
		readHeaderTimeout: 10 * time.Second,
		readTimeout:       30 * time.Second,
		idleTimeout:       60 * time.Second,
		sessionTimeout:    10 * time.Minute,
		// Tool arguments are small; 1 MiB is generous.
		maxBody: 1 << 20,
	}
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

// newHTTPServer returns the HTTP server for srv, with every bound of hc.
// The streamable handler is at /mcp.
func newHTTPServer(srv *mcp.Server, hc httpConfig) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("/mcp", readBody(hc.maxBody, mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{SessionTimeout: hc.sessionTimeout, MaxRequestBodyBytes: hc.maxBody},
	)))
	return &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: hc.readHeaderTimeout,
		ReadTimeout:       hc.readTimeout,
		IdleTimeout:       hc.idleTimeout,
		MaxHeaderBytes:    64 << 10,
	}
}

// readBody reads the request body, at most limit bytes, within the
// server's ReadTimeout, and then lifts the read deadline: a slow body is
// cut off, but the response, an event stream that may last for minutes,
// is not.
func readBody(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
		next.ServeHTTP(w, r)
	})
}

// serveHTTP serves srv as MCP streamable HTTP on addr until ctx is done.
func serveHTTP(ctx context.Context, srv *mcp.Server, addr string, hc httpConfig, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := newHTTPServer(srv, hc)
	fmt.Fprintf(stderr, "gateway: MCP streamable HTTP on http://%s/mcp\n", ln.Addr())
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
