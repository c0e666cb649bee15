package searchfetch_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// paddedPager is a backend that pages hits, per pages of size, whose cursors are
// the page numbers padded on the left with 'x' to pad bytes: a backend
// whose cursors are as long as the tools carry (256 bytes).
type paddedPager struct {
	recorder
	hits []mcpid.Hit
	size int
	pad  int
}

func (p *paddedPager) Search(_ context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	cursor := q.Cursor
	n := 0
	if cursor != "" {
		var err error
		if n, err = strconv.Atoi(strings.TrimLeft(cursor, "x")); err != nil {
			return searchfetch.SearchResult{}, mcpid.NewError(searchfetch.CodeInvalidArguments, "bad cursor", "")
		}
	}
	lo, hi := min(n*p.size, len(p.hits)), min((n+1)*p.size, len(p.hits))
	res := searchfetch.SearchResult{Hits: p.hits[lo:hi], CountsForCaller: true}
	if hi < len(p.hits) {
		res.NextCursor = padCursor(n+1, p.pad)
	}
	return res, nil
}

// padCursor returns the cursor of page n padded to pad bytes.
func padCursor(n, pad int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("x", max(0, pad-len(s))) + s
}

// headerCounts matches the first line of a page that shows hits.
var headerCounts = regexp.MustCompile(`^Showing \d+ of (more than )?(\d+) hits?\.`)

// fitsAlone reports whether a preview of h alone, within budget, shows
// it on a page whose text (header) counts the hits as page does: whether
// h fits a page with budget bytes besides the page's last line.
func fitsAlone(h mcpid.Hit, budget, maxHits int, page string) bool {
	m := headerCounts.FindStringSubmatch(page)
	if budget <= 0 || m == nil {
		return false // (a budget of 0 would mean the default)
	}
	total, _ := strconv.Atoi(m[2])
	text := mcpid.RenderPreview([]mcpid.Hit{h}, mcpid.PreviewOptions{Budget: budget, MaxHits: maxHits, Total: total, HasMore: m[1] != ""})
	return len(mcpid.ExtractHits(text)) > 0
}

// lastLineRoom returns the most bytes the line that ends a page of
// search may take, its line break included: the advice to narrow the
// query, or a cursor line whose count has 2 digits, and whose backend
// cursor, when backend is set, has pad bytes.
func lastLineRoom(backend bool, pad int) int {
	payload := "99"
	if backend {
		payload += "." + strings.Repeat("x", pad)
	}
	line := len(`For more hits, call search with the same query and cursor="` + payload + "~" + strings.Repeat("x", mcpid.SealTagLen) + `".`)
	return max(len(narrowAdvice), line) + 1
}

// narrowAdvice is the line that ends a page whose caller has hits that no
// cursor reaches.
const narrowAdvice = "More hits may exist than pages reach: call search with a narrower query."
