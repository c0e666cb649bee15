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

// TestFetchResolves sends every row of the ResolveFetch table through the
// fetch tool: the backend sees the resolved request, or nothing at all.
func TestFetchResolves(t *testing.T) {
	tests := []struct {
		name, args string
		code       mcpid.Code // "" for success
		conn       string
		scope      mcpid.Scope
		base       string
	}{
		{"embedded", `{"id":"c1/orders:o1"}`, "", "c1", mcpid.ScopeEmbedded, "orders:o1"},
		{"embedded and equal", `{"id":"c1/orders:o1","connection_id":"c1"}`, "", "c1", mcpid.ScopeEmbedded, "orders:o1"},
		{"embedded and other", `{"id":"c1/orders:o1","connection_id":"c2"}`, mcpid.CodeConflictingConnectionID, "", 0, ""},
		{"legacy unscoped", `{"id":"orders:o1"}`, "", "", mcpid.ScopeUnscoped, "orders:o1"},
		{"legacy explicit", `{"id":"orders:o1","connection_id":"eu:c"}`, "", "eu:c", mcpid.ScopeExplicit, "orders:o1"},
		{"empty connection_id", `{"id":"orders:o1","connection_id":""}`, "", "", mcpid.ScopeUnscoped, "orders:o1"},
		{"malformed id", `{"id":"orders"}`, mcpid.CodeInvalidID, "", 0, ""},
		{"empty id", `{"id":""}`, mcpid.CodeInvalidID, "", 0, ""},
		{"traversal", `{"id":"c1/orders:../../etc/passwd"}`, mcpid.CodeInvalidID, "", 0, ""},
		{"malformed id and connection_id", `{"id":"a/b/c:d","connection_id":"../x"}`, mcpid.CodeInvalidID, "", 0, ""},
		{"malformed connection_id", `{"id":"orders:o1","connection_id":"a\\b"}`, mcpid.CodeInvalidConnectionID, "", 0, ""},
		{"GCP connection_id", `{"id":"orders:o1","connection_id":"projects/p1/connections/c2"}`, "", "projects/p1/connections/c2", mcpid.ScopeExplicit, "orders:o1"},
		{"escaped connection", `{"id":"projects%2Fp1%2Fconnections%2Fc2/:octo/repo#42"}`, "", "projects/p1/connections/c2", mcpid.ScopeEmbedded, "octo/repo#42"},
		{"malformed connection_id beside an embedded one", `{"id":"c1/orders:o1","connection_id":".."}`, mcpid.CodeInvalidConnectionID, "", 0, ""},
		{"opaque", `{"id":"wiki/:https://wiki.example.com/p/7"}`, "", "wiki", mcpid.ScopeEmbedded, "https://wiki.example.com/p/7"},
		{"opaque and other", `{"id":"wiki/:https://wiki.example.com/p/7","connection_id":"c2"}`, mcpid.CodeConflictingConnectionID, "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{doc: searchfetch.Document{ID: "the backend's own id", Title: "T", Text: "body"}}
			res := searchfetch.New(b, nil).Fetch(context.Background(), raw(tt.args))
			if tt.code != "" {
				requireError(t, res, tt.code)
				assert.Equal(t, 0, b.calls(), "backend calls")
				return
			}
			require.False(t, res.IsError, res.Text)
			require.Len(t, b.requests, 1)
			req := b.requests[0]
			assert.Equal(t, tt.conn, req.ConnectionID)
			assert.Equal(t, tt.scope, req.Scope)
			assert.Equal(t, tt.base, req.Handle.BaseID())
		})
	}
}

// TestFetchDocument: the document echoes the id as given, and its JSON is
// both the text and structuredContent.
func TestFetchDocument(t *testing.T) {
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		t.Run(mode.String(), func(t *testing.T) {
			b := &recorder{doc: searchfetch.Document{
				ID: "orders:o1", Title: "Order o1", Text: "3 items", URL: "https://shop.example.com/o/1",
				Metadata: map[string]string{"stream": "orders"},
			}}
			res := searchfetch.New(b, &searchfetch.Options{Mode: mode}).Fetch(context.Background(), raw(`{"id":"c1/orders:o1"}`))
			require.False(t, res.IsError, res.Text)
			want := `{"id":"c1/orders:o1","title":"Order o1","text":"3 items","url":"https://shop.example.com/o/1","metadata":{"stream":"orders"}}`
			if diff := cmp.Diff(want, res.Text); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			assert.Equal(t, want, string(res.StructuredContent))
			assert.Nil(t, res.Err)
		})
	}
	t.Run("garbage", func(t *testing.T) {
		b := &recorder{doc: searchfetch.Document{Title: "a\xffb", Text: "\x00\u2028</script>", URL: "javascript:alert(1)"}}
		res := searchfetch.New(b, nil).Fetch(context.Background(), raw(`{"id":"orders:o1"}`))
		require.False(t, res.IsError, res.Text)
		var doc searchfetch.Document
		require.NoError(t, json.Unmarshal([]byte(res.Text), &doc))
		assert.Equal(t, searchfetch.Document{ID: "orders:o1", Title: "a\uFFFDb", Text: "\x00\u2028</script>", URL: "javascript:alert(1)"}, doc)
	})
	t.Run("no metadata", func(t *testing.T) {
		b := &recorder{}
		res := searchfetch.New(b, nil).Fetch(context.Background(), raw(`{"id":"orders:o1"}`))
		require.False(t, res.IsError, res.Text)
		assert.Equal(t, `{"id":"orders:o1","title":"","text":"","url":""}`, res.Text)
	})
}
