package adaptertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/sentinel"
	"github.com/mcpid/mcpid/searchfetch"
)

// Answer is a tool result as an SDK's client received it.
type Answer struct {
	// Texts holds the text of each content item; an item of another kind
	// is its type in angle brackets, such as "<image>".
	Texts []string
	// Structured is structuredContent decoded from JSON into any (nil when
	// absent), so that two answers compare with cmp.Diff.
	Structured any
	// IsError is the result's isError.
	IsError bool
}

// ToolInfo is a tool as the client listed it.
type ToolInfo struct {
	Name string
	// InputSchema is the schema decoded from JSON into any.
	InputSchema any
	// Annotations are the tool's annotations as the client received
	// them, decoded from JSON into any.
	Annotations any
	// OutputSchema is the output schema decoded from JSON into any, where
	// the client keeps it whole (nil otherwise).
	OutputSchema any
}

// Client is an SDK's client, connected in process to a server of the same
// SDK that serves the two tools.
type Client interface {
	// ListTools returns the server's tools.
	ListTools(t testing.TB) []ToolInfo
	// Call calls a tool with args, which the client sends as JSON.
	Call(t testing.TB, name string, args any) Answer
}

// Connect starts a server of an SDK with the tools over b, registered
// through the adapter with opts, and returns a client connected to it.
// Everything it starts ends with the test.
type Connect func(t testing.TB, b searchfetch.Backend, opts *searchfetch.Options) Client

// NewAnswer returns the SDK-independent form of a tool result: its
// isError, its content items, of which text returns the text (false for
// an item of another kind), and its structuredContent (nil when absent).
func NewAnswer[C any](t testing.TB, isError bool, content []C, text func(C) (string, bool), structured any) Answer {
	t.Helper()
	a := Answer{IsError: isError}
	for _, c := range content {
		if s, ok := text(c); ok {
			a.Texts = append(a.Texts, s)
		} else {
			a.Texts = append(a.Texts, fmt.Sprintf("<%T>", c))
		}
	}
	if structured != nil {
		a.Structured = Decode(t, structured)
	}
	return a
}

