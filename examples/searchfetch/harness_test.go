package main

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// callTimeout bounds each tool call of a test: far beyond any scheduling
// delay, so that a call fails on its merits and never on the clock.
const callTimeout = 30 * time.Second

// sdks are the values of -sdk; tests that hold for both run once per SDK.
var sdks = []string{"gosdk", "mcpgo"}

// newTestFixture serves a fresh fixture on 127.0.0.1 and returns it with a
// resource client for it.
func newTestFixture(t *testing.T) (*fixture, *resourceClient) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	fx, base, stop := startFixture(ln)
	t.Cleanup(stop)
	rc, err := newResourceClient(base, callTimeout)
	require.NoError(t, err)
	return fx, rc
}

// newTestServer returns the server of sdk over a fresh fixture.
func newTestServer(t *testing.T, sdk string, chatgpt bool) mcpServer {
	t.Helper()
	_, rc := newTestFixture(t)
	return newMCPServer(sdk, rc, chatgpt, nil, nil, false)
}

// session is a go-sdk client session to a server under test.
type session struct {
	cs *mcp.ClientSession
}

// connect connects the go-sdk client to s in process, as the demo does.
func connect(t *testing.T, s mcpServer) *session {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs, served, err := connectClient(ctx, s)
	require.NoError(t, err)
	// One stream at a time: mcp-go's stdio server keeps its session in a
	// process-wide variable, so the next test waits for this one to end.
	t.Cleanup(func() {
		_ = cs.Close()
		<-served
	})
	return &session{cs: cs}
}

// call calls a tool with a deadline; a protocol error fails the test.
func (s *session) call(t *testing.T, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return res
}

// ok calls a tool, requires a success with one text item, and returns the
// text and the structuredContent as JSON.
func (s *session) ok(t *testing.T, name string, args map[string]any) (text string, structured json.RawMessage) {
	t.Helper()
	res := s.call(t, name, args)
	require.False(t, res.IsError, "%s failed: %s", name, textOf(res))
	require.Len(t, res.Content, 1)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	return textOf(res), b
}

// toolError calls a tool and requires a tool error whose envelope is both
// the one text item and structuredContent; it returns the decoded error.
func (s *session) toolError(t *testing.T, name string, args map[string]any) *mcpid.Error {
	t.Helper()
	return envelopeOf(t, s.call(t, name, args))
}

// envelopeOf requires res to be a tool error whose envelope is both the one
// text item and structuredContent, and returns the decoded error.
func envelopeOf(t *testing.T, res *mcp.CallToolResult) *mcpid.Error {
	t.Helper()
	require.True(t, res.IsError, "want a tool error, got: %s", textOf(res))
	require.Len(t, res.Content, 1)
	structured, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.JSONEq(t, textOf(res), string(structured))
	var e mcpid.Error
	require.NoError(t, json.Unmarshal([]byte(textOf(res)), &e), "text: %s", textOf(res))
	return &e
}

// The opaque handles search gives the fixture's two records whose ids no
// plain handle can carry.
const (
	opaqueWikiID = "cin_9b1c/:https://wiki.example.com/p/7"
	opaqueFileID = "cin_d21e/:files:reports/q3.pdf"
)
