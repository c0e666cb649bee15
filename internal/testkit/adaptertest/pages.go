package adaptertest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// pages: the default mode's search takes a cursor and its output schema
// admits next_cursor; through the SDK's client, a model that follows
// next_cursor from page to page, on two servers with the same key (as
// replicas behind a load balancer), reaches every record once, in order;
// a cursor for another query is refused about the cursor; ChatGPT mode
// takes no cursor.
func pages(t *testing.T, connect Connect) {
	s, err := mcpid.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	opts := &searchfetch.Options{Sealer: s, Preview: mcpid.PreviewOptions{MaxHits: 2}}
	replicas := []Client{connect(t, &Backend{}, opts), connect(t, &Backend{}, opts)}

	for _, tool := range replicas[0].ListTools(t) {
		if tool.Name != searchfetch.SearchName {
			continue
		}
		props := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		assert.Contains(t, props, "cursor", "the input schema")
		if tool.OutputSchema != nil {
			result := tool.OutputSchema.(map[string]any)["anyOf"].([]any)[0].(map[string]any)
			assert.Contains(t, result["properties"], "next_cursor", "the output schema")
		}
	}

	var ids []string
	args := map[string]any{"query": "refund"}
	for n := 0; ; n++ {
		require.Less(t, n, len(Records), "no progress")
		a := replicas[n%2].Call(t, searchfetch.SearchName, args)
		require.False(t, a.IsError, "page %d: %v", n, a.Texts)
		require.Len(t, a.Texts, 1)
		for _, id := range mcpid.ExtractIDs(a.Texts[0]) {
			opened, err := s.Open(id)
			require.NoError(t, err)
			ids = append(ids, opened)
		}
		next, ok := a.Structured.(map[string]any)["next_cursor"].(string)
		if !ok {
			assert.NotContains(t, a.Texts[0], "cursor=", "the last page")
			break
		}
		assert.Contains(t, a.Texts[0], `call search with the same query and cursor="`+next+`".`)
		args = map[string]any{"query": "refund", "cursor": next}
	}
	assert.Equal(t, WantIDs, ids)

	first := replicas[0].Call(t, searchfetch.SearchName, map[string]any{"query": "refund"})
	cursor := first.Structured.(map[string]any)["next_cursor"].(string)
	e := RequireToolError(t, replicas[1].Call(t, searchfetch.SearchName, map[string]any{"query": "refunds", "cursor": cursor}), searchfetch.CodeInvalidArguments)
	assert.Equal(t, searchfetch.FieldCursor, e.Field)

	chatGPT := connect(t, &Backend{}, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, Sealer: s})
	RequireToolError(t, chatGPT.Call(t, searchfetch.SearchName, map[string]any{"query": "refund", "cursor": cursor}), searchfetch.CodeInvalidArguments)
}
