package mcpid

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// renderCounting renders a preview as AppendPreview does and returns the
// bytes it read from the hits' ids and fields, planning and writing
// together.
func renderCounting(hits []Hit, opts PreviewOptions) (string, int) {
	p := newPreview(hits, opts)
	if p.budget <= 0 {
		return "", p.read
	}
	return string(p.append(nil)), p.read
}

// hugeHits returns n hits whose every field is size bytes of text of the
// given kind.
func hugeHits(n, size int, unit string) []Hit {
	long := strings.Repeat(unit, size/len(unit)+1)[:size]
	hits := make([]Hit, n)
	for i := range hits {
		hits[i] = Hit{
			ID:           fmt.Sprintf("cin_%d/docs:d%d", i%3, i),
			ConnectionID: "cin_x",
			ConnectorKey: long, Stream: long, DisplayName: long,
			Title: long, Snippet: long, URL: "https://example.com/" + long,
		}
	}
	return hits
}

// Under each set of options, the bytes a preview reads stay within
// readFactor times its budget, plus readSlack.
const (
	readFactor = 8
	readSlack  = 4096
)

func TestPreviewCostBoundedByBudget(t *testing.T) {
	const kiB = 1 << 10
	huge := PreviewOptions{MaxHits: math.MaxInt, MaxLabel: math.MaxInt, MaxTitle: math.MaxInt, MaxSnippet: math.MaxInt}
	withBudget := func(o PreviewOptions, b int) PreviewOptions { o.Budget = b; return o }
	// Ids that need quoting and almost fill the room, so that every one
	// is measured and left out.
	rejected := make([]Hit, 5000)
	for i := range rejected {
		rejected[i] = Hit{ID: strings.Repeat("\x01", 1000), Snippet: "x"}
	}
	tests := []struct {
		name string
		hits []Hit
		opts PreviewOptions
	}{
		{"default options", hugeHits(1000, 64*kiB, "lorem ipsum "), PreviewOptions{}},
		{"caps at MaxInt, 10 hits", hugeHits(10, 64*kiB, "lorem ipsum "), withBudget(huge, 32*kiB)},
		{"caps at MaxInt, 1000 hits", hugeHits(1000, 64*kiB, "lorem ipsum "), withBudget(huge, 32*kiB)},
		{"snippet cap equal to a 1 MiB budget", hugeHits(100, 2<<20, "é"), PreviewOptions{Budget: 1 << 20, MaxHits: math.MaxInt, MaxSnippet: 1 << 20}},
		{"escapes", hugeHits(1000, 64*kiB, "\"\x01\u2028"), withBudget(huge, 32*kiB)},
		{"combining marks", hugeHits(1000, 64*kiB, "e\u0301\u0301"), withBudget(huge, 32*kiB)},
		{"long runs of marks", hugeHits(1000, 64*kiB, "\u0301"), withBudget(huge, 32*kiB)},
		{"ids left out", rejected, PreviewOptions{Budget: 1100, MaxHits: math.MaxInt}},
		{"ids left out, 1 MiB", rejected, PreviewOptions{Budget: 1 << 20, MaxHits: math.MaxInt}},
		{"small caps", hugeHits(1000, 64*kiB, "lorem ipsum "), PreviewOptions{Budget: 32 * kiB, MaxHits: math.MaxInt, MaxLabel: 30, MaxTitle: 25, MaxSnippet: 26}},
	}
	for _, tt := range tests {
		for _, format := range []Format{FormatText, FormatJSON} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, format), func(t *testing.T) {
				opts := tt.opts
				opts.Format = format
				budget := opts.Budget
				if budget == 0 {
					budget = 1800
				}
				out, read := renderCounting(tt.hits, opts)
				require.LessOrEqual(t, len(out), budget)
				t.Logf("read %d bytes for a budget of %d: %.2f per byte", read, budget, float64(read)/float64(budget))
				assert.LessOrEqual(t, read, readFactor*budget+readSlack)
			})
		}
	}
}

// zeroHits returns n hits of zeros whose snippets grow by ten bytes a
// hit, the shape in which a cap of 1 once broke the JSON form's budget.
func zeroHits(n int) []Hit {
	hits := make([]Hit, n)
	for i := range hits {
		hits[i] = Hit{ID: "0", ConnectionID: "0", Title: "0", Snippet: strings.Repeat("0", 1+i%5*10)}
	}
	hits[1].ID, hits[3].ID = "01", strings.Repeat("0", 40)
	return hits
}

