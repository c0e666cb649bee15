package searchfetch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
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
			{"id":"c1/orders:o1","stream":"orders","title":"Order o1","snippet":"3 items","url":"https://shop.example.com/o/1"},
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
			var out struct {
				NextCursor string `json:"next_cursor"`
			}
			require.NoError(t, json.Unmarshal(res.StructuredContent, &out))
			require.NotEmpty(t, out.NextCursor, "the hits not shown are on the next page")
			want := mcpid.RenderPreview(tt.preview, mcpid.PreviewOptions{Budget: 1000, MaxHits: 2, Total: 9, HasMore: true}) +
				"\nFor more hits, call search with the same query and cursor=\"" + out.NextCursor + "\"."
			if diff := cmp.Diff(want, res.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			assert.JSONEq(t, tt.want, strings.Replace(string(res.StructuredContent), `,"next_cursor":"`+out.NextCursor+`"`, "", 1))
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

// dropReport is one call of Options.OnDropped.
type dropReport struct {
	Index   int
	ID      string
	Message string
}

// reportsTo returns an OnDropped func that appends to reports.
func reportsTo(t *testing.T, reports *[]dropReport) func(int, mcpid.Hit, error) {
	return func(i int, h mcpid.Hit, err error) {
		var e *mcpid.Error
		require.ErrorAs(t, err, &e)
		require.Equal(t, mcpid.CodeInvalidResourceResponse, e.Code)
		*reports = append(*reports, dropReport{i, h.ID, e.Message()})
	}
}

// TestSearchDropsUnfetchable: a hit that no id can fetch is left out,
// counted among the hits not shown, and reported with its index and why;
// the search fails with invalid_resource_response only when hits were
// returned and none can be shown. An empty result is not an error.
func TestSearchDropsUnfetchable(t *testing.T) {
	const (
		empty   = "the hit has an empty id"
		badUTF8 = "the hit has an id that is not valid UTF-8 or holds a control character"
	)
	tests := []struct {
		name    string
		hits    []mcpid.Hit
		shown   []string
		reports []dropReport
		failure string // the message of the invalid_resource_response error; "" for none
	}{
		{"empty id", []mcpid.Hit{{ID: "orders:o1"}, {ID: "", ConnectionID: "c1"}},
			[]string{"orders:o1"}, []dropReport{{1, "", empty}}, ""},
		{"URL without a connection", []mcpid.Hit{{ID: "https://wiki.example.com/p/7"}, {ID: "T-17", ConnectionID: "c2"}},
			[]string{"c2/:T-17"}, []dropReport{{0, "https://wiki.example.com/p/7", `the hit has no connection and the id "https://wiki.example.com/p/7", which is not a stream:record handle`}}, ""},
		{"connection with a backslash", []mcpid.Hit{{ID: "a:1", ConnectionID: "c1"}, {ID: "files:f1", ConnectionID: `CORP\drive`}, {ID: "b:2", ConnectionID: "c1"}},
			[]string{"c1/a:1", "c1/b:2"}, []dropReport{{1, "files:f1", `the hit has the connection id "CORP\\drive", which is not a valid connection id`}}, ""},
		{"look-alike handle without a connection", []mcpid.Hit{{ID: "c1/orders:o1"}, {ID: "notes:n1"}},
			[]string{"notes:n1"}, []dropReport{{0, "c1/orders:o1", `the hit has no connection and the id "c1/orders:o1", which is not a stream:record handle`}}, ""},
		{"invalid UTF-8", []mcpid.Hit{{ID: "orders:\xff", ConnectionID: "c1"}},
			nil, []dropReport{{0, "orders:\xff", badUTF8}}, "no hit can be fetched by an id: hit 1 has an id that is not valid UTF-8 or holds a control character"},
		{"control characters, twice", []mcpid.Hit{{ID: "T-17\n2. id=x", ConnectionID: "c1"}, {ID: ""}},
			nil, []dropReport{{0, "T-17\n2. id=x", badUTF8}, {1, "", empty}}, "no hit can be fetched by an id: hit 1 has an id that is not valid UTF-8 or holds a control character"},
		{"connection that is no name", []mcpid.Hit{{ID: "T-17", ConnectionID: "a/../b"}},
			nil, []dropReport{{0, "T-17", `the hit has the connection id "a/../b", which is not a valid connection id`}}, `no hit can be fetched by an id: hit 1 has the connection id "a/../b", which is not a valid connection id`},
		{"no hits", nil, nil, nil, ""},
	}
	for _, tt := range tests {
		for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
			t.Run(tt.name+"/"+mode.String(), func(t *testing.T) {
				var reports []dropReport
				b := &recorder{result: searchfetch.SearchResult{Hits: tt.hits, Total: -5}}
				res := searchfetch.New(b, &searchfetch.Options{Mode: mode, OnDropped: reportsTo(t, &reports)}).Search(context.Background(), raw(`{"query":"q"}`))
				if diff := cmp.Diff(tt.reports, reports); diff != "" {
					t.Errorf("reports (-want +got):\n%s", diff)
				}
				if tt.failure != "" {
					e := requireError(t, res, mcpid.CodeInvalidResourceResponse)
					assert.Equal(t, tt.failure, e.Message())
					return
				}
				require.False(t, res.IsError, res.Text)
				assert.Equal(t, tt.shown, ids(mcpid.ExtractHits(res.Text)))
				if mode == searchfetch.ModeDefault {
					var out struct{ Total int }
					require.NoError(t, json.Unmarshal(res.StructuredContent, &out))
					assert.Equal(t, len(tt.hits), out.Total, "dropped hits count among those not shown")
					if len(tt.reports) > 0 {
						assert.Contains(t, res.Text, fmt.Sprintf("%d hit not shown", len(tt.reports)))
					}
				}
			})
		}
	}
}

// TestSearchDroppedLogged: without OnDropped, a dropped hit is logged, at
// level Warn, with its index and why.
func TestSearchDroppedLogged(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "a:1", ConnectionID: "c1"}, {ID: "files:f1", ConnectionID: `CORP\drive`}}}}
	res := searchfetch.New(b, &searchfetch.Options{Logger: logger}).Search(context.Background(), raw(`{"query":"q"}`))
	require.False(t, res.IsError, res.Text)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &rec), buf.String())
	assert.Equal(t, "WARN", rec["level"])
	assert.Equal(t, "searchfetch: search hit dropped", rec["msg"])
	assert.Equal(t, 1.0, rec["index"])
	logged, ok := rec["error"].(map[string]any)
	require.True(t, ok, "the error is logged as its envelope: %s", buf.String())
	assert.Equal(t, string(mcpid.CodeInvalidResourceResponse), logged["code"])
	assert.Equal(t, `the hit has the connection id "CORP\\drive", which is not a valid connection id`, logged["message"])
}

// ids returns the ids of hits.
func ids(hits []mcpid.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
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
