package searchfetch_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// recorder is a Backend that answers with fixed values and records every
// call, for tests that check what reaches the backend.
type recorder struct {
	mu       sync.Mutex
	queries  []string
	requests []mcpid.FetchRequest
	ctxs     []context.Context

	result searchfetch.SearchResult
	doc    searchfetch.Document
	err    error
}

func (r *recorder) Search(ctx context.Context, query string) (searchfetch.SearchResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries = append(r.queries, query)
	r.ctxs = append(r.ctxs, ctx)
	return r.result, r.err
}

func (r *recorder) Fetch(ctx context.Context, req mcpid.FetchRequest) (searchfetch.Document, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, req)
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
