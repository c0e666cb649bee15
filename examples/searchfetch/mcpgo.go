package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpid/mcpid/examples/internal/serve"
	"github.com/mcpid/mcpid/mcpgo"
	"github.com/mcpid/mcpid/searchfetch"
)

// mcpgoServer serves the tools with github.com/mark3labs/mcp-go.
type mcpgoServer struct {
	srv *server.MCPServer
	// live counts the sessions registered now, through the server's
	// session hooks; mcp-go has no other way to tell.
	live *atomic.Int64
}

// newMcpgoServer returns an mcp-go server with the tools over b.
func newMcpgoServer(b searchfetch.Backend, opts *searchfetch.Options) mcpgoServer {
	live := new(atomic.Int64)
	hooks := &server.Hooks{}
	hooks.AddOnRegisterSession(func(context.Context, server.ClientSession) { live.Add(1) })
	hooks.AddOnUnregisterSession(func(context.Context, server.ClientSession) { live.Add(-1) })
	srv := server.NewMCPServer(serverName, serverVersion, server.WithHooks(hooks))
	if err := mcpgo.Register(srv, b, opts); err != nil {
		panic(err) // the options are the program's own, on a new server
	}
	return mcpgoServer{srv: srv, live: live}
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

// handler returns the streamable HTTP handler, at /mcp. mcp-go sweeps a
// session's state away after lim.SessionIdle without a request (its
// WithSessionIdleTTL, checked every half TTL and at most once a second);
// it reads request bodies whole and unbounded, which [serve.NewServer]
// bounds for it.
func (s mcpgoServer) handler(lim serve.Limits) http.Handler {
	mux := http.NewServeMux()
	h := server.NewStreamableHTTPServer(s.srv,
		server.WithEndpointPath("/mcp"),
		server.WithSessionIdleTTL(lim.SessionIdle),
	)
	mux.Handle("/mcp", serve.CapSessions(h, lim, func() int { return int(s.live.Load()) }))
	return mux
}
