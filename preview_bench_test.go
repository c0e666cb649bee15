package mcpid

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// benchHits is the shared input of the preview benchmarks: typical hits
// with 300-byte snippets, a few escapes and some non-ASCII text.
func benchHits(n int) []Hit {
	hits := make([]Hit, n)
	for i := range hits {
		hits[i] = Hit{
			ID:           fmt.Sprintf("cin_4f2a/orders:o%d", i),
			ConnectionID: "cin_4f2a",
			ConnectorKey: "postgres",
			Stream:       "orders",
			DisplayName:  "Prod DB",
			Title:        fmt.Sprintf("Order o%d for Müller GmbH", i),
			Snippet:      strings.Repeat("Shipped \"express\" to Köln,\n3 items. ", 9)[:300],
			URL:          fmt.Sprintf("https://db.example.com/orders/o%d", i),
		}
	}
	return hits
}

// unicodeIDHits are benchHits with ids that are not ASCII: Latin with
// accents, Cyrillic, Han, and one Cyrillic look-alike that is quoted.
func unicodeIDHits(n int) []Hit {
	hits := benchHits(n)
	names := []string{"Müller-Köln-%d", "жара-%d", "日本語-%d", "p\u0430ypal-%d"}
	for i := range hits {
		hits[i].ID = fmt.Sprintf("cin_4f2a/orders:"+names[i%len(names)], i)
	}
	return hits
}

// naiveAppendPreview is the baseline twin of AppendPreview: the same
// fields of every hit, quoted by strconv.AppendQuote, with no budget, no
// id checks and no cuts.
func naiveAppendPreview(dst []byte, hits []Hit) []byte {
	dst = append(dst, "Showing "...)
	dst = strconv.AppendInt(dst, int64(len(hits)), 10)
	dst = append(dst, " hits."...)
	for i, h := range hits {
		dst = append(dst, '\n')
		dst = strconv.AppendInt(dst, int64(i+1), 10)
		dst = append(dst, ". id="...)
		dst = append(dst, h.ID...)
		dst = append(dst, " stream="...)
		dst = strconv.AppendQuote(dst, h.Stream)
		dst = append(dst, " connector_key="...)
		dst = strconv.AppendQuote(dst, h.ConnectorKey)
		dst = append(dst, " display_name="...)
		dst = strconv.AppendQuote(dst, h.DisplayName)
		dst = append(dst, " title="...)
		dst = strconv.AppendQuote(dst, h.Title)
		dst = append(dst, " snippet="...)
		dst = strconv.AppendQuote(dst, h.Snippet)
	}
	return append(dst, "\n"+fetchHint...)
}

// naiveJSONResult is a result of the JSON form as a server would write
// it by hand.
type naiveJSONResult struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	URL   string `json:"url"`
	Text  string `json:"text,omitempty"`
}

// naiveJSONPreview is the baseline twin of the JSON form: json.Marshal of
// the same results, with no budget, no id checks and no cuts.
func naiveJSONPreview(results []naiveJSONResult) []byte {
	out, err := json.Marshal(struct {
		Results []naiveJSONResult `json:"results"`
	}{results})
	if err != nil {
		panic(err)
	}
	return out
}

// BenchmarkPreview measures both formats on the same hits: a page of 10
// and of 10,000 at the default budget, where the cost must be the same;
// every field of 10 hits beside a naive twin that writes the same
// fields with no budget logic; and huge fields with caps at the budget,
// where the cost must not grow with the number of hits.
func BenchmarkPreview(b *testing.B) {
	all := PreviewOptions{Budget: 1 << 16, MaxHits: 10, MaxSnippet: 1000}
	huge := PreviewOptions{Budget: 32 << 10, MaxHits: math.MaxInt, MaxLabel: math.MaxInt, MaxTitle: math.MaxInt, MaxSnippet: math.MaxInt}
	benchmarks := []struct {
		name string
		hits []Hit
		opts PreviewOptions
	}{
		{"10hits", benchHits(10), PreviewOptions{}},
		{"10000hits", benchHits(10000), PreviewOptions{}},
		{"10hits-all", benchHits(10), all},
		// With no cap on hits, the budget alone bounds the work: a page
		// of 1,000 costs what a page of 10,000 does.
		{"1000hits-nomax", benchHits(1000), PreviewOptions{MaxHits: 1 << 20}},
		{"10000hits-nomax", benchHits(10000), PreviewOptions{MaxHits: 1 << 20}},
		// Ids in other scripts and with accents: the look-alike rule reads
		// each (NFC, words, scripts); all-ASCII ids never reach it.
		{"10hits-unicode-ids", unicodeIDHits(10), PreviewOptions{}},
		// Fields of 64 KiB with caps at math.MaxInt and a 32 KiB budget.
		{"10hits-huge", hugeHits(10, 64<<10, "lorem ipsum "), huge},
		{"1000hits-huge", hugeHits(1000, 64<<10, "lorem ipsum "), huge},
	}
	for _, format := range []Format{FormatText, FormatJSON} {
		name := map[Format]string{FormatText: "Text/", FormatJSON: "JSON/"}[format]
		b.Run(name+"Render/10hits", func(b *testing.B) {
			b.ReportAllocs()
			hits := benchHits(10)
			for b.Loop() {
				_ = RenderPreview(hits, PreviewOptions{Format: format})
			}
		})
		for _, bm := range benchmarks {
			opts := bm.opts
			opts.Format = format
			b.Run(name+bm.name, func(b *testing.B) {
				b.ReportAllocs()
				buf := make([]byte, 0, max(opts.Budget, 1800))
				for b.Loop() {
					buf = AppendPreview(buf[:0], bm.hits, opts)
				}
				b.SetBytes(int64(len(buf)))
			})
		}
	}
	b.Run("Text/naive-10hits-all", func(b *testing.B) {
		b.ReportAllocs()
		hits := benchHits(10)
		buf := make([]byte, 0, 1<<16)
		for b.Loop() {
			buf = naiveAppendPreview(buf[:0], hits)
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("JSON/naive-10hits-all", func(b *testing.B) {
		b.ReportAllocs()
		var results []naiveJSONResult
		for _, h := range benchHits(10) {
			results = append(results, naiveJSONResult{h.ID, h.Title, h.URL, h.Snippet})
		}
		var out []byte
		for b.Loop() {
			out = naiveJSONPreview(results)
		}
		b.SetBytes(int64(len(out)))
	})
}
