package searchfetch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/economy"
	"github.com/mcpid/mcpid/searchfetch"
)

// TestSearchTokensPerID reports, and bounds, what a default search costs
// a model per id it shows (at most 75 tokens: every one is context the
// model pays for), in each channel separately: the
// text, header and footer included, and the serialized
// structuredContent, each divided by the ids it shows, unsealed, at the
// default budget; on the token-budget fixture and on the multi-connection
// fixture with aliases. Every hit shown keeps a title and at least half
// a snippet, in each channel. With URLs, which the bound leaves out, it
// reports the tokens per shown hit and checks that each channel shows
// every shown hit's URL whole, within the budget.
func TestSearchTokensPerID(t *testing.T) {
	reference := economy.Reference(100)
	tests := []struct {
		name    string
		hits    []economy.Hit
		total   int
		aliases *mcpid.Aliases
		urls    bool
	}{
		{"token-budget fixture", reference, 200, nil, false},
		{"multi-connection, aliases", economy.MultiConnection(60), 240, aliases(t), false},
		{"token-budget fixture, urls", economy.WithURLs(reference), 200, nil, true},
		{"multi-connection, aliases, urls", economy.WithURLs(economy.MultiConnection(60)), 240, aliases(t), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := make([]mcpid.Hit, len(tt.hits))
			for i, h := range tt.hits {
				hits[i] = mcpid.Hit(h)
			}
			b := &recorder{result: searchfetch.SearchResult{Hits: hits, Total: tt.total}}
			res := searchfetch.New(b, &searchfetch.Options{Aliases: tt.aliases}).Search(context.Background(), raw(`{"query":"q"}`))
			require.False(t, res.IsError, res.Text)
			titles := shownTitles(hits, tt.aliases)

			text := mcpid.ExtractHits(res.Text)
			require.NotEmpty(t, text)
			perID := economy.TokensPerID(t, res.Text, len(text))
			t.Logf("text: %.1f o200k tokens per shown id, %d ids in %d bytes", perID, len(text), len(res.Text))
			assert.LessOrEqual(t, len(res.Text), mcpid.DefaultBudget)
			if tt.urls {
				checkURLs(t, kitHits(text), tt.hits, tt.aliases)
			} else {
				economy.CheckShown(t, kitHits(text), titles)
				assert.LessOrEqual(t, perID, float64(economy.MaxTokensPerID), "text:\n%s", res.Text)
			}

			var out struct {
				Results []economy.Hit `json:"results"`
			}
			require.NoError(t, json.Unmarshal(res.StructuredContent, &out))
			structured := out.Results
			require.NotEmpty(t, structured)
			perID = economy.TokensPerID(t, string(res.StructuredContent), len(structured))
			t.Logf("structuredContent: %.1f o200k tokens per shown id, %d ids in %d bytes", perID, len(structured), len(res.StructuredContent))
			assert.LessOrEqual(t, len(res.StructuredContent), mcpid.DefaultBudget)
			if tt.urls {
				checkURLs(t, structured, tt.hits, tt.aliases)
			} else {
				economy.CheckShown(t, structured, titles)
				assert.LessOrEqual(t, perID, float64(economy.MaxTokensPerID), "structuredContent:\n%s", res.StructuredContent)
			}
		})
	}
}

// shownTitles maps the id search shows each hit under, unsealed, to the
// hit's title.
func shownTitles(hits []mcpid.Hit, a *mcpid.Aliases) map[string]string {
	titles := make(map[string]string, len(hits))
	for _, h := range hits {
		titles[shownID(h.ID, h.ConnectionID, a)] = h.Title
	}
	return titles
}

// shownID returns the id search shows a hit of id on connection conn
// under, unsealed: its self-contained id, with conn's alias in a where it
// has one.
func shownID(id, conn string, a *mcpid.Aliases) string {
	if alias, ok := a.Alias(conn); ok {
		conn = alias
	}
	shown, _ := mcpid.SelfContainedID(id, conn)
	return shown
}

// kitHits converts hits to the economy kit's.
func kitHits(hits []mcpid.Hit) []economy.Hit {
	out := make([]economy.Hit, len(hits))
	for i, h := range hits {
		out[i] = economy.Hit(h)
	}
	return out
}

// checkURLs checks that every shown hit shows its hit's URL whole.
func checkURLs(t *testing.T, shown, hits []economy.Hit, a *mcpid.Aliases) {
	t.Helper()
	urls := make(map[string]string, len(hits))
	for _, h := range hits {
		urls[shownID(h.ID, h.ConnectionID, a)] = h.URL
	}
	for _, s := range shown {
		assert.Equal(t, urls[s.ID], s.URL, "the url of %q", s.ID)
	}
}
