package searchfetch_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// recorder is a Backend that answers with fixed values and records every
// call, for tests that check what reaches the backend.
type recorder struct {
	mu       sync.Mutex
	queries  []string
	full     []searchfetch.Query // the queries whole
	requests []mcpid.FetchRequest
	fetches  []searchfetch.FetchRequest // the requests whole
	ctxs     []context.Context

	result searchfetch.SearchResult
	doc    searchfetch.Document
	err    error
}

func (r *recorder) Search(ctx context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries = append(r.queries, q.Text)
	r.full = append(r.full, q)
	r.ctxs = append(r.ctxs, ctx)
	return r.result, r.err
}

func (r *recorder) Fetch(ctx context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req.FetchRequest)
	r.fetches = append(r.fetches, req)
	r.ctxs = append(r.ctxs, ctx)
	return r.doc, r.err
}

// calls returns how many calls reached the backend.
func (r *recorder) calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.queries) + len(r.requests)
}

// requireError checks that res is a tool error with code whose text and
// structuredContent are the same envelope, and returns the decoded error.
func requireError(t *testing.T, res searchfetch.Result, code mcpid.Code) *mcpid.Error {
	t.Helper()
	require.True(t, res.IsError, "want a tool error %s, got %s", code, res.Text)
	require.NotNil(t, res.Err, "Result.Err")
	require.JSONEq(t, res.Text, string(res.StructuredContent))
	var e mcpid.Error
	require.NoError(t, json.Unmarshal([]byte(res.Text), &e))
	require.Equal(t, code, e.Code, "envelope: %s", res.Text)
	return &e
}

// raw returns s as raw JSON arguments.
func raw(s string) json.RawMessage { return json.RawMessage(s) }

// TestQueryReachesBackend: a first page asks the backend with no cursor,
// the most hits a page shows as Limit (MaxHits, or what the budget
// leaves room for), and no extra arguments; a fetch gets the resolved
// request with none either.
func TestQueryReachesBackend(t *testing.T) {
	for _, tt := range []struct {
		name  string
		opts  *searchfetch.Options
		limit int
	}{
		{"default", nil, mcpid.DefaultMaxHits},
		{"MaxHits", &searchfetch.Options{Preview: mcpid.PreviewOptions{MaxHits: 3}}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "s:r1", ConnectionID: "c1"}}}}
			tools := searchfetch.New(b, tt.opts)
			res := tools.Search(context.Background(), raw(`{"query":"q1"}`))
			require.False(t, res.IsError, res.Text)
			require.Len(t, b.full, 1)
			assert.Equal(t, searchfetch.Query{Text: "q1", Limit: tt.limit}, b.full[0])
			assert.Equal(t, "{}", b.full[0].Args.String())
			var v map[string]any
			require.NoError(t, b.full[0].Args.Decode(&v))
			assert.Empty(t, v)

			res = tools.Fetch(context.Background(), raw(`{"id":"c1/s:r1"}`))
			require.False(t, res.IsError, res.Text)
			require.Len(t, b.requests, 1)
			assert.Equal(t, "c1", b.requests[0].ConnectionID)
			assert.Equal(t, "s:r1", b.requests[0].Handle.BaseID())
		})
	}
}