// Decode returns the JSON value v marshals to, decoded into any: the form
// in which Answer and ToolInfo hold structured values.
func Decode(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

// DecodeText returns text, a JSON value, decoded into any.
func DecodeText(t testing.TB, text string) any {
	t.Helper()
	var out any
	require.NoError(t, json.Unmarshal([]byte(text), &out), "text is not JSON: %s", text)
	return out
}

// Run runs every journey against the adapter that connect serves. Every
// answer's structuredContent is validated against the tool's output
// schema, error results included, as the TypeScript SDK's client does.
func Run(t *testing.T, connect Connect) {
	connect = validating(connect)
	t.Run("TextOnly", func(t *testing.T) { textOnly(t, connect) })
	t.Run("LegacyAmbiguousRetry", func(t *testing.T) { legacyAmbiguousRetry(t, connect) })
	t.Run("RejectedBeforeBackend", func(t *testing.T) { rejectedBeforeBackend(t, connect) })
	t.Run("ChatGPT", func(t *testing.T) { chatGPT(t, connect) })
	t.Run("IgnoredContext", func(t *testing.T) { ignoredContext(t, connect) })
	t.Run("Panicked", func(t *testing.T) { panicked(t, connect) })
	t.Run("ReadOn", func(t *testing.T) { readOn(t, connect) })
	t.Run("Records", func(t *testing.T) { records(t, connect) })
	t.Run("Aliases", func(t *testing.T) { aliasJourneys(t, connect) })
	t.Run("Pages", func(t *testing.T) { pages(t, connect) })
}

// allHits shows every record in the preview.
var allHits = &searchfetch.Options{Preview: mcpid.PreviewOptions{MaxHits: len(Records)}}

// WantIDs are the ids search gives Records, in order.
var WantIDs = []string{
	"c1/orders:o1",
	"c1/tickets:t1",
	"c2/tickets:t1",
	"wiki/:https://wiki.example.com/p/7",
	"eu%3Awiki/pages:p1",
	"notes:n1",
}

// textOnly is the journey of a model that reads only text: it takes the ids
// from the search text and fetches each by its id alone.
func textOnly(t *testing.T, connect Connect) {
	b := &Backend{}
	c := connect(t, b, allHits)
	a := c.Call(t, searchfetch.SearchName, map[string]any{"query": "refund"})
	require.False(t, a.IsError, "search failed: %v", a.Texts)
	require.Len(t, a.Texts, 1)
	ids := mcpid.ExtractIDs(a.Texts[0])
	if diff := cmp.Diff(WantIDs, ids); diff != "" {
		t.Fatalf("ids in the search text (-want +got):\n%s\ntext:\n%s", diff, a.Texts[0])
	}
	results := a.Structured.(map[string]any)["results"].([]any)
	require.Len(t, results, len(Records))
	for i, r := range Records {
		// structuredContent shows what the text shows: every id embeds
		// its connection, so no connection_id.
		got := results[i].(map[string]any)
		assert.Equal(t, WantIDs[i], got["id"], "results[%d].id", i)
		assert.Equal(t, r.Title, got["title"], "results[%d].title", i)
		assert.NotContains(t, got, "connection_id", "results[%d]", i)
	}
	for i, id := range ids {
		a := c.Call(t, searchfetch.FetchName, map[string]any{"id": id})
		doc := requireDocument(t, a)
		assert.Equal(t, id, doc["id"], "fetch %q: the document echoes the id", id)
		assert.Equal(t, Records[i].Title, doc["title"], "fetch %q", id)
		assert.Equal(t, Records[i].ConnectionID, doc["metadata"].(map[string]any)["connection_id"], "fetch %q", id)
	}
	assert.Equal(t, int64(1), b.Searches())
	assert.Equal(t, int64(len(ids)), b.Fetches())
}

// legacyAmbiguousRetry is the journey of a legacy id held by two
// connections: ambiguous_connection lists them, and the retry with one of
// them as connection_id reads that one.
func legacyAmbiguousRetry(t *testing.T, connect Connect) {
	b := &Backend{}
	c := connect(t, b, nil)
	a := c.Call(t, searchfetch.FetchName, map[string]any{"id": "tickets:t1"})
	e := RequireToolError(t, a, mcpid.CodeAmbiguousConnection)
	assert.Equal(t, []string{"c1", "c2"}, e.Available)

	a = c.Call(t, searchfetch.FetchName, map[string]any{"id": "tickets:t1", "connection_id": "c2"})
	doc := requireDocument(t, a)
	assert.Equal(t, "tickets:t1", doc["id"])
	assert.Equal(t, "Refund for o1 (EU)", doc["title"])

	a = c.Call(t, searchfetch.FetchName, map[string]any{"id": "orders:o1", "connection_id": "c1"})
	assert.Equal(t, "Order o1", requireDocument(t, a)["title"])
	assert.Equal(t, int64(3), b.Fetches())
}

// rejectedBeforeBackend: conflicting connections, traversal and malformed
// arguments are answered without any backend call.
func rejectedBeforeBackend(t *testing.T, connect Connect) {
	b := &Backend{}
	c := connect(t, b, nil)
	tests := []struct {
		name string
		args any
		code mcpid.Code
	}{
		{"conflicting", map[string]any{"id": "c1/orders:o1", "connection_id": "c2"}, mcpid.CodeConflictingConnectionID},
		{"traversal in the record", map[string]any{"id": "c1/orders:../../etc/passwd"}, mcpid.CodeInvalidID},
		{"traversal in the stream", map[string]any{"id": "../orders:o1"}, mcpid.CodeInvalidID},
		{"backslash", map[string]any{"id": `orders:..\o1`}, mcpid.CodeInvalidID},
		{"traversal in connection_id", map[string]any{"id": "orders:o1", "connection_id": "../c1"}, mcpid.CodeInvalidConnectionID},
		{"id not a string", map[string]any{"id": 7}, searchfetch.CodeInvalidArguments},
		{"id missing", map[string]any{"connection_id": "c1"}, searchfetch.CodeInvalidArguments},
		{"unknown argument", map[string]any{"id": "c1/orders:o1", "connectionId": "c1"}, searchfetch.CodeInvalidArguments},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			RequireToolError(t, c.Call(t, searchfetch.FetchName, tt.args), tt.code)
		})
	}
	assert.Equal(t, int64(0), b.Fetches())
}

