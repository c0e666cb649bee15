package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// searchInput is the arguments of the downstream's one tool.
type searchInput struct {
	Query string `json:"query" jsonschema:"what to search for"`
}

// newDownstream returns the downstream every path calls: a go-sdk server
// with one tool, search, that answers at once with a short text, so that
// what a path costs is the hops, not the tool.
func newDownstream() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "downstream", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: toolName, Description: "finds documents"},
		func(_ context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "3 documents match " + in.Query}}}, nil, nil
		})
	return srv
}

// runDownstream serves the downstream over stdio (addr empty) or over
// streamable HTTP at addr, stateful, with the SDK's own handler; with
// HTTP, it prints the endpoint's URL on stdout once it listens.
func runDownstream(ctx context.Context, addr string) error {
	srv := newDownstream()
	if addr == "" {
		return srv.Run(ctx, &mcp.StdioTransport{})
	}
	return serveHTTP(ctx, addr, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
}

// serveHTTP serves h at addr until ctx is done, and prints the URL it
// listens at on stdout.
func serveHTTP(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h}
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	fmt.Fprintf(os.Stdout, "http://%s\n", ln.Addr())
	if err := hs.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
