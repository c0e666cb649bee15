package gosdk

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/internal/stdioguard"
)

// NewStdioTransport returns a transport that serves MCP over
// newline-delimited JSON-RPC on in and out, as [mcp.StdioTransport] and
// [mcp.IOTransport] do, but where any input costs at most its own request.
// The go-sdk ends the whole session on a line it cannot decode: a control
// byte, a line that is not JSON, a batch, an object id, the id 1e400,
// arguments nested 998 levels deep, a line over 16 MiB, even a valid
// message followed by a space or a tab. One such tool call, which a
// prompt-injected model can write, would kill the server and every
// session behind it. This transport reads each line itself first: a line
// over 4 MiB, nested deeper than 128 levels, not JSON (-32700), a batch,
// or a message the SDK's own decoder ([jsonrpc.DecodeMessage]) refuses
// (-32600) is answered with a JSON-RPC error, under the id the line
// carries when it has one, and the session goes on. Every other line
// reaches the SDK as the JSON value the guard checked, without the white
// space around it, so that the SDK's framing and the guard's cannot
// disagree. Batches, which MCP dropped in 2025-06-18, are refused whole.
//
// Serve a server on stdio with it:
//
//	err := server.Run(ctx, gosdk.NewStdioTransport(os.Stdin, os.Stdout))
func NewStdioTransport(in io.ReadCloser, out io.WriteCloser) mcp.Transport {
	g := stdioguard.New(in, out, decodeMessage)
	return &mcp.IOTransport{Reader: g, Writer: guardWriter{g, out}, MaxLineLength: -1}
}

// decodeMessage is the go-sdk's own verdict on a message line.
func decodeMessage(msg []byte) error {
	_, err := jsonrpc.DecodeMessage(msg)
	return err
}

// guardWriter writes through the guard, so that the SDK's messages and
// the guard's errors never interleave, and closes out.
type guardWriter struct {
	g   *stdioguard.Guard
	out io.Closer
}

func (w guardWriter) Write(p []byte) (int, error) { return w.g.Write(p) }
func (w guardWriter) Close() error                { return w.out.Close() }
