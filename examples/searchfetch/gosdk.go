package main

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// gosdkServer serves the tools with the official Go SDK,
// github.com/modelcontextprotocol/go-sdk.
type gosdkServer struct {
	srv *mcp.Server
}

// newGosdkServer returns a go-sdk server with the tools over b.
func newGosdkServer(b searchfetch.Backend, opts *searchfetch.Options) gosdkServer {
	srv := mcp.NewServer(&mcp.Implementation{Name: serverName, Version: serverVersion}, nil)
	gosdk.Register(srv, b, opts)
	return gosdkServer{srv: srv}
}

// serveStream serves one MCP session over newline-delimited JSON-RPC on in
// and out until in ends or ctx is done.
func (s gosdkServer) serveStream(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	err := s.srv.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// handler returns the streamable HTTP handler, at /mcp. The SDK closes a
// session after lim.SessionIdle without a request (its SessionTimeout)
// and bounds each request body by lim.MaxBody itself as well.
func (s gosdkServer) handler(lim limits) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv }, &mcp.StreamableHTTPOptions{
		SessionTimeout:      lim.SessionIdle,
		MaxRequestBodyBytes: lim.MaxBody,
	}))
	return mux
}