func TestPreviewHostileOptions(t *testing.T) {
	snippet := []Hit{{ID: "cin_a/docs:d1", Title: "Design review", Snippet: strings.Repeat("lorem ipsum ", 420)[:5000], URL: "https://example.com/d1"}}
	tests := []struct {
		name string
		hits []Hit
		opts PreviewOptions
	}{
		// The reported case: a cap within 15 of math.MaxInt overflowed a
		// length sum and rendered 5,129 bytes.
		{"MaxSnippet MaxInt", snippet, PreviewOptions{Budget: 1000, MaxSnippet: math.MaxInt}},
		{"MaxSnippet MaxInt-15", snippet, PreviewOptions{Budget: 1000, MaxSnippet: math.MaxInt - 15}},
		{"MaxTitle MaxInt", hugeHits(3, 5000, "x"), PreviewOptions{Budget: 1000, MaxTitle: math.MaxInt}},
		{"MaxLabel MaxInt", hugeHits(3, 5000, "x"), PreviewOptions{Budget: 1000, MaxLabel: math.MaxInt}},
		{"every cap MaxInt", hugeHits(3, 5000, "x"), PreviewOptions{Budget: 1000, MaxLabel: math.MaxInt, MaxTitle: math.MaxInt, MaxSnippet: math.MaxInt}},
		{"every field MaxInt", hugeHits(30, 5000, "x"), PreviewOptions{Budget: math.MaxInt, MaxHits: math.MaxInt, Total: math.MaxInt, HasMore: true, MaxLabel: math.MaxInt, MaxTitle: math.MaxInt, MaxSnippet: math.MaxInt}},
		{"MinInt", hugeHits(3, 50, "x"), PreviewOptions{Budget: math.MinInt, MaxHits: math.MinInt, Total: math.MinInt, MaxLabel: math.MinInt, MaxTitle: math.MinInt, MaxSnippet: math.MinInt}},
		{"caps MinInt", hugeHits(3, 50, "x"), PreviewOptions{MaxHits: math.MinInt, Total: math.MinInt, MaxLabel: math.MinInt, MaxTitle: math.MinInt, MaxSnippet: math.MinInt}},
		{"Total MaxInt", hugeHits(3, 50, "x"), PreviewOptions{Budget: 300, Total: math.MaxInt, HasMore: true}},
		// A cap of 1 or 2 leaves no room inside the quotes: the JSON
		// title, always written, once counted as taking -1 bytes, and
		// the text took them: 305 bytes.
		{"MaxTitle 1", zeroHits(20), PreviewOptions{Budget: 300, MaxTitle: 1}},
		{"MaxTitle 2", zeroHits(20), PreviewOptions{Budget: 300, MaxTitle: 2}},
	}
	for _, tt := range tests {
		for _, format := range []Format{FormatText, FormatJSON, 7} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, format), func(t *testing.T) {
				opts := tt.opts
				opts.Format = format
				out := RenderPreview(tt.hits, opts)
				checkPreview(t, out, tt.hits, opts)
				budget := opts.Budget
				if budget <= 0 || budget > 1<<16 {
					return
				}
				// A buffer with room for the budget is never grown, even
				// for a moment.
				buf := make([]byte, 0, budget)
				got := AppendPreview(buf, tt.hits, opts)
				assert.Equal(t, budget, cap(got), "buffer grown")
				assert.Equal(t, out, string(got))
			})
		}
	}
}

func TestPreviewCapAboveBudgetIsBudget(t *testing.T) {
	hits := hugeHits(20, 5000, "lorem ipsum ")
	for _, format := range []Format{FormatText, FormatJSON} {
		for _, budget := range []int{100, 1000, 32 << 10} {
			t.Run(fmt.Sprintf("%d/%d", format, budget), func(t *testing.T) {
				atBudget := PreviewOptions{Format: format, Budget: budget, MaxHits: 20, MaxLabel: budget, MaxTitle: budget, MaxSnippet: budget}
				above := atBudget
				above.MaxLabel, above.MaxTitle, above.MaxSnippet = budget+1, math.MaxInt/2, math.MaxInt
				assert.Equal(t, RenderPreview(hits, atBudget), RenderPreview(hits, above))
			})
		}
	}
}

// TestPreviewURLCostLinear: hits whose valid URLs are about as long as the
// budget cost either form bytes in proportion to the budget, not to the
// number of hits times the budget: a URL is examined only as far as the
// room it could take.
func TestPreviewURLCostLinear(t *testing.T) {
	for _, format := range []Format{FormatText, FormatJSON} {
		for budget := 1 << 10; budget <= 512<<10; budget *= 8 {
			for _, size := range []int{budget / 2, budget - 200, budget / 50} {
				t.Run(fmt.Sprintf("%d/%d/%d", format, budget, size), func(t *testing.T) {
					url := "https://example.com/" + strings.Repeat("a", size)
					hits := make([]Hit, 2000)
					for i := range hits {
						hits[i] = Hit{ID: fmt.Sprintf("c/:d%d", i), Title: "t", URL: url}
					}
					out, read := renderCounting(hits, PreviewOptions{Budget: budget, MaxHits: math.MaxInt, Format: format})
					require.LessOrEqual(t, len(out), budget)
					assert.LessOrEqual(t, read, readFactor*budget+readSlack, "bytes read for a budget of %d", budget)
				})
			}
		}
	}
}
