package downstream

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stuckConn is a connection whose writes block until release is closed,
// as a write to a full stdin pipe does, and then record the message.
type stuckConn struct {
	mcp.Connection
	release chan struct{}
	written chan jsonrpc.Message
}

func (c *stuckConn) Write(_ context.Context, msg jsonrpc.Message) error {
	<-c.release
	c.written <- msg
	return nil
}

// TestAsyncWriterBoundedByContext: a write to a connection that blocks
// returns the caller's context error, and so does the next write waiting
// behind it; once the connection takes writes again, the message handed
// over is written; after close, a write is errWriterClosed.
func TestAsyncWriterBoundedByContext(t *testing.T) {
	conn := &stuckConn{release: make(chan struct{}), written: make(chan jsonrpc.Message, 2)}
	w := newAsyncWriter(conn)
	first := &jsonrpc.Request{Method: "notifications/initialized"}
	for i, msg := range []jsonrpc.Message{first, &jsonrpc.Request{Method: "notifications/cancelled"}} {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
		err := w.write(ctx, msg)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, "write %d", i)
	}

	close(conn.release)
	assert.Equal(t, first, <-conn.written, "the message handed over is written once the pipe drains")
	second := &jsonrpc.Request{Method: "ping"}
	require.NoError(t, w.write(t.Context(), second))
	assert.Equal(t, second, <-conn.written)

	w.close()
	require.ErrorIs(t, w.write(t.Context(), second), errWriterClosed)
}