// chatGPT checks OpenAI's contract: exact input schemas, read-only tools,
// one text item of JSON equal to structuredContent.
func chatGPT(t *testing.T, connect Connect) {
	b := &Backend{}
	c := connect(t, b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, Preview: allHits.Preview})
	wantSchemas := map[string]any{
		searchfetch.SearchName: DecodeText(t, `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}`),
		searchfetch.FetchName:  DecodeText(t, `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`),
	}
	gotSchemas := map[string]any{}
	for _, tool := range c.ListTools(t) {
		gotSchemas[tool.Name] = tool.InputSchema
		assert.Equal(t, wantAnnotations, tool.Annotations, "%s: all four annotations, false ones included", tool.Name)
	}
	if diff := cmp.Diff(wantSchemas, gotSchemas); diff != "" {
		t.Errorf("input schemas (-want +got):\n%s", diff)
	}

	a := c.Call(t, searchfetch.SearchName, map[string]any{"query": "refund"})
	require.False(t, a.IsError, "search failed: %v", a.Texts)
	require.Len(t, a.Texts, 1)
	if diff := cmp.Diff(a.Structured, DecodeText(t, a.Texts[0])); diff != "" {
		t.Errorf("search: text differs from structuredContent (-structured +text):\n%s", diff)
	}
	results := a.Structured.(map[string]any)["results"].([]any)
	require.Len(t, results, len(Records))
	for i, r := range results {
		assert.Equal(t, WantIDs[i], r.(map[string]any)["id"], "results[%d].id", i)
	}

	a = c.Call(t, searchfetch.FetchName, map[string]any{"id": WantIDs[0]})
	doc := requireDocument(t, a)
	assert.Equal(t, WantIDs[0], doc["id"])

	// A legacy id from an older conversation, held by two connections:
	// the answer lists the ids to retry with, never a connection_id.
	a = c.Call(t, searchfetch.FetchName, map[string]any{"id": "tickets:t1"})
	e := RequireToolError(t, a, mcpid.CodeAmbiguousConnection)
	assert.Equal(t, []string{"c1/tickets:t1", "c2/tickets:t1"}, e.AvailableIDs)
	assert.NotContains(t, a.Texts[0], "connection_id")
	doc = requireDocument(t, c.Call(t, searchfetch.FetchName, map[string]any{"id": e.AvailableIDs[1]}))
	assert.Equal(t, Records[2].Title, doc["title"])

	RequireToolError(t, c.Call(t, searchfetch.FetchName, map[string]any{"id": "tickets:t1", "connection_id": "c1"}), searchfetch.CodeInvalidArguments)
	RequireToolError(t, c.Call(t, searchfetch.SearchName, map[string]any{"query": "x", "limit": "3"}), searchfetch.CodeInvalidArguments)
	assert.Equal(t, int64(3), b.Fetches())
}

// requireDocument checks that a is a fetched document, one text item whose
// JSON equals structuredContent, and returns it.
func requireDocument(t testing.TB, a Answer) map[string]any {
	t.Helper()
	require.False(t, a.IsError, "fetch failed: %v", a.Texts)
	require.Len(t, a.Texts, 1)
	if diff := cmp.Diff(a.Structured, DecodeText(t, a.Texts[0])); diff != "" {
		t.Fatalf("fetch: text differs from structuredContent (-structured +text):\n%s", diff)
	}
	doc, ok := a.Structured.(map[string]any)
	require.True(t, ok, "structuredContent is not an object: %v", a.Structured)
	return doc
}

// RequireToolError checks that a is a tool error with code, whose one text
// item is the envelope and equals structuredContent, and returns the error
// the envelope decodes to.
func RequireToolError(t testing.TB, a Answer, code mcpid.Code) *mcpid.Error {
	t.Helper()
	require.True(t, a.IsError, "want a tool error %s, got %v", code, a.Texts)
	require.Len(t, a.Texts, 1)
	if diff := cmp.Diff(a.Structured, DecodeText(t, a.Texts[0])); diff != "" {
		t.Fatalf("error text differs from structuredContent (-structured +text):\n%s", diff)
	}
	var e mcpid.Error
	require.NoError(t, json.Unmarshal([]byte(a.Texts[0]), &e))
	assert.Equal(t, code, e.Code, "envelope: %s", a.Texts[0])
	if s := sentinel.For(code); s != nil {
		assert.True(t, errors.Is(&e, s), "errors.Is(%s)", code)
	}
	return &e
}
