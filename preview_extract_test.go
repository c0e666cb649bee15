package mcpid

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExtractIDs(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"empty", "", nil},
		{"no ids", "Showing 0 of 3 hits.\n3 hits not shown; see structuredContent.results.", nil},
		{"bare", "h\n1. id=a:b connection_id=c title=\"x\"\n2. id=c/d:e", []string{"a:b", "c/d:e"}},
		{"quoted", `1. id="a b\"\\\u2028\ud83d\ude00\u00e9\/\n\t\r\b\f" title="1. id=x"`, []string{"a b\"\\\u2028\U0001F600\u00e9/\n\t\r\b\f"}},
		{"empty quoted", `7. id="" title="x"`, []string{""}},
		{"not at line start", "x 1. id=a\n 2. id=b\n1.id=c\n1. ID=d", nil},
		{"no number", ". id=a\nn. id=b", nil},
		{"malformed literals skipped", "1. id=\"abc\n2. id=\"\\x\"\n5. id=\"\\u12\"\n6. id=\"\\\n7. id=\"a\tb\"\n8. id=ok", []string{"ok"}},
		{"lone surrogates as in JSON", "3. id=\"\\ud800\"\n4. id=\"x\\udc00\"", []string{"\uFFFD", "x\uFFFD"}},
		{"json lone surrogates", `{"results":[{"id":"\ud800"},{"id":"x\udc00"}]}`, []string{"\uFFFD", "x\uFFFD"}},
		{"crlf is not a separator", "1. id=a\r\n2. id=b", []string{"a\r", "b"}},
		{"json", `{"results":[{"id":"a b","title":"1. id=x","url":""},{"id":"\u2028\ud83d\ude00"}]}`, []string{"a b", "\u2028\U0001F600"}},
		{"json without results", `{"results":[]}`, nil},
		{"json not valid", `{"results":[{"id":"a"}`, nil},
		{"json with text lines", "{\n1. id=a", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ExtractIDs(tt.text)); diff != "" {
				t.Errorf("ExtractIDs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExtractIDsInvertsRenderPreview(t *testing.T) {
	for _, format := range []Format{FormatText, FormatJSON} {
		for name, hits := range previewHits {
			t.Run(fmt.Sprintf("%d/%s", format, name), func(t *testing.T) {
				opts := PreviewOptions{Budget: 1 << 16, MaxHits: 100, Format: format}
				var want []string
				for _, h := range hits {
					if utf8.ValidString(h.ID) && (format == FormatJSON || utf8.ValidString(h.ConnectionID)) {
						want = append(want, h.ID)
					}
				}
				if diff := cmp.Diff(want, ExtractIDs(RenderPreview(hits, opts))); diff != "" {
					t.Errorf("ExtractIDs (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestExtractHitsInvertsRenderPreview: with room for everything, every
// field a format shows comes back as it was, and nothing else does; cut
// to a small budget, every field read back is the start of its own,
// ending in "…" where it was cut.
func TestExtractHitsInvertsRenderPreview(t *testing.T) {
	for _, format := range []Format{FormatText, FormatJSON} {
		for name, hits := range previewHits {
			t.Run(fmt.Sprintf("%d/%s", format, name), func(t *testing.T) {
				opts := PreviewOptions{Budget: 1 << 16, MaxHits: 100, Format: format}
				p := newPreview(hits, opts)
				var want []Hit
				for i := range hits {
					h := hits[i]
					if !utf8.ValidString(h.ID) || (format == FormatText && !utf8.ValidString(h.ConnectionID)) {
						continue
					}
					shown := Hit{ID: h.ID, Title: p.value(&h, valTitle, p.budget), Snippet: h.Snippet}
					if format == FormatJSON {
						shown.URL = p.value(&h, valURL, p.budget)
					} else {
						shown.Stream, shown.ConnectorKey, shown.DisplayName = h.Stream, h.ConnectorKey, h.DisplayName
						if p.showsConnection(&h) {
							shown.ConnectionID = h.ConnectionID
						}
					}
					want = append(want, shown)
				}
				if diff := cmp.Diff(want, ExtractHits(RenderPreview(hits, opts))); diff != "" {
					t.Errorf("ExtractHits (-want +got):\n%s", diff)
				}

				opts.Budget = 300
				got := ExtractHits(RenderPreview(hits, opts))
				for i, g := range got {
					j := slices.IndexFunc(hits, func(h Hit) bool { return h.ID == g.ID })
					require.GreaterOrEqual(t, j, 0, "hit %d: id %q", i, g.ID)
					for _, pair := range [][2]string{{hits[j].Title, g.Title}, {hits[j].Snippet, g.Snippet}, {hits[j].Stream, g.Stream}} {
						if cut, ok := strings.CutSuffix(pair[1], "…"); ok && pair[0] != pair[1] {
							assert.True(t, strings.HasPrefix(pair[0], cut), "%q is no cut of %q", pair[1], pair[0])
						} else if pair[1] != "" {
							assert.Equal(t, pair[0], pair[1])
						}
					}
				}
			})
		}
	}
}

// BenchmarkExtractHits measures reading the hits back from a text preview
// of ten hits, whose titles and snippets are JSON string literals.
func BenchmarkExtractHits(b *testing.B) {
	hits := make([]Hit, 10)
	for i := range hits {
		hits[i] = Hit{
			ID:      fmt.Sprintf("c1/orders:o%d", i),
			Title:   fmt.Sprintf("Order %d: \"refund\" requested", i),
			URL:     fmt.Sprintf("https://shop.example/orders/%d", i),
			Snippet: "The customer asked for a refund of the whole order; résumé attached.",
		}
	}
	text := RenderPreview(hits, PreviewOptions{Budget: 1 << 16, MaxHits: 100, Format: FormatText})
	if got := ExtractHits(text); len(got) != len(hits) {
		b.Fatalf("ExtractHits found %d hits, want %d", len(got), len(hits))
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		_ = ExtractHits(text)
	}
}
