package main

import (
	"context"
	"net/http"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runRelay serves the bare relay at addr over streamable HTTP, stateful:
// a go-sdk server whose tools forward each call, by the same name and with
// the arguments as they came, to one client session with the downstream,
// as the go-sdk's examples/server/proxy does. It names nothing, logs
// nothing, bounds nothing: what it costs is the SDK's second hop. The
// downstream is the URL down (streamable HTTP) or, when down is not a
// URL, the command down run over stdio.
func runRelay(ctx context.Context, addr string, down []string) error {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bare-relay", Version: "v0"}, nil).Connect(ctx, downstreamTransport(down), nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	srv := mcp.NewServer(&mcp.Implementation{Name: "bare-relay", Version: "v0"}, nil)
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		srv.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return cs.CallTool(ctx, &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
		})
	}
	return serveHTTP(ctx, addr, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
}

// downstreamTransport returns the client transport to the downstream
// down: a URL, or a command line.
func downstreamTransport(down []string) mcp.Transport {
	if len(down) == 1 && isURL(down[0]) {
		return clientTransport(down[0])
	}
	return &mcp.CommandTransport{Command: exec.Command(down[0], down[1:]...)}
}
