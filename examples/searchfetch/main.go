// Command searchfetch is an MCP server with search and fetch tools, built
// on the official Go SDK (github.com/modelcontextprotocol/go-sdk), that
// shows what the mcpid library does inside a real server.
//
// Its search tool asks a resource server for hits from several
// connections (two Shopify stores, a Zendesk account), gives each hit a
// self-contained id with [mcpid.SelfContainedID], so that
// orders:o1 from connection cin_4f2a becomes cin_4f2a/orders:o1, and
// shows them to the model with [mcpid.RenderPreview]. Its fetch tool
// resolves the id and the optional connection_id with
// [mcpid.ResolveFetch] before any request, so malformed, path-traversing
// and contradictory arguments never reach the resource server, and it
// relays the resource server's 409 as [mcpid.AmbiguousConnection]. Every
// failure is an MCP tool error (isError) whose JSON envelope is both the
// text of content[] and structuredContent.
//
// Run it from the repository root:
//
//	go run -C examples ./searchfetch                        # the demo journey
//	go run -C examples ./searchfetch -stdio                 # MCP over stdio
//	go run -C examples ./searchfetch -http 127.0.0.1:8080   # streamable HTTP at /mcp
//
// With no mode flag it runs a demo: the SDK's own client calls the tools
// in process, as a model would, and the transcript is printed: the search
// text, the id taken back out of it with [mcpid.ExtractIDs], the fetched
// document, a legacy fetch that is ambiguous and its retry with
// connection_id, and a fetch whose connection_id contradicts the id.
//
// Without -rs, the resource server is an in-process fixture on
// 127.0.0.1 at a free port, whose connections cin_4f2a and cin_9b7e both
// hold a record orders:o1. With -rs URL, the tools call that resource
// server instead; it must serve
//
//	GET /v1/search?q=...
//	GET /v1/streams/{stream}/records/{record_id}[?connection_id=...]
//
// as described in resource.go. Every request to it gives up after
// -timeout. The -http mode only listens on loopback addresses: this
// example has no authentication.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "searchfetch:", err)
		os.Exit(1)
	}
}

// errUsage marks an error that the flag package has already reported.
var errUsage = errors.New("usage")

// run parses args and runs the chosen mode until it ends or ctx is done.
// The demo transcript goes to stdout; diagnostics go to stderr, which in
// -stdio mode is the only place they may go.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("searchfetch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	rsURL := fs.String("rs", "", "base `URL` of an external resource server (default: an in-process fixture on 127.0.0.1)")
	stdio := fs.Bool("stdio", false, "serve MCP over stdin and stdout")
	httpAddr := fs.String("http", "", "serve MCP streamable HTTP at http://`ADDR`/mcp (a loopback address)")
	timeout := fs.Duration("timeout", 10*time.Second, "bound on each request to the resource server")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected arguments: %q\n", fs.Args())
		fs.Usage()
		return errUsage
	}
	if *stdio && *httpAddr != "" {
		fmt.Fprintln(stderr, "-stdio and -http are exclusive")
		fs.Usage()
		return errUsage
	}
	if *httpAddr != "" {
		if err := checkLoopback(*httpAddr); err != nil {
			return err
		}
	}

	var fx *fixture
	base := *rsURL
	if base == "" {
		var stopFixture func()
		var err error
		fx, base, stopFixture, err = startFixture()
		if err != nil {
			return fmt.Errorf("starting the fixture resource server: %w", err)
		}
		defer stopFixture()
	}
	rs, err := newResourceClient(base, *timeout)
	if err != nil {
		return err
	}
	srv := newServer(rs)

	switch {
	case *stdio:
		fmt.Fprintf(stderr, "searchfetch: MCP on stdio; resource server %s\n", base)
		err := srv.Run(ctx, &mcp.StdioTransport{})
		if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	case *httpAddr != "":
		return serveHTTP(ctx, srv, *httpAddr, base, stderr)
	}
	return runDemo(ctx, srv, fx, base, stdout)
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

// httpHandler serves srv as MCP streamable HTTP at /mcp.
func httpHandler(srv *mcp.Server) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	return mux
}

// serveHTTP serves srv as MCP streamable HTTP on addr until ctx is done.
func serveHTTP(ctx context.Context, srv *mcp.Server, addr, base string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: httpHandler(srv), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "searchfetch: MCP streamable HTTP on http://%s/mcp; resource server %s\n", ln.Addr(), base)
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
