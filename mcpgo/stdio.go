package mcpgo

import (
	"context"
	"io"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpid/mcpid/internal/stdioguard"
)

// ServeStdio serves s over newline-delimited JSON-RPC on in and out until
// in ends or ctx is done, as mcp-go's [server.StdioServer] does, but where
// any input costs at most its own request. mcp-go reads a line of any
// length into memory (a 100 MB line held 501 MB) and leaves some
// malformed lines unanswered. ServeStdio reads each line itself first: a
// line over 4 MiB, nested deeper than 128 levels, not JSON (-32700), a
// batch, or not a JSON-RPC 2.0 message with a string, number or null id
// (-32600) is answered with a JSON-RPC error, under the id the line
// carries when it has one, and serving goes on; every other line reaches
// mcp-go as the JSON value checked, without the white space around it. Batches, which MCP dropped in 2025-06-18, are refused whole.
func ServeStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer) error {
	g := stdioguard.New(in, out, nil)
	return server.NewStdioServer(s).Listen(ctx, g, g)
}
