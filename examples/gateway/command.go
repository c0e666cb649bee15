package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/internal/stdioguard"
)

// commandTransport runs a downstream MCP server as a subprocess and speaks
// to it over its stdin and stdout, as the go-sdk's CommandTransport does,
// with three differences that keep one faulty downstream from costing more
// than its own tools:
//   - its stdout is read through a quiet stdio guard: a line that is not a
//     JSON-RPC message the SDK decodes (a stray log line, garbage) is
//     logged and dropped instead of ending the session, and a line over
//     4 MiB costs no more than that;
//   - a write to its stdin never blocks the caller past the caller's
//     context, even when the pipe is full because the server stopped
//     reading (see [asyncWriter]);
//   - it gets only the environment it is given (see [downstreamEnv]).
//
// Each Connect starts the command anew, so that a server that died can be
// restarted.
type commandTransport struct {
	argv   []string
	env    []string
	stderr io.Writer
	server string
	logger *slog.Logger

	mu    sync.Mutex
	cmd   *exec.Cmd      // the latest process started
	procs sync.WaitGroup // the processes not yet reaped
}

// terminateAfter is how long a downstream has to exit once its stdin is
// closed before it is killed.
const terminateAfter = 2 * time.Second

// inheritedEnv names the variables a downstream inherits from the
// gateway: enough to find programs and the user's files and to speak the
// user's language, and nothing that may hold a secret meant for another
// server. LC_* variables are inherited too.
var inheritedEnv = []string{"PATH", "HOME", "LANG", "LANGUAGE"}

// downstreamEnv returns the environment of a downstream: the inherited
// variables of environ, then extra (KEY=VALUE each), which wins.
func downstreamEnv(environ, extra []string) []string {
	var env []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		for _, name := range inheritedEnv {
			if k == name {
				env = append(env, kv)
			}
		}
		if strings.HasPrefix(k, "LC_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// Connect starts the command and returns the session's connection.
func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	cmd := exec.Command(t.argv[0], t.argv[1:]...)
	cmd.Env = t.env
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean the gateway's whole environment
	}
	cmd.Stderr = t.stderr
	// Once the process has exited, its stderr is copied for at most
	// this long: a grandchild that holds it open cannot hold Wait.
	cmd.WaitDelay = terminateAfter
	ownProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", t.argv[0], err)
	}
	t.procs.Add(1)
	t.mu.Lock()
	t.cmd = cmd
	t.mu.Unlock()
	conn, err := guardedTransport(stdout, stdin, func(reason string) {
		t.logger.Warn("gateway: dropped a line from a downstream", "server", t.server, "reason", reason)
	}).Connect(ctx)
	pc := &processConn{Connection: conn, cmd: cmd, procs: &t.procs, w: newAsyncWriter(conn)}
	if err != nil {
		_ = killProcessGroup(cmd.Process)
		pc.reap()
		return nil, err
	}
	return pc, nil
}

// wait waits until every process the transport started has been reaped.
func (t *commandTransport) wait() { t.procs.Wait() }

// process returns the latest process started, or nil.
func (t *commandTransport) process() *os.Process {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cmd == nil {
		return nil
	}
	return t.cmd.Process
}

// processConn is a connection to a subprocess, which Close ends.
type processConn struct {
	mcp.Connection
	cmd   *exec.Cmd
	procs *sync.WaitGroup // of the transport; Done once cmd is reaped
	w     *asyncWriter
	once  sync.Once
}

// Write hands msg to the connection's writer goroutine; see [asyncWriter].
func (c *processConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	return c.w.write(ctx, msg)
}

// Close closes the connection, which closes the subprocess's stdin, and
// returns: the SDK calls it under a lock that calls to the server wait on.
// On a goroutine of its own, the subprocess then has terminateAfter to
// exit before its process group is killed (a wrapper such as sh -c or npx
// takes its children with it), which also ends a write stuck on its full
// stdin pipe.
func (c *processConn) Close() error {
	c.w.close()
	err := c.Connection.Close()
	c.once.Do(func() { go c.reap() })
	return err
}

// reap waits for the subprocess to exit, for at most terminateAfter, then
// kills its process group and waits for it.
func (c *processConn) reap() {
	defer c.procs.Done()
	done := make(chan struct{})
	go func() {
		_ = c.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(terminateAfter):
		_ = killProcessGroup(c.cmd.Process)
		<-done
	}
}

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

// guardedTransport is the client's transport over a downstream's stdout
// and stdin: a quiet guard drops each line the go-sdk would fail on (a
// stray log line, a message with white space after it) instead of ending
// the session, and hands the SDK each other line's JSON value alone.
func guardedTransport(stdout io.Reader, stdin io.WriteCloser, dropped func(reason string)) *mcp.IOTransport {
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
