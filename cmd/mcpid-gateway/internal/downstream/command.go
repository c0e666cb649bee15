package downstream

import (
	"context"
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
)

// Command is a transport that runs a downstream MCP server as a
// subprocess and speaks to it over its stdin and stdout, as the go-sdk's
// [mcp.CommandTransport] does, with three differences that keep one faulty
// downstream from costing more than its own tools:
//   - its stdout is read through [GuardedTransport]: a line that is not a
//     JSON-RPC message the SDK decodes (a stray log line, garbage) is
//     logged and dropped instead of ending the session, and a line over
//     4 MiB costs no more than that;
//   - a write to its stdin never blocks the caller past the caller's
//     context, even when the pipe is full because the server stopped
//     reading (see [asyncWriter]);
//   - it gets only the environment it is given (see [Env]).
//
// Each Connect starts the command anew, so that a server that died can be
// restarted.
type Command struct {
	Argv   []string     // the command and its arguments; Argv[0] is looked up in PATH
	Env    []string     // KEY=VALUE each; nil gives the subprocess an empty environment
	Stderr io.Writer    // where its stderr goes; nil discards it
	Server string       // the server's name, for the logs
	Logger *slog.Logger // where dropped lines are logged; nil discards them

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

// Env returns the environment of a downstream: the variables of environ
// that it inherits (PATH, HOME, LANG, LANGUAGE and LC_*), then extra
// (KEY=VALUE each), which wins.
func Env(environ, extra []string) []string {
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
func (t *Command) Connect(ctx context.Context) (mcp.Connection, error) {
	cmd := exec.Command(t.Argv[0], t.Argv[1:]...)
	cmd.Env = t.Env
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean the gateway's whole environment
	}
	cmd.Stderr = t.Stderr
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
		return nil, fmt.Errorf("starting %s: %w", t.Argv[0], err)
	}
	t.procs.Add(1)
	t.mu.Lock()
	t.cmd = cmd
	t.mu.Unlock()
	conn, err := GuardedTransport(stdout, stdin, func(reason string) {
		if t.Logger != nil {
			t.Logger.Warn("gateway: dropped a line from a downstream", "server", t.Server, "reason", reason)
		}
	}).Connect(ctx)
	pc := &processConn{Connection: conn, cmd: cmd, procs: &t.procs, w: newAsyncWriter(conn)}
	if err != nil {
		_ = killProcessGroup(cmd.Process)
		pc.reap()
		return nil, err
	}
	return pc, nil
}

// Wait waits until every process the transport started has been reaped:
// after the sessions are closed, no process outlives it.
func (t *Command) Wait() { t.procs.Wait() }

// Process returns the latest process started, or nil.
func (t *Command) Process() *os.Process {
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
