package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcpid/mcpid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allFixtureIDs are the ids an empty search returns from the fixture, in
// its order, each self-contained.
var allFixtureIDs = []string{
	"cin_4f2a/orders:o1",
	"cin_9b7e/orders:o1",
	"cin_9b7e/orders:o2",
	"cin_4f2a/orders:o#1042?gift=yes",
	"cin_77c1/tickets:urn:zd:4711",
	"cin_77c1/tickets:café-crème",
}

// TestSearchMultiSource: every result id is connection/stream:record in
// the text and in structuredContent, results keep their connection_id, and
// the text shows no separate connection_id for them.
func TestSearchMultiSource(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		wantIDs []string // in structuredContent, in order
	}{
		{
			name:  "espresso",
			query: "espresso",
			wantIDs: []string{
				"cin_4f2a/orders:o1",
				"cin_9b7e/orders:o1",
				"cin_4f2a/orders:o#1042?gift=yes",
				"cin_77c1/tickets:urn:zd:4711",
			},
		},
		{
			name:    "everything",
			query:   "",
			wantIDs: allFixtureIDs,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			text, out := h.search(t, tt.query)

			require.Len(t, out.Results, len(tt.wantIDs))
			assert.Equal(t, len(tt.wantIDs), out.Total)
			connections := map[string]bool{}
			for i, r := range out.Results {
				assert.Equal(t, tt.wantIDs[i], r.ID)
				hd, err := mcpid.Parse(r.ID)
				require.NoError(t, err, r.ID)
				assert.True(t, hd.IsSelfContained(), r.ID)
				assert.Equal(t, r.ConnectionID, hd.ConnectionID(), "results keep their connection_id")
				assert.Equal(t, r.Stream, hd.Stream())
				assert.NotEmpty(t, r.Title)
				assert.NotEmpty(t, r.URL)
				connections[r.ConnectionID] = true
			}
			assert.Len(t, connections, 3, "hits come from three connections")

			shown := mcpid.ExtractIDs(text)
			require.NotEmpty(t, shown)
			require.LessOrEqual(t, len(shown), len(out.Results))
			assert.Equal(t, tt.wantIDs[:len(shown)], shown, "the text shows the same ids, in order")
			for _, id := range shown {
				hd, err := mcpid.Parse(id)
				require.NoError(t, err, id)
				assert.True(t, hd.IsSelfContained(), id)
			}
			assert.NotContains(t, text, "connection_id=", "no hit needs a separate connection_id")
			if len(shown) < len(out.Results) {
				assert.Contains(t, text, "structuredContent.results", "the text points to the hits it leaves out")
			}
			assert.Equal(t, 1, h.fx.count("/v1/search?q="+tt.query))
			assert.Empty(t, h.fx.reads(), "search reads no record")
		})
	}
}

