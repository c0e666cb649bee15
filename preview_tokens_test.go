package mcpid

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/economy"
)

// multiHits returns n hits of the multi-connection fixture with the ids
// search shows: with aliases, each id embeds its connection's alias and
// each hit has the alias as its connection; without, the connection id
// itself.
func multiHits(t testing.TB, n int, aliases bool) []Hit {
	a, err := NewAliases(economy.Aliases())
	require.NoError(t, err)
	base := economy.MultiConnection(n)
	hits := make([]Hit, len(base))
	for i, b := range base {
		h := Hit(b)
		if alias, ok := a.Alias(h.ConnectionID); ok && aliases {
			h.ConnectionID = alias
		}
		var embedded bool
		h.ID, embedded = SelfContainedID(b.ID, h.ConnectionID)
		require.True(t, embedded, b.ID)
		hits[i] = h
	}
	return hits
}

// TestPreviewTokensPerID reports, and bounds, the o200k tokens per shown
// id of the default text preview at the default budget, header and
// footer included: at most 75, since every token is context the model
// pays for. searchfetch's tests measure the same in both channels of a
// search.
func TestPreviewTokensPerID(t *testing.T) {
	tests := []struct {
		name string
		hits []Hit
		opts PreviewOptions
	}{
		{"token-budget fixture", budgetHits()[:100], PreviewOptions{Total: 200}},
		{"multi-connection, aliases", multiHits(t, 60, true), PreviewOptions{Total: 240}},
		{"token-budget fixture, urls", withURLs(budgetHits()[:100]), PreviewOptions{Total: 200}},
		{"multi-connection, aliases, urls", withURLs(multiHits(t, 60, true)), PreviewOptions{Total: 240}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := RenderPreview(tt.hits, tt.opts)
			checkPreview(t, out, tt.hits, tt.opts)
			shown := ExtractHits(out)
			require.NotEmpty(t, shown)
			titles := make(map[string]string, len(tt.hits))
			urls := make(map[string]string, len(tt.hits))
			for _, h := range tt.hits {
				titles[h.ID], urls[h.ID] = h.Title, h.URL
			}
			perID := economy.TokensPerID(t, out, len(shown))
			t.Logf("%.1f o200k tokens per shown id: %d ids in %d bytes", perID, len(shown), len(out))
			if strings.HasSuffix(tt.name, "urls") {
				// Each shown hit shows its URL whole; the bound is for
				// hits without URLs.
				for _, h := range shown {
					assert.Equal(t, urls[h.ID], h.URL, "the url of %q", h.ID)
				}
				return
			}
			economy.CheckShown(t, toKit(shown), titles)
			assert.LessOrEqual(t, perID, float64(economy.MaxTokensPerID), "text:\n%s", out)
		})
	}
	// Without aliases, for comparison: escaped connections cost more.
	out := RenderPreview(multiHits(t, 60, false), PreviewOptions{Total: 240})
	t.Logf("multi-connection without aliases: %.1f tokens per shown id", economy.TokensPerID(t, out, len(ExtractIDs(out))))
}

// toKit converts hits to the economy kit's.
func toKit(hits []Hit) []economy.Hit {
	out := make([]economy.Hit, len(hits))
	for i, h := range hits {
		out[i] = economy.Hit(h)
	}
	return out
}

// withURLs returns hits with the URLs of the economy kit's fixture.
func withURLs(hits []Hit) []Hit {
	kit := economy.WithURLs(toKit(hits))
	out := make([]Hit, len(kit))
	for i, h := range kit {
		out[i] = Hit(h)
	}
	return out
}
