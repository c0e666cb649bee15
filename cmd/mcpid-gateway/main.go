// Command mcpid-gateway is an MCP gateway: it connects to downstream MCP
// servers, over stdio or streamable HTTP, and serves all their tools,
// prompts and resources to its own clients, over stdio or streamable
// HTTP, under names that are never reused, kept in a file, Redis or
// PostgreSQL shared by replicas.
//
// Usage:
//
//	mcpid-gateway [-stdio | -http ADDR [-auth-tokens FILE | -insecure-no-auth]]
//	    -server 'NAME=COMMAND ARG...' | -server NAME=URL [-header 'NAME=Header: value'] ... [flags]
//
// With no mode flag it runs a demo. docs/gateway.md in the repository
// (github.com/mcpid/mcpid) says what each flag does and what holds.
package main

import (
	"context"
	"os"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/gateway"
	"github.com/mcpid/mcpid/internal/serve"
)

func main() {
	serve.Main("mcpid-gateway", func(ctx context.Context) error {
		return gateway.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	})
}
