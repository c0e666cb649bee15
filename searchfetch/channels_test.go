package searchfetch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
)

// hugeBackend returns n hits whose every field is 1 MiB (one shared
// string), with real-world ids and connections, a third of them
// duplicates of an earlier hit; it fetches by (connection, base id).
func hugeBackend(n int) *byPair {
	field := strings.Repeat("é\"<x>\u2028", 1<<20/10)
	url := "https://example.com/" + strings.Repeat("a", 1<<20)
	b := &byPair{}
	for i := range n {
		j := i
		if i%3 == 2 {
			j = i / 2 // a duplicate of an earlier hit
		}
		base := realBaseIDs[j%len(realBaseIDs)] + fmt.Sprint(j)
		conn := realConnections[j%len(realConnections)]
		b.hits = append(b.hits, mcpid.Hit{
			ID: base, ConnectionID: conn, ConnectorKey: field, Stream: field, DisplayName: field,
			Title: field, Snippet: field, URL: url,
		})
	}
	return b
}

// TestEveryChannelIsBudgeted: whatever the backend returns (5 to 10,000
// hits of 1 MiB fields, duplicates), in both modes and at several budgets,
// a host that shows the model structuredContent and one that shows the
// text each see at most the budget; both show the same complete ids, in
// the same order, each of which fetches its own hit alone; and every
// result validates against the tool's output schema.
func TestEveryChannelIsBudgeted(t *testing.T) {
	for _, n := range []int{5, 50, 1000, 10000} {
		b := hugeBackend(n)
		for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
			for _, budget := range []int{searchfetch.MinBudget, 1800, 20000} {
				t.Run(fmt.Sprintf("%d/%s/%d", n, mode, budget), func(t *testing.T) {
					opts := &searchfetch.Options{Mode: mode, Preview: mcpid.PreviewOptions{Budget: budget, MaxHits: 1000}}
					tools := searchfetch.New(b, opts)
					search := adaptertest.Resolve(t, tools.SearchTool().OutputSchema)
					res := tools.Search(context.Background(), raw(`{"query":"q"}`))
					require.False(t, res.IsError, res.Text)

					// A host that shows the text, and one that shows
					// structuredContent instead.
					assert.LessOrEqual(t, len(res.Text), budget, "text")
					assert.LessOrEqual(t, len(res.StructuredContent), budget, "structuredContent")
					structured := adaptertest.DecodeText(t, string(res.StructuredContent))
					require.NoError(t, search.Validate(structured))

					ids := mcpid.ExtractIDs(res.Text)
					var shown []string
					for _, r := range structured.(map[string]any)["results"].([]any) {
						shown = append(shown, r.(map[string]any)["id"].(string))
					}
					assert.Equal(t, ids, shown, "text and structuredContent show the same ids")
					if mode == searchfetch.ModeDefault {
						assert.Equal(t, hitsJSON(t, mcpid.ExtractHits(res.Text)), structured.(map[string]any)["results"], "the same fields, cut alike")
					}
					if budget > searchfetch.MinBudget {
						assert.NotEmpty(t, ids, "a budget of %d shows some hit", budget)
					}

					fetch := adaptertest.Resolve(t, tools.FetchTool().OutputSchema)
					for _, id := range ids {
						args, err := json.Marshal(map[string]string{"id": id})
						require.NoError(t, err)
						doc := tools.Fetch(context.Background(), args)
						require.False(t, doc.IsError, doc.Text)
						require.NoError(t, fetch.Validate(adaptertest.DecodeText(t, string(doc.StructuredContent))))
						got := b.last()
						want, _ := mcpid.SelfContainedID(got[1], got[0])
						assert.Equal(t, id, want, "fetch %q reached another hit", id)
					}
				})
			}
		}
	}
}

// hitsJSON returns hits in the form of StructuredShown's results.
func hitsJSON(t *testing.T, hits []mcpid.Hit) any {
	out := make([]any, len(hits))
	for i, h := range hits {
		m := map[string]any{"id": h.ID}
		for k, v := range map[string]string{"connection_id": h.ConnectionID, "connector_key": h.ConnectorKey, "stream": h.Stream,
			"display_name": h.DisplayName, "title": h.Title, "snippet": h.Snippet} {
			if v != "" {
				m[k] = v
			}
		}
		out[i] = m
	}
	if len(out) == 0 {
		return []any{}
	}
	return adaptertest.Decode(t, out)
}

// TestErrorsValidate: every kind of error result validates against the
// output schema of the tool that answers it.
func TestErrorsValidate(t *testing.T) {
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		for _, backendErr := range []error{
			mcpid.AmbiguousConnection([]string{"c1", "projects/p1/connections/c2"}),
			mcpid.NewError(mcpid.CodeNotFound, "gone", ""),
			fmt.Errorf("internal detail"),
		} {
			b := &recorder{err: backendErr}
			tools := searchfetch.New(b, &searchfetch.Options{Mode: mode})
			for _, c := range []struct {
				tool searchfetch.Tool
				res  searchfetch.Result
			}{
				{tools.SearchTool(), tools.Search(context.Background(), raw(`{"query":1}`))},
				{tools.SearchTool(), tools.Search(context.Background(), raw(`{"query":"q"}`))},
				{tools.FetchTool(), tools.Fetch(context.Background(), raw(`{"id":"s:.."}`))},
				{tools.FetchTool(), tools.Fetch(context.Background(), raw(`{"id":"s:r"}`))},
			} {
				require.True(t, c.res.IsError, c.res.Text)
				rs := adaptertest.Resolve(t, c.tool.OutputSchema)
				assert.NoError(t, rs.Validate(adaptertest.DecodeText(t, string(c.res.StructuredContent))), "%s: %s", c.tool.Name, c.res.Text)
			}
		}
	}
}
