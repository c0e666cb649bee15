package main

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/mcpgo"
	"github.com/mcpid/mcpid/searchfetch"
)

// mcpgoServer serves the tools with github.com/mark3labs/mcp-go.
type mcpgoServer struct {
	srv *server.MCPServer
}

// newMcpgoServer returns an mcp-go server with the tools over b. It
// declares the logging capability, as the go-sdk's server does, so that a
// client's logging/setLevel is answered on both SDKs.
func newMcpgoServer(b searchfetch.Backend, opts *searchfetch.Options) mcpgoServer {
	srv := server.NewMCPServer(serverName, serverVersion, server.WithLogging())
	if err := mcpgo.Register(srv, b, opts); err != nil {
		panic(err) // the options are the program's own, on a new server
	}
	return mcpgoServer{srv: srv}
}

// serveStream serves one MCP session over newline-delimited JSON-RPC on in
// and out until in ends or ctx is done.
//
// mcp-go's stdio server keeps its one session in a process-wide variable,
// so a process serves one stream at a time: the demo and the tests never
// run two at once.
func (s mcpgoServer) serveStream(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	err := mcpgo.ServeStdio(ctx, s.srv, in, out)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// handler returns the streamable HTTP handler, at /mcp, as hc says. With
// grants, the handler's Verify checks each request's token and puts its
// caller into the context of the tool calls.
func (s mcpgoServer) handler(hc httpConfig) http.Handler {
	opts := &mcpgo.HTTPOptions{MaxSessions: hc.lim.MaxSessions, SessionIdle: hc.lim.SessionIdle, MaxBody: hc.lim.MaxBody}
	opts.Stateless = hc.stateless
	if hc.grants != nil {
		opts.Verify = hc.grants.verify
	}
	return serve.Mount(mcpgo.NewHTTPHandler(s.srv, opts))
}
