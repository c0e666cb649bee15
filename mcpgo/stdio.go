package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpid/mcpid/internal/stdioguard"
)

// ServeStdio serves s over newline-delimited JSON-RPC on in and out until
// in ends or ctx is done, as mcp-go's [server.StdioServer] does, but where
// any input costs at most its own request. mcp-go reads a line of any
// length into memory (a 100 MB line held 501 MB) and leaves some
// malformed lines unanswered. ServeStdio reads each line itself first: a
// line over 4 MiB, nested deeper than 128 levels, not JSON (-32700), a
// batch, or a message that mcp-go's own first reading refuses or whose id
// JSON-RPC forbids (-32600: no "jsonrpc":"2.0", keys matched as
// encoding/json matches them; an id that is not a string, a number or
// null, which mcp-go would echo in an answer no client can match) is
// answered with a JSON-RPC error, under the id the line carries
// when it has one, and serving goes on. So is a message whose envelope
// repeats a key, keys matched as encoding/json matches them ("Method"
// repeats "method"): mcp-go would run the last method, while a logger or a
// proxy that reads the first sees another. Every other line reaches mcp-go as
// the JSON value checked, without the white space around it. Batches,
// which MCP dropped in 2025-06-18, are refused whole.
//
// At the end of in, ServeStdio answers every request it read before it
// returns, within a drain limit ([WithDrainLimit]; 30 seconds by
// default), so that `printf '…initialize…\n…tools/call…\n' | server`
// gets every answer: mcp-go alone cancels the calls still running when
// its input ends, and may drop those still queued.
func ServeStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer, opts ...StdioOption) error {
	cfg := stdioConfig{drainLimit: stdioguard.DefaultDrainLimit}
	for _, o := range opts {
		o(&cfg)
	}
	g := stdioguard.New(in, out, decodeMessage)
	g.FoldKeys() // mcp-go decodes the envelope with encoding/json
	g.SetDrainLimit(cfg.drainLimit)
	return server.NewStdioServer(s).Listen(ctx, g, g)
}

// A StdioOption configures [ServeStdio], as mcp-go's own options
// configure its stdio server.
type StdioOption func(*stdioConfig)

// stdioConfig is what the StdioOptions set.
type stdioConfig struct {
	drainLimit time.Duration
}

// WithDrainLimit bounds how long, once its input has ended, ServeStdio
// waits for the server to answer the requests it read, before it
// returns. Past it, ServeStdio returns, mcp-go cancels the calls still
// running, and the ids of the requests left unanswered are logged at
// Error with slog's default logger. d <= 0 waits not at all, as mcp-go
// alone does.
func WithDrainLimit(d time.Duration) StdioOption {
	return func(c *stdioConfig) { c.drainLimit = d }
}

// decodeMessage is mcp-go's own first reading of a message, the one its
// MCPServer.HandleMessage makes before it answers: encoding/json into the
// members it reads, and "jsonrpc" "2.0"; and an id that JSON-RPC allows.
// mcp-go exports no decoder of its own; TestStdioGuardAgreesWithMCPGo
// checks this one against its real stdio server.
func decodeMessage(msg []byte) error {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  mcp.MCPMethod   `json:"method"`
		ID      json.RawMessage `json:"id,omitempty"`
		Result  any             `json:"result,omitempty"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return err
	}
	if m.JSONRPC != mcp.JSONRPC_VERSION {
		return errVersion
	}
	if len(m.ID) > 0 && !jsonrpcID(m.ID) {
		return errID
	}
	return nil
}

// jsonrpcID reports whether the raw JSON value id is a string, a number
// that a float64 holds (as mcp-go decodes it; 1e400 is not), or null: the
// ids JSON-RPC 2.0 allows.
func jsonrpcID(id json.RawMessage) bool {
	switch c := id[0]; {
	case c == '"':
		return true
	case c == '-', c >= '0' && c <= '9':
		_, err := strconv.ParseFloat(string(id), 64)
		return err == nil
	}
	return string(id) == "null"
}

// The errors of decodeMessage.
var (
	errVersion = errors.New(`no "jsonrpc":"2.0"`)
	errID      = errors.New("an id that is not a string, a number or null")
)
