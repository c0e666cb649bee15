package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/searchfetch"
)

// mcpServer is the MCP server of one SDK, with the search and fetch tools.
type mcpServer interface {
	// serveStream serves one MCP session over newline-delimited JSON-RPC
	// on in and out, as over stdio, until in ends or ctx is done.
	serveStream(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error
	// handler returns the streamable HTTP handler, at /mcp, as hc says.
	handler(hc httpConfig) http.Handler
}

// httpConfig is how the -http mode serves: within lim, without sessions
// when stateless, and, with grants, only to the holders of their tokens.
type httpConfig struct {
	lim       serve.Limits
	stateless bool
	grants    grants // nil: no authentication
}

// The server's name and version in the MCP handshake.
const (
	serverName    = "mcpid-searchfetch"
	serverVersion = "v0.2.0"
)

// newMCPServer returns the server of the named SDK, whose tools call the
// resource server through rc; in ChatGPT mode when chatgpt is set. logger
// records the backend failures that reach the model only as a generic
// envelope; nil records nothing. With authorize, the tools show and
// fetch only what each caller's grants allow ([authorizeGrants]). Each of
// more sets further options, as -otel sets OnCall.
func newMCPServer(sdk string, rc *resourceClient, chatgpt bool, sealer *mcpid.Sealer, logger *slog.Logger, authorize bool, more ...func(*searchfetch.Options)) mcpServer {
	opts := &searchfetch.Options{Logger: logger, Sealer: sealer}
	for _, set := range more {
		set(opts)
	}
	if authorize {
		opts.Authorize = authorizeGrants
	}
	if chatgpt {
		opts.Mode = searchfetch.ModeChatGPT
	}
	b := backend{rc: rc}
	if sdk == "mcpgo" {
		return newMcpgoServer(b, opts)
	}
	return newGosdkServer(b, opts)
}
