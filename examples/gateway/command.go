package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/internal/stdioguard"
)

// commandTransport runs a downstream MCP server as a subprocess and speaks
// to it over its stdin and stdout, as the go-sdk's CommandTransport does,
// but reads the server's stdout through a quiet stdio guard: a line that
// is not a JSON-RPC message the SDK decodes (a stray log line, garbage) is
// logged and dropped instead of ending the session, and a line over 4 MiB
// costs no more than that.
type commandTransport struct {
	cmd    *exec.Cmd
	server string
	logger *slog.Logger
}

// terminateAfter is how long a downstream has to exit once its stdin is
// closed before it is killed.
const terminateAfter = 2 * time.Second

// Connect starts the command and returns the session's connection.
func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", t.cmd.Path, err)
	}
	g := stdioguard.NewQuiet(stdout, func(reason string) {
		t.logger.Warn("gateway: dropped a line from a downstream", "server", t.server, "reason", reason)
	})
	conn, err := (&mcp.IOTransport{Reader: g, Writer: stdin, MaxLineLength: -1}).Connect(ctx)
	if err != nil {
		_ = t.cmd.Process.Kill()
		_ = t.cmd.Wait()
		return nil, err
	}
	return &processConn{Connection: conn, cmd: t.cmd}, nil
}

// processConn is a connection to a subprocess, which Close ends.
type processConn struct {
	mcp.Connection
	cmd *exec.Cmd
}

// Close closes the connection, which closes the subprocess's stdin, waits
// for it to exit for terminateAfter, and then kills it.
func (c *processConn) Close() error {
	err := c.Connection.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case werr := <-done:
		var exit *exec.ExitError
		if werr != nil && !errors.As(werr, &exit) {
			err = errors.Join(err, werr)
		}
	case <-time.After(terminateAfter):
		_ = c.cmd.Process.Kill()
		<-done
	}
	return err
}