// TestSearchUnembeddableConnection: a hit whose id or connection cannot
// form a self-contained id keeps its id, the text shows its connection_id
// on its line, and fetch with both arguments reaches the resource server
// scoped to that connection.
func TestSearchUnembeddableConnection(t *testing.T) {
	var (
		mu    sync.Mutex
		reads []string
	)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/search", status(200, "application/json", `{"hits":[
		{"id":"orders:o1","connection_id":"team:eu","stream":"orders","title":"a colon in the connection"},
		{"id":"https://wiki.example/p/1","connection_id":"cin_wiki","title":"a URL id"},
		{"id":"orders:o2","title":"no connection"}
	],"total":3}`))
	mux.HandleFunc("GET /v1/streams/{stream}/records/{record_id}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reads = append(reads, r.URL.RequestURI())
		mu.Unlock()
		writeJSON(w, 200, rsDocument{ConnectionID: r.URL.Query().Get("connection_id"), Stream: r.PathValue("stream"), RecordID: r.PathValue("record_id"), Title: "t"})
	})
	h := newHarnessFor(t, mux)

	text, out := h.search(t, "x")
	require.Len(t, out.Results, 3)
	assert.Equal(t, "orders:o1", out.Results[0].ID)
	assert.Equal(t, "team:eu", out.Results[0].ConnectionID)
	assert.Equal(t, "https://wiki.example/p/1", out.Results[1].ID)
	assert.Equal(t, "orders:o2", out.Results[2].ID)
	assert.Equal(t, []string{"orders:o1", "https://wiki.example/p/1", "orders:o2"}, mcpid.ExtractIDs(text))
	assert.Contains(t, text, "1. id=orders:o1 connection_id=team:eu")
	assert.Contains(t, text, "2. id=https://wiki.example/p/1 connection_id=cin_wiki")

	doc := h.fetch(t, "orders:o1", "team:eu")
	assert.Equal(t, "orders:o1", doc.ID)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"/v1/streams/orders/records/o1?connection_id=team%3Aeu"}, reads)
}

// TestTextOnlyJourney: a model that reads only content[] text can fetch
// with the first id it shows, and the read is scoped to the embedded
// connection.
func TestTextOnlyJourney(t *testing.T) {
	h := newHarness(t)
	res := h.call(t, "search", searchInput{Query: "espresso"})
	require.False(t, res.IsError)
	ids := mcpid.ExtractIDs(textOf(res)) // the text only, never structuredContent
	require.NotEmpty(t, ids)
	id := ids[0]
	require.Equal(t, "cin_4f2a/orders:o1", id)

	doc := h.fetch(t, id, "")
	assert.Equal(t, id, doc.ID)
	assert.Equal(t, "Order o1: 3 kg espresso beans", doc.Title)
	assert.Contains(t, doc.Text, "EU store")
	assert.Equal(t, "https://shopify.example/cin_4f2a/orders/o1", doc.URL)
	assert.Equal(t, map[string]string{
		"connection_id": "cin_4f2a", "stream": "orders", "record_id": "o1", "scope": "embedded",
		"currency": "EUR", "total": "54.00",
	}, doc.Metadata)

	reads := h.fx.reads()
	require.Len(t, reads, 1, "exactly one read reached the resource server")
	assert.Equal(t, fixtureRequest{
		URI:          "/v1/streams/orders/records/o1?connection_id=cin_4f2a",
		Record:       true,
		Stream:       "orders",
		RecordID:     "o1",
		ConnectionID: "cin_4f2a",
	}, reads[0])
}

// TestLegacyFetchAmbiguous: an unscoped legacy id that two connections
// hold is the typed ambiguous_connection error; the same id with
// connection_id succeeds and is echoed as given.
func TestLegacyFetchAmbiguous(t *testing.T) {
	h := newHarness(t)

	env := h.fetchError(t, "orders:o1", "")
	assert.Equal(t, string(mcpid.CodeAmbiguousConnection), env.Code)
	assert.Equal(t, []string{"cin_4f2a", "cin_9b7e"}, env.Available)
	assert.Zero(t, env.Omitted)
	assert.Equal(t, "connection_id", env.RetryWith)
	reads := h.fx.reads()
	require.Len(t, reads, 1)
	assert.Equal(t, "/v1/streams/orders/records/o1", reads[0].URI, "unscoped: no connection_id")

	for _, conn := range env.Available {
		t.Run(conn, func(t *testing.T) {
			doc := h.fetch(t, "orders:o1", conn)
			assert.Equal(t, "orders:o1", doc.ID, "the legacy id is echoed as given")
			assert.Equal(t, conn, doc.Metadata["connection_id"])
			assert.Equal(t, "explicit", doc.Metadata["scope"])
			assert.Equal(t, 1, h.fx.count("/v1/streams/orders/records/o1?connection_id="+conn))
		})
	}
}

// TestLegacyFetchUnique: an unscoped legacy id that one connection holds
// is read without a connection.
func TestLegacyFetchUnique(t *testing.T) {
	h := newHarness(t)
	doc := h.fetch(t, "orders:o2", "")
	assert.Equal(t, "orders:o2", doc.ID)
	assert.Equal(t, "cin_9b7e", doc.Metadata["connection_id"])
	assert.Equal(t, "unscoped", doc.Metadata["scope"])
	assert.Equal(t, 1, h.fx.count("/v1/streams/orders/records/o2"))
}

// TestConflictingConnectionID: a connection_id that contradicts the id's
// embedded connection is a typed error, and nothing reaches the resource
// server; an equal one is accepted.
func TestConflictingConnectionID(t *testing.T) {
	h := newHarness(t)
	env := h.fetchError(t, "cin_4f2a/orders:o1", "cin_9b7e")
	assert.Equal(t, string(mcpid.CodeConflictingConnectionID), env.Code)
	assert.Equal(t, "connection_id", env.Field)
	assert.Equal(t, "connection", env.Segment)
	assert.Equal(t, "cin_4f2a", env.Embedded)
	require.NotNil(t, env.ConnectionID)
	assert.Equal(t, "cin_9b7e", *env.ConnectionID)
	assert.Contains(t, env.Hint, `"cin_4f2a"`)
	assert.Empty(t, h.fx.requests(), "no request reached the resource server")

	doc := h.fetch(t, "cin_4f2a/orders:o1", "cin_4f2a")
	assert.Equal(t, "cin_4f2a/orders:o1", doc.ID)
	assert.Equal(t, "embedded", doc.Metadata["scope"])
	assert.Len(t, h.fx.requests(), 1)
}

// offset returns a pointer to n, for an expected envelope offset.
func offset(n int) *int { return &n }

// TestMalformedArgumentsNeverReachResourceServer: malformed and
// path-traversing ids and connection_ids are typed errors that name the
// argument, the segment and the byte offset at fault, and not one request
// reaches the resource server.
//
// Traversal that is only percent-encoded or spelled with lookalike
// characters is not traversal to mcpid: such ids are valid, and reach the
// resource server exactly once with their record key escaped once more,
// so that a server that decodes the path once gets back the literal text,
// "%2e%2e%2f" or "．．", and never a "../" it could climb with.
func TestMalformedArgumentsNeverReachResourceServer(t *testing.T) {
	tests := []struct {
		name         string
		id           string
		connectionID string
		wantCode     mcpid.Code
		wantField    string
		wantSegment  string // "" when no single segment is at fault
		wantOffset   *int   // nil when the envelope carries no offset
	}{
		{"traversal in record", "cin_a/orders:../../etc/passwd", "", mcpid.CodeInvalidID, "id", "record", offset(13)},
		{"traversal before connection", "../cin_a/orders:o1", "", mcpid.CodeInvalidID, "id", "connection", offset(0)},
		{"dot-dot record", "orders:..", "", mcpid.CodeInvalidID, "id", "record", offset(7)},
		{"dot record", "orders:.", "", mcpid.CodeInvalidID, "id", "record", offset(7)},
		{"backslash", `orders:..\etc`, "", mcpid.CodeInvalidID, "id", "record", offset(7)},
		{"second slash", "a/b/c:d", "", mcpid.CodeInvalidID, "id", "stream", offset(3)},
		{"no colon", "orders", "", mcpid.CodeInvalidID, "id", "stream", offset(0)},
		{"empty", "", "", mcpid.CodeInvalidID, "id", "", nil},
		{"empty connection", "/orders:o1", "", mcpid.CodeInvalidID, "id", "connection", offset(0)},
		{"empty record", "orders:", "", mcpid.CodeInvalidID, "id", "record", offset(6)},
		{"NUL in record", "orders:o1\x00", "", mcpid.CodeInvalidID, "id", "record", offset(9)},
		{"NUL in connection", "cin\x00/orders:o1", "", mcpid.CodeInvalidID, "id", "connection", offset(3)},
		{"newline forging a line", "orders:o1\n2. id=cin_x/orders:o9", "", mcpid.CodeInvalidID, "id", "connection", offset(6)}, // split at the first /
		{"C1 control", "orders:o1\u0085", "", mcpid.CodeInvalidID, "id", "record", offset(9)},
		{"malformed id wins over connection_id", "orders", "../x", mcpid.CodeInvalidID, "id", "stream", offset(0)},
		{"traversal in connection_id", "orders:o1", "../cin_a", mcpid.CodeInvalidConnectionID, "connection_id", "", offset(0)},
		{"slash in connection_id", "orders:o1", "cin_a/x", mcpid.CodeInvalidConnectionID, "connection_id", "", offset(5)},
		{"NUL in connection_id", "orders:o1", "cin\x00", mcpid.CodeInvalidConnectionID, "connection_id", "", offset(3)},
		{"bad connection_id next to an embedded one", "cin_a/orders:o1", "..", mcpid.CodeInvalidConnectionID, "connection_id", "", offset(0)},
	}
	h := newHarness(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := h.fetchError(t, tt.id, tt.connectionID)
			assert.Equal(t, string(tt.wantCode), env.Code)
			assert.Equal(t, tt.wantField, env.Field)
			assert.Equal(t, tt.wantSegment, env.Segment)
			assert.Equal(t, tt.wantOffset, env.Offset)
			switch tt.wantField {
			case "id":
				require.NotNil(t, env.ID)
				assert.Equal(t, tt.id, *env.ID, "the envelope quotes the id as given")
			case "connection_id":
				require.NotNil(t, env.ConnectionID)
				assert.Equal(t, tt.connectionID, *env.ConnectionID)
			}
			assert.False(t, strings.ContainsAny(env.Message, "\x00\n"), "the message quotes its input: %q", env.Message)
		})
	}
	require.Empty(t, h.fx.requests(), "no malformed argument reached the resource server")

	lookalikes := []struct {
		name string
		id   string
		want fixtureRequest // what the fixture logs: the URI as sent, the segments decoded once
	}{
		{
			name: "percent-encoded traversal in record",
			id:   "cin_4f2a/orders:%2e%2e%2f%2e%2e%2fadmin",
			want: fixtureRequest{
				URI:    "/v1/streams/orders/records/%252e%252e%252f%252e%252e%252fadmin?connection_id=cin_4f2a",
				Record: true, Stream: "orders", RecordID: "%2e%2e%2f%2e%2e%2fadmin", ConnectionID: "cin_4f2a",
			},
		},
		{
			name: "percent-encoded dot-dot as stream",
			id:   "cin_4f2a/%2E%2E:o1",
			want: fixtureRequest{
				URI:    "/v1/streams/%252E%252E/records/o1?connection_id=cin_4f2a",
				Record: true, Stream: "%2E%2E", RecordID: "o1", ConnectionID: "cin_4f2a",
			},
		},
		{
			name: "fullwidth dots",
			id:   "orders:．．",
			want: fixtureRequest{
				URI:    "/v1/streams/orders/records/%EF%BC%8E%EF%BC%8E",
				Record: true, Stream: "orders", RecordID: "．．",
			},
		},
	}
	for _, tt := range lookalikes {
		t.Run(tt.name, func(t *testing.T) {
			seen := len(h.fx.requests())
			// Valid, so resolved and sent; the fixture holds no such record.
			env := h.fetchError(t, tt.id, "")
			assert.Equal(t, codeNotFound, env.Code)
			assert.Equal(t, 404, env.Status)
			reqs := h.fx.requests()[seen:]
			require.Len(t, reqs, 1, "the id reached the resource server exactly once")
			assert.Equal(t, tt.want, reqs[0])
			assert.NotContains(t, reqs[0].Stream+"/"+reqs[0].RecordID, "..", "decoded once, the path holds no traversal")
		})
	}
}

// TestFetchEscapesPathSegments: record keys with URL syntax in them reach
// the resource server as one escaped path segment each, and the fixture
// finds them by their exact bytes.
func TestFetchEscapesPathSegments(t *testing.T) {
	tests := []struct {
		id      string
		wantURI string
		wantRec string
	}{
		{
			id:      "cin_4f2a/orders:o#1042?gift=yes",
			wantURI: "/v1/streams/orders/records/o%231042%3Fgift=yes?connection_id=cin_4f2a",
			wantRec: "o#1042?gift=yes",
		},
		{
			id:      "cin_77c1/tickets:urn:zd:4711",
			wantURI: "/v1/streams/tickets/records/urn:zd:4711?connection_id=cin_77c1",
			wantRec: "urn:zd:4711",
		},
		{
			id:      "cin_77c1/tickets:café-crème",
			wantURI: "/v1/streams/tickets/records/caf%C3%A9-cr%C3%A8me?connection_id=cin_77c1",
			wantRec: "café-crème",
		},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			h := newHarness(t)
			doc := h.fetch(t, tt.id, "")
			assert.Equal(t, tt.id, doc.ID)
			assert.Equal(t, tt.wantRec, doc.Metadata["record_id"])
			reads := h.fx.reads()
			require.Len(t, reads, 1)
			assert.Equal(t, tt.wantURI, reads[0].URI)
			assert.Equal(t, tt.wantRec, reads[0].RecordID)
		})
	}
}

// TestFetchNotFound: a well-formed id that the resource server does not
// hold is not_found, after exactly one read.
func TestFetchNotFound(t *testing.T) {
	h := newHarness(t)
	tests := []struct{ id, connectionID string }{
		{"cin_4f2a/orders:o2", ""}, // o2 is in cin_9b7e only
		{"orders:nope", ""},
		{"orders:o1", "cin_77c1"},
		{"orders:O1", ""}, // ids are compared byte for byte
	}
	for _, tt := range tests {
		env := h.fetchError(t, tt.id, tt.connectionID)
		assert.Equal(t, codeNotFound, env.Code, tt.id)
		assert.Equal(t, 404, env.Status, tt.id)
		require.NotNil(t, env.Retryable)
		assert.False(t, *env.Retryable)
	}
	assert.Len(t, h.fx.reads(), len(tests))
}

// TestToolsList: the tools, their arguments and their hints.
func TestToolsList(t *testing.T) {
	h := newHarness(t)
	res, err := h.cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.Len(t, res.Tools, 2)
	byName := map[string]map[string]any{}
	for _, tool := range res.Tools {
		schema, ok := tool.InputSchema.(map[string]any)
		require.True(t, ok)
		byName[tool.Name] = schema
		assert.Nil(t, tool.OutputSchema, "errors carry an envelope in structuredContent")
		require.NotNil(t, tool.Annotations)
		assert.True(t, tool.Annotations.ReadOnlyHint)
	}
	require.Contains(t, byName, "search")
	require.Contains(t, byName, "fetch")
	assert.Equal(t, []any{"id"}, byName["fetch"]["required"])
	assert.Contains(t, byName["fetch"]["properties"], "connection_id")
	assert.NotContains(t, byName["search"], "required", "query is optional: search {} lists everything")
	assert.Contains(t, byName["search"]["properties"], "query")
}

// TestSearchWithoutQuery: search with no query, as the schema allows,
// lists every record, and asks the resource server with an empty q.
func TestSearchWithoutQuery(t *testing.T) {
	for _, args := range []any{map[string]any{}, nil} {
		h := newHarness(t)
		res := h.call(t, "search", args)
		require.False(t, res.IsError, "search %v failed: %s", args, textOf(res))
		var out searchOutput
		require.NoError(t, decodeStructured(res, &out))
		ids := make([]string, len(out.Results))
		for i, r := range out.Results {
			ids[i] = r.ID
		}
		assert.Equal(t, allFixtureIDs, ids, "search %v", args)
		assert.Equal(t, 6, out.Total)
		assert.Equal(t, []fixtureRequest{{URI: "/v1/search?q="}}, h.fx.requests(), "search %v", args)
	}
}
