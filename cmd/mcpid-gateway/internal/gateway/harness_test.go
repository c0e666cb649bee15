package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpid/mcpid/toolname"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// testTimeout bounds every downstream step in the tests, and every wait
// for something the gateway does: far beyond what a step takes on a
// loaded machine, so that it only keeps a failing test from hanging.
const testTimeout = 20 * time.Second

// client is an MCP client of a gateway under test.
type client struct {
	cs      *mcp.ClientSession
	changed chan struct{} // receives on every tools/list_changed
}

// startGateway starts a gateway on the given downstream servers and
// connects a client to it; both are closed when the test ends.
func startGateway(t testing.TB, cfg config, specs ...downstreamSpec) (*gateway, *client) {
	t.Helper()
	if cfg.timeout == 0 {
		cfg.timeout = testTimeout
	}
	g, err := newGateway(cfg)
	require.NoError(t, err)
	t.Cleanup(g.close)
	require.NoError(t, g.start(t.Context(), specs))
	waitReady(t, g)
	c := &client{changed: make(chan struct{}, 16)}
	mc := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case c.changed <- struct{}{}:
			default:
			}
		},
	})
	c.cs, err = mc.Connect(t.Context(), inProcess{g.srv}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.cs.Close() })
	return g, c
}

// waitReady waits until g answers its first tools/list.
func waitReady(t testing.TB, g *gateway) {
	t.Helper()
	select {
	case <-g.ready:
	case <-time.After(testTimeout):
		t.Fatal("the gateway is not ready")
	}
}

// fileStore opens the file store at path; it is closed when the test ends,
// if it is open still.
func fileStore(t *testing.T, path string) *toolname.FileStore {
	t.Helper()
	s, err := toolname.NewFileStore(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// flakyStore is a real store whose swaps fail while told to, as they fail
// on a full disk, and that counts them.
type flakyStore struct {
	toolname.Store
	fail     atomic.Bool
	swaps    atomic.Int64
	failures atomic.Int64
}

var errDiskFull = errors.New("no space left on device")

func (s *flakyStore) Swap(ctx context.Context, rev toolname.Revision, next *toolname.Table) (toolname.Revision, error) {
	s.swaps.Add(1)
	if s.fail.Load() {
		s.failures.Add(1)
		return "", errDiskFull
	}
	return s.Store.Swap(ctx, rev, next)
}

// names returns the names the client sees, sorted.
func (c *client) names(t *testing.T) []string {
	t.Helper()
	names, err := listNames(t.Context(), c.cs)
	require.NoError(t, err)
	return names
}

// call calls the tool name with a query and returns the result.
func (c *client) call(t *testing.T, name, query string) *mcp.CallToolResult {
	t.Helper()
	res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"query": query}})
	require.NoError(t, err, "a failure must be a tool error, not a protocol error")
	return res
}

// envelopeCode returns the code of the error envelope in a tool error.
func envelopeCode(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	code := codeOf(res)
	require.NotEmpty(t, code, "want a tool error with the JSON envelope, got %q", resultText(res))
	return code
}

// codeOf returns the code of the error envelope in a tool error, or ""
// when res is not one. It never fails the test, so a polling condition
// can call it.
func codeOf(res *mcp.CallToolResult) string {
	var env struct {
		Type string `json:"type"`
		Code string `json:"code"`
	}
	if !res.IsError || json.Unmarshal([]byte(resultText(res)), &env) != nil || env.Type != "adapter_error" {
		return ""
	}
	return env.Code
}

// hasNames returns a polling condition that holds when the client sees n
// tool names. It never fails the test.
func (c *client) hasNames(ctx context.Context, n int) func() bool {
	return func() bool {
		names, err := listNames(ctx, c.cs)
		return err == nil && len(names) == n
	}
}

// scripted is a downstream server that speaks just enough MCP to be
// connected, and misbehaves as told.
type scripted struct {
	answersInitialize bool
	tools             string // the JSON array that tools/list answers
	crashOnCall       bool   // tools/call closes the connection
	refuseCall        string // tools/call is answered with a JSON-RPC error saying this
	// Otherwise tools/call is never answered.
	floodChanged int       // tools/list_changed notifications sent once initialized
	lists        *listings // counts tools/list requests, when set
}

// listings counts the tools/list requests a scripted server receives, and
// the most of them in flight at once: sent by the client, their answer
// not yet read by it.
type listings struct {
	mu      sync.Mutex
	open    map[jsonrpc.ID]bool
	total   int
	maxOpen int
}

func (l *listings) sent(id jsonrpc.ID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open == nil {
		l.open = map[jsonrpc.ID]bool{}
	}
	l.open[id] = true
	l.total++
	l.maxOpen = max(l.maxOpen, len(l.open))
}

func (l *listings) read(m jsonrpc.Message) {
	if r, ok := m.(*jsonrpc.Response); ok {
		l.mu.Lock()
		delete(l.open, r.ID)
		l.mu.Unlock()
	}
}

// counts returns the requests so far, and the most in flight at once.
func (l *listings) counts() (total, maxOpen int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total, l.maxOpen
}

func (s scripted) Connect(context.Context) (mcp.Connection, error) {
	return &scriptedConn{s: s, in: make(chan jsonrpc.Message, 16), done: make(chan struct{})}, nil
}

type scriptedConn struct {
	s    scripted
	in   chan jsonrpc.Message
	done chan struct{}
	once sync.Once
}

func (c *scriptedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.in:
		if c.s.lists != nil {
			c.s.lists.read(m)
		}
		return m, nil
	case <-c.done:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *scriptedConn) Write(_ context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if ok && req.Method == "notifications/initialized" {
		for range c.s.floodChanged {
			c.reply(&jsonrpc.Request{Method: "notifications/tools/list_changed"})
		}
	}
	if !ok || !req.ID.IsValid() {
		return nil
	}
	switch req.Method {
	case "initialize":
		if c.s.answersInitialize {
			c.reply(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"scripted","version":"v0"}}`)})
		}
	case "tools/list":
		if c.s.lists != nil {
			c.s.lists.sent(req.ID)
		}
		c.reply(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"tools":` + c.s.tools + `}`)})
	case "tools/call":
		switch {
		case c.s.crashOnCall:
			_ = c.Close()
		case c.s.refuseCall != "":
			c.reply(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32602, Message: c.s.refuseCall}})
		}
	default:
		c.reply(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: -32601, Message: "method not found"}})
	}
	return nil
}

func (c *scriptedConn) reply(r jsonrpc.Message) {
	select {
	case c.in <- r:
	case <-c.done:
	}
}

func (c *scriptedConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *scriptedConn) SessionID() string { return "" }

// failing is a transport that cannot connect, like a command that does
// not exist.
type failing struct{}

func (failing) Connect(context.Context) (mcp.Connection, error) {
	return nil, io.ErrUnexpectedEOF
}
