package gosdk

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/internal/stdioguard"
)

// NewStdioTransport returns a transport that serves MCP over
// newline-delimited JSON-RPC on in and out, as [mcp.StdioTransport] and
// [mcp.IOTransport] do, but where any input costs at most its own request.
// The go-sdk ends the whole session on a line it cannot decode: a control
// byte, a line that is not JSON, a batch, an object id, the id 1e400,
// arguments nested 998 levels deep, a line over 16 MiB. One such tool call,
// which a prompt-injected model can write, would kill the server and every
// session behind it. This transport reads each line itself first: a line
// over 4 MiB, nested deeper than 128 levels, not JSON (-32700), a batch, or
// not a message the SDK decodes (-32600: not an object with
// "jsonrpc":"2.0", an id that is not a string or an integer, a method that
// is not a string, a malformed error, a response without an id) is
// answered with a JSON-RPC
// error, under the request's id when it has a valid one, and the session
// goes on; every other line reaches the SDK unchanged. Batches, which MCP
// dropped in 2025-06-18, are refused whole.
//
// Serve a server on stdio with it:
//
//	err := server.Run(ctx, gosdk.NewStdioTransport(os.Stdin, os.Stdout))
func NewStdioTransport(in io.ReadCloser, out io.WriteCloser) mcp.Transport {
	g := stdioguard.New(in, out)
	return &mcp.IOTransport{Reader: g, Writer: guardWriter{g, out}, MaxLineLength: -1}
}

// guardWriter writes through the guard, so that the SDK's messages and
// the guard's errors never interleave, and closes out.
type guardWriter struct {
	g   *stdioguard.Guard
	out io.Closer
}

func (w guardWriter) Write(p []byte) (int, error) { return w.g.Write(p) }
func (w guardWriter) Close() error                { return w.out.Close() }
