package mcpid

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// titledHits returns n hits with titles of every length, from a word to
// several lines' worth, some non-ASCII, with ids of varied length and
// snippets, as a search over many sources returns them.
func titledHits(n int) []Hit {
	titles := []string{
		"Q3",
		"Design review notes",
		"Quarterly revenue report for the EMEA region, final version",
		"第三四半期の売上報告書（最終版）と来期の見通し",
		"Refund for order o1: the customer writes that the parcel never arrived and asks for a refund",
		"Überprüfung der Verträge",
		"", // no title: nothing to keep
	}
	hits := make([]Hit, n)
	for i := range hits {
		hits[i] = Hit{
			ID:           fmt.Sprintf("c%d/docs:%d%s", i%4, i, strings.Repeat("d", i*7%40)),
			ConnectionID: fmt.Sprintf("c%d", i%4),
			Stream:       "docs", ConnectorKey: "gdrive", DisplayName: "Team Drive",
			Title:   titles[i%len(titles)],
			Snippet: strings.Repeat("Some words of the record. ", 1+i%9),
		}
	}
	return hits
}

// keptTitle is the least a cut title keeps: minTitle bytes less the …
// and a character that a cut at a boundary may give back.
const keptTitle = minTitle - len("…") - utf8.UTFMax

// TestPreviewRoomForTitles: whatever MaxHits and the budget, every shown
// hit keeps its title, whole or cut to no less than its first words,
// whenever more than one hit is shown; fewer hits are shown instead, and
// the first one whenever its id fits.
func TestPreviewRoomForTitles(t *testing.T) {
	fixtures := map[string][]Hit{"titled": titledHits(300), "token-budget": budgetHits()}
	for name, hits := range fixtures {
		byID := make(map[string]Hit, len(hits))
		for _, h := range hits {
			byID[h.ID] = h
		}
		for _, format := range []Format{FormatText, FormatJSON} {
			for _, maxHits := range []int{0, 1, 2, 3, 5, 8, 13, 50, 200, 1000, math.MaxInt} {
				for _, budget := range []int{60, 100, 150, 200, 300, 450, 700, 1000, 1800, 3000, 8000, 32 << 10} {
					opts := PreviewOptions{Budget: budget, MaxHits: maxHits, Format: format}
					t.Run(fmt.Sprintf("%s/%d/%d/%d", name, format, maxHits, budget), func(t *testing.T) {
						out := RenderPreview(hits, opts)
						checkPreview(t, out, hits, opts)
						shown := ExtractHits(out)
						if len(shown) == 0 {
							// Only when the first hit alone does not fit.
							first := opts
							first.MaxHits, first.Total = 1, len(hits)
							assert.Empty(t, ExtractIDs(RenderPreview(hits[:1], first)), "no hit shown:\n%s", out)
							return
						}
						if len(shown) == 1 {
							return // the first hit shown takes the room left
						}
						for _, got := range shown {
							h, ok := byID[got.ID]
							require.True(t, ok, got.ID)
							if h.Title == "" || format == FormatText && h.Title == h.ID {
								continue
							}
							prefix, cut := strings.CutSuffix(got.Title, "…")
							if !cut {
								assert.Equal(t, h.Title, got.Title, "title of %q in:\n%s", h.ID, out)
								continue
							}
							assert.True(t, strings.HasPrefix(h.Title, prefix), "title %q of %q", got.Title, h.Title)
							assert.GreaterOrEqual(t, len(prefix), min(len(h.Title), keptTitle), "title of %q cut to a stub in:\n%s", h.ID, out)
						}
					})
				}
			}
		}
	}
}
