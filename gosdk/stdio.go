package gosdk

import (
	"context"
	"io"
	"time"

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
// a message whose envelope repeats a key, or a message the SDK's own
// decoder ([jsonrpc.DecodeMessage]) refuses (-32600) is answered with a
// JSON-RPC error, under the id the line carries when it has one, and the
// session goes on. The SDK would run the last "method" of
// {"method":"tools/call","method":"tools/list"}, while a logger or a
// proxy that reads the first sees a tools/call. Every other line
// reaches the SDK as the JSON value the guard checked, without the white
// space around it, so that the SDK's framing and the guard's cannot
// disagree. Batches, which MCP dropped in 2025-06-18, are refused whole.
//
// At the end of its input the transport answers every request it read
// before it closes, within [StdioTransport.DrainLimit], so that
// `printf '…initialize…\n…tools/call…\n' | server` gets every answer.
//
// Serve a server on stdio with it:
//
//	err := server.Run(ctx, gosdk.NewStdioTransport(os.Stdin, os.Stdout))
func NewStdioTransport(in io.ReadCloser, out io.WriteCloser) *StdioTransport {
	return &StdioTransport{in: in, out: out}
}

// StdioTransport is the [mcp.Transport] of [NewStdioTransport]. Set its
// fields before it connects.
type StdioTransport struct {
	// DrainLimit bounds how long, once its input has ended, the transport
	// waits for the server to answer the requests it read, before it
	// closes: a tool call still running then is answered, as a script
	// that pipes its requests in expects. Past it, the transport closes
	// and logs the ids of the requests left unanswered at Error with
	// slog's default logger. 0 means 30 seconds; a negative value, no
	// wait (the go-sdk's own transports close at once and drop those
	// answers).
	DrainLimit time.Duration

	in  io.ReadCloser
	out io.WriteCloser
}

// Connect implements [mcp.Transport].
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	g := stdioguard.New(t.in, t.out, decodeMessage)
	switch {
	case t.DrainLimit == 0:
		g.SetDrainLimit(stdioguard.DefaultDrainLimit)
	case t.DrainLimit > 0:
		g.SetDrainLimit(t.DrainLimit)
	}
	tr := &mcp.IOTransport{Reader: g, Writer: guardWriter{g, t.out}, MaxLineLength: -1}
	return tr.Connect(ctx)
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
