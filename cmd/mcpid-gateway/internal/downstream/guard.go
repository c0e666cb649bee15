package downstream

import (
	"io"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/internal/stdioguard"
)

// GuardedTransport returns the client's transport over a downstream's
// stdout and stdin: a quiet guard drops each line the go-sdk would fail on
// (a stray log line, a message with white space after it) instead of
// ending the session, tells dropped why (dropped may be nil), and hands
// the SDK each other line's JSON value alone.
func GuardedTransport(stdout io.Reader, stdin io.WriteCloser, dropped func(reason string)) *mcp.IOTransport {
	g := stdioguard.NewQuiet(stdout, decodeMessage, dropped)
	return &mcp.IOTransport{Reader: g, Writer: stdin, MaxLineLength: -1}
}

// decodeMessage is the go-sdk's own verdict on a line a downstream
// prints: the guard passes exactly the messages the client's transport
// decodes.
func decodeMessage(msg []byte) error {
	_, err := jsonrpc.DecodeMessage(msg)
	return err
}
