package searchfetch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// searchHits are hits as a backend returns them: base ids with their
// connections.
var searchHits = []mcpid.Hit{
	{ID: "orders:o1", ConnectionID: "c1", Stream: "orders", Title: "Order o1", Snippet: "3 items", URL: "https://shop.example.com/o/1"},
	{ID: "T-17", ConnectionID: "c2", Title: "Refund", URL: "ftp://files.example.com/t17"},
	{ID: "pages:p1", ConnectionID: "eu:wiki", Title: "Returns"},
	{ID: "notes:n1"},
}

// TestSearchDefault: the prose preview of the self-contained hits and, as
// structuredContent, the hits it shows as it shows them; or, with
// StructuredAll, every hit with every field and its own connection_id.
func TestSearchDefault(t *testing.T) {
	hits := []mcpid.Hit{searchHits[0], searchHits[1], searchHits[2], searchHits[3]}
	hits[0].ID = "c1/orders:o1"
	hits[1].ID = "c2/:T-17"
	hits[2].ID = "eu%3Awiki/pages:p1"
	tests := []struct {
		structured searchfetch.Structured
		preview    []mcpid.Hit // the hits RenderPreview is given
		want       string      // structuredContent
	}{
		{searchfetch.StructuredShown, hits[:2], `{"results":[
			{"id":"c1/orders:o1","stream":"orders","title":"Order o1","snippet":"3 items"},
			{"id":"c2/:T-17","title":"Refund"}],
			"total":9,"has_more":true}`},
		{searchfetch.StructuredAll, hits, `{"results":[
			{"id":"c1/orders:o1","connection_id":"c1","stream":"orders","title":"Order o1","snippet":"3 items","url":"https://shop.example.com/o/1"},
			{"id":"c2/:T-17","connection_id":"c2","title":"Refund","url":"ftp://files.example.com/t17"},
			{"id":"eu%3Awiki/pages:p1","connection_id":"eu:wiki","title":"Returns"},
			{"id":"notes:n1"}],
			"total":9,"has_more":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.structured.String(), func(t *testing.T) {
			b := &recorder{result: searchfetch.SearchResult{Hits: searchHits, Total: 9, HasMore: true}}
			opts := mcpid.PreviewOptions{Budget: 1000, MaxHits: 2, Format: mcpid.FormatJSON, Total: 1}
			res := searchfetch.New(b, &searchfetch.Options{Preview: opts, Structured: tt.structured}).Search(context.Background(), raw(`{"query":"q"}`))
			require.False(t, res.IsError, res.Text)
			want := mcpid.RenderPreview(tt.preview, mcpid.PreviewOptions{Budget: 1000, MaxHits: 2, Total: 9, HasMore: true})
			if diff := cmp.Diff(want, res.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			assert.JSONEq(t, tt.want, string(res.StructuredContent))
		})
	}

	t.Run("none", func(t *testing.T) {
		b := &recorder{result: searchfetch.SearchResult{Hits: searchHits}}
		res := searchfetch.New(b, &searchfetch.Options{Structured: searchfetch.StructuredNone}).Search(context.Background(), raw(`{"query":"q"}`))
		require.False(t, res.IsError, res.Text)
		assert.Nil(t, res.StructuredContent)
		assert.Equal(t, []string{"c1/orders:o1", "c2/:T-17", "eu%3Awiki/pages:p1", "notes:n1"}, mcpid.ExtractIDs(res.Text))
	})
}

// TestSearchChatGPT: one text item holding the FormatJSON preview, and the
// same object as structuredContent, whatever the budget cuts.
func TestSearchChatGPT(t *testing.T) {
	tests := []struct {
		name    string
		preview mcpid.PreviewOptions
		ids     []string
	}{
		{"every hit fits", mcpid.PreviewOptions{MaxHits: 10}, []string{"c1/orders:o1", "c2/:T-17", "eu%3Awiki/pages:p1", "notes:n1"}},
		{"budget for three ids, two with titles", mcpid.PreviewOptions{Budget: 150}, []string{"c1/orders:o1", "c2/:T-17"}},
		{"snippet over its cap", mcpid.PreviewOptions{MaxHits: 10, MaxSnippet: 8}, []string{"c1/orders:o1", "c2/:T-17", "eu%3Awiki/pages:p1", "notes:n1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{result: searchfetch.SearchResult{Hits: searchHits}}
			tools := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, Preview: tt.preview, Structured: searchfetch.StructuredAll})
			res := tools.Search(context.Background(), raw(`{"query":"q"}`))
			require.False(t, res.IsError, res.Text)
			require.True(t, json.Valid([]byte(res.Text)), res.Text)
			assert.Equal(t, res.Text, string(res.StructuredContent))
			assert.Equal(t, tt.ids, mcpid.ExtractIDs(res.Text))
			assert.LessOrEqual(t, len(res.Text), max(tt.preview.Budget, 1800))
		})
	}
}

// TestSearchGarbage: a hit that no id can fetch fails the search with an
// invalid_resource_response error naming it; an empty result is not an
// error.
func TestSearchGarbage(t *testing.T) {
	tests := []struct {
		name    string
		hits    []mcpid.Hit
		message string // of the invalid_resource_response error; "" for none
	}{
		{"empty id", []mcpid.Hit{{ID: "orders:o1"}, {ID: "", ConnectionID: "c1"}}, "hit 2 has an empty id"},
		{"invalid UTF-8", []mcpid.Hit{{ID: "orders:\xff", ConnectionID: "c1"}}, "hit 1 has an id that is not valid UTF-8 or holds a control character"},
		{"control character", []mcpid.Hit{{ID: "T-17\n2. id=x", ConnectionID: "c1"}}, "hit 1 has an id that is not valid UTF-8 or holds a control character"},
		{"URL without a connection", []mcpid.Hit{{ID: "https://wiki.example.com/p/7"}}, `hit 1 has no connection and the id "https://wiki.example.com/p/7", which is not a stream:record handle`},
		{"look-alike handle without a connection", []mcpid.Hit{{ID: "c1/orders:o1"}}, `hit 1 has no connection and the id "c1/orders:o1", which is not a stream:record handle`},
		{"connection that is no name", []mcpid.Hit{{ID: "orders:o1", ConnectionID: "c1"}, {ID: "T-17", ConnectionID: "a/../b"}}, `hit 2 has the connection id "a/../b", which is not a valid connection id`},
		{"no hits", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{result: searchfetch.SearchResult{Hits: tt.hits, Total: -5}}
			res := searchfetch.New(b, nil).Search(context.Background(), raw(`{"query":"q"}`))
			if tt.message != "" {
				e := requireError(t, res, mcpid.CodeInvalidResourceResponse)
				assert.Equal(t, tt.message, e.Message())
				return
			}
			require.False(t, res.IsError, res.Text)
			assert.JSONEq(t, `{"results":[],"total":0}`, string(res.StructuredContent))
			assert.Equal(t, mcpid.RenderPreview(nil, mcpid.PreviewOptions{}), res.Text)
		})
	}
}

// TestChatGPTURLs: a hit's url in ChatGPT mode's structuredContent follows
// the rule of mcpid.FormatJSON, so that the two are equal when every hit fits.
func TestChatGPTURLs(t *testing.T) {
	urls := []string{
		"https://wiki.example.com/p/7", "HTTP://example.com", "https://example.com?q=1#top",
		"https://example.com/a%20b", "https://example.com/a%2", "https://example.com/a%zz",
		"https://user@example.com/", "https://example.com/@x", "https:///path", "https://",
		"https://example.com/a b", "https://example.com/ü", `https://example.com/"x"`, "https://example.com/{x}",
		"ftp://example.com", "javascript:alert(1)", "//example.com/p", "example.com", "", "http:/x",
	}
	for _, u := range urls {
		t.Run(u, func(t *testing.T) {
			b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "docs:d1", ConnectionID: "c1", Title: "T", URL: u}}}}
			res := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT}).Search(context.Background(), raw(`{"query":"q"}`))
			require.False(t, res.IsError, res.Text)
			assert.JSONEq(t, string(res.StructuredContent), res.Text)
		})
	}
}
