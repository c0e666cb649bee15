package downstream

import (
	"context"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// asyncWriter writes a connection's messages on a goroutine of its own.
//
// The SDK writes a message to a subprocess's stdin under a lock, with no
// regard for the context: once the server stops reading and the pipe is
// full, that write, and every later one behind the lock, would block for
// good, the caller with it. Here a write hands its message to the writer
// goroutine and waits for it only as long as its context allows, so that a
// call to a hung server ends within the gateway's timeout. One message at a
// time waits in the writer; the others wait, each with its own context, to
// be handed over.
type asyncWriter struct {
	conn   mcp.Connection
	jobs   chan writeJob
	closed chan struct{}
	once   sync.Once
}

type writeJob struct {
	msg  jsonrpc.Message
	done chan error
}

func newAsyncWriter(conn mcp.Connection) *asyncWriter {
	w := &asyncWriter{conn: conn, jobs: make(chan writeJob), closed: make(chan struct{})}
	go w.run()
	return w
}

func (w *asyncWriter) run() {
	for {
		select {
		case j := <-w.jobs:
			// The context of the write that handed j over may end while
			// the pipe blocks; the write is not undone then: a call
			// whose caller was told resource_unavailable may still reach
			// the server once it reads again, and the SDK discards its
			// answer.
			j.done <- w.conn.Write(context.Background(), j.msg)
		case <-w.closed:
			return
		}
	}
}

// errWriterClosed is the error of a write on a closed connection.
var errWriterClosed = errors.New("the connection to the downstream is closed")

func (w *asyncWriter) write(ctx context.Context, msg jsonrpc.Message) error {
	j := writeJob{msg: msg, done: make(chan error, 1)}
	select {
	case w.jobs <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-w.closed:
		return errWriterClosed
	}
	select {
	case err := <-j.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-w.closed:
		return errWriterClosed
	}
}

func (w *asyncWriter) close() { w.once.Do(func() { close(w.closed) }) }
