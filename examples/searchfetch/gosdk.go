package main

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/auth"
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
	if err := gosdk.Register(srv, b, opts); err != nil {
		panic(err) // the options are the program's own
	}
	return gosdkServer{srv: srv}
}

// serveStream serves one MCP session over newline-delimited JSON-RPC on in
// and out until in ends or ctx is done.
func (s gosdkServer) serveStream(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	err := s.srv.Run(ctx, gosdk.NewStdioTransport(in, out))
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// handler returns the streamable HTTP handler, at /mcp, as hc says. With
// grants, the go-sdk's own bearer-token middleware verifies each request's
// token, and gosdk hands the TokenInfo to the tools as their caller.
func (s gosdkServer) handler(hc httpConfig) http.Handler {
	opts := &gosdk.HTTPOptions{MaxSessions: hc.lim.MaxSessions, SessionIdle: hc.lim.SessionIdle, MaxBody: hc.lim.MaxBody}
	opts.Stateless = hc.stateless
	h := gosdk.NewHTTPHandler(s.srv, opts)
	if hc.grants != nil {
		h = auth.RequireBearerToken(hc.grants.tokenInfo, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	}
	return serve.Mount(h)
}
