package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// Timeouts of the resource client in tests. Only the cases that make the
// resource server stall use the short one: every other request must
// succeed or fail on its merits, however loaded the machine, so it gets a
// timeout far beyond any scheduling delay.
const (
	// testTimeout bounds each request to the resource server in
	// newHarness, newHarnessFor and connectTo.
	testTimeout = 10 * time.Second
	// stallTimeout bounds each request in newStallHarness, whose resource
	// server is expected to stall: short, so those cases are fast.
	stallTimeout = 300 * time.Millisecond
	// callTimeout bounds each tool call; it exceeds testTimeout, so that a
	// resource server that stalls under the long timeout still shows as
	// the tool's resource_unavailable error and not as a cancelled call.
	callTimeout = 3 * testTimeout
)

// harness is the server under test: an SDK client session over in-memory
// transports to newServer, whose resource server is served over real HTTP
// on 127.0.0.1.
type harness struct {
	cs *mcp.ClientSession
	fx *fixture // nil when the resource server is a custom handler
}

// newHarness serves the fixture and connects a client to the server.
func newHarness(t *testing.T) *harness {
	t.Helper()
	fx := newFixture()
	h := newHarnessFor(t, fx)
	h.fx = fx
	return h
}

// newHarnessFor serves rs as the resource server and connects a client,
// whose requests to rs each give up after testTimeout.
func newHarnessFor(t *testing.T, rs http.Handler) *harness {
	t.Helper()
	return newHarnessTimeout(t, rs, testTimeout)
}

// newStallHarness is newHarnessFor for a resource server that stalls: its
// requests give up after stallTimeout.
func newStallHarness(t *testing.T, rs http.Handler) *harness {
	t.Helper()
	return newHarnessTimeout(t, rs, stallTimeout)
}

// newHarnessTimeout serves rs as the resource server and connects a client,
// whose requests to rs each give up after timeout.
func newHarnessTimeout(t *testing.T, rs http.Handler, timeout time.Duration) *harness {
	t.Helper()
	hs := httptest.NewServer(rs)
	t.Cleanup(hs.Close)
	return connectTimeout(t, hs.URL, timeout)
}

// connectTo connects a client to a server over the resource server at url,
// with testTimeout.
func connectTo(t *testing.T, url string) *harness {
	t.Helper()
	return connectTimeout(t, url, testTimeout)
}

// connectTimeout connects a client to a server over the resource server at
// url, whose requests each give up after timeout.
func connectTimeout(t *testing.T, url string, timeout time.Duration) *harness {
	t.Helper()
	rc, err := newResourceClient(url, timeout)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newServer(rc).Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return &harness{cs: cs}
}

// call calls a tool with a deadline; a protocol error fails the test.
func (h *harness) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return res
}

// search calls search and decodes its structuredContent.
func (h *harness) search(t *testing.T, query string) (text string, out searchOutput) {
	t.Helper()
	res := h.call(t, "search", searchInput{Query: query})
	require.False(t, res.IsError, "search failed: %s", textOf(res))
	require.Len(t, res.Content, 1)
	require.NoError(t, decodeStructured(res, &out))
	return textOf(res), out
}

// fetch calls fetch and requires it to succeed; it returns the document
// decoded from structuredContent, after checking that the text says the
// same.
func (h *harness) fetch(t *testing.T, id, connectionID string) fetchOutput {
	t.Helper()
	res := h.call(t, "fetch", fetchInput{ID: id, ConnectionID: connectionID})
	require.False(t, res.IsError, "fetch failed: %s", textOf(res))
	var doc, fromText fetchOutput
	require.NoError(t, decodeStructured(res, &doc))
	require.NoError(t, json.Unmarshal([]byte(textOf(res)), &fromText))
	require.Equal(t, doc, fromText)
	return doc
}

// envelope is a tool-error envelope as a client decodes it: the fields of
// mcpid's and of resourceError's.
type envelope struct {
	Type         string   `json:"type"`
	Code         string   `json:"code"`
	Message      string   `json:"message"`
	Hint         string   `json:"hint"`
	Field        string   `json:"field"`
	Segment      string   `json:"segment"`
	Offset       *int     `json:"offset"`
	ID           *string  `json:"id"`
	ConnectionID *string  `json:"connection_id"`
	Embedded     string   `json:"embedded_connection_id"`
	Available    []string `json:"available_connections"`
	Omitted      int      `json:"available_connections_omitted"`
	RetryWith    string   `json:"retry_with"`
	Retryable    *bool    `json:"retryable"`
	Status       int      `json:"status"`
}

// toolErrorOf requires res to be a tool error whose envelope is the same in
// structuredContent and in the text of content[], and returns it.
func toolErrorOf(t *testing.T, res *mcp.CallToolResult) envelope {
	t.Helper()
	require.True(t, res.IsError, "want a tool error, got: %s", textOf(res))
	require.Len(t, res.Content, 1)
	var fromStructured, fromText envelope
	require.NoError(t, decodeStructured(res, &fromStructured))
	require.NoError(t, json.Unmarshal([]byte(textOf(res)), &fromText), "text: %s", textOf(res))
	require.Equal(t, fromStructured, fromText)
	require.Equal(t, "adapter_error", fromText.Type)
	require.NotEmpty(t, fromText.Message)
	require.NotEmpty(t, fromText.Hint)
	return fromText
}

// fetchError calls fetch and requires a tool error; it returns the envelope.
func (h *harness) fetchError(t *testing.T, id, connectionID string) envelope {
	t.Helper()
	return toolErrorOf(t, h.call(t, "fetch", fetchInput{ID: id, ConnectionID: connectionID}))
}
