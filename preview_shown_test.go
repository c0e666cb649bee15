package mcpid

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRenderShownIsWhatTheTextShows: the renderer's account of a preview
// is the text RenderPreview returns, the hits ExtractHits reads from it
// (fields as cut), and where each came from, in both formats, at budgets
// from roomy to tight, terse or not.
func TestRenderShownIsWhatTheTextShows(t *testing.T) {
	for _, format := range []Format{FormatText, FormatJSON} {
		for name, hits := range previewHits {
			for _, budget := range []int{1 << 16, 0, 600, 300, 160, 90, 40, -1} {
				for _, terse := range []bool{false, true} {
					opts := PreviewOptions{Budget: budget, MaxHits: 100, Format: format, Terse: terse, Total: len(hits) + 2}
					t.Run(fmt.Sprintf("%d/%s/%d/%t", format, name, budget, terse), func(t *testing.T) {
						text, shown, at := renderShown(hits, opts)
						assert.Equal(t, RenderPreview(hits, opts), text)
						if diff := cmp.Diff(ExtractHits(text), shown); diff != "" {
							t.Errorf("hits shown (-read back +reported):\n%s", diff)
						}
						require.Len(t, at, len(shown))
						for k, i := range at {
							require.Less(t, i, len(hits))
							assert.Equal(t, hits[i].ID, shown[k].ID, "hit %d", k)
							if k > 0 {
								assert.Less(t, at[k-1], i, "in order")
							}
						}
					})
				}
			}
		}
	}
}

// BenchmarkRenderShown measures the renderer's account of a preview of
// ten hits, with RenderPreview alone as its baseline.
func BenchmarkRenderShown(b *testing.B) {
	hits := make([]Hit, 10)
	for i := range hits {
		hits[i] = Hit{ID: fmt.Sprintf("c1/orders:o%d", i), Title: fmt.Sprintf("Order %d \"rush\"", i), Snippet: "Two pallets of \"blue\" widgets, shipped to the north dock on Monday."}
	}
	b.Run("RenderPreview", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			RenderPreview(hits, PreviewOptions{})
		}
	})
	b.Run("renderShown", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			renderShown(hits, PreviewOptions{})
		}
	})
}
