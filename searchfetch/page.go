package searchfetch

import (
	"context"

	"github.com/mcpid/mcpid"
)

// paging is what a default-mode search result needs to end its page: to
// give a cursor to the next one, or to say that more hits exist than
// pages reach.
type paging struct {
	t     *Tools
	ctx   context.Context
	query string
	// at, beyond and from are the selection's: the place of each kept
	// hit among the readable ones, the fetchable hits after them, and the
	// readable hits the page's cursor passed.
	at     []int
	beyond int
	from   int
	// backend is the backend's cursor of this page, next the one of the
	// page after it ("" for none, or when the tools may not use it).
	backend, next string
	// unreachable reports that the caller has hits no cursor reaches:
	// counted by the backend, past a backend cursor the tools cannot
	// carry, or hits the search could neither show nor count.
	unreachable bool
}

// minPageText is the fewest bytes of preview text that the line ending a
// page may leave: room for the header and a count.
const minPageText = 64

// newPaging returns the paging of a page of res for query, of which sel
// is the selection from the readable hit from on, the page the backend
// cursor backend names.
func (t *Tools) newPaging(ctx context.Context, query string, res SearchResult, sel *selection, c cursor, opts mcpid.PreviewOptions) paging {
	pg := paging{t: t, ctx: ctx, query: query, at: sel.at, beyond: sel.beyond, from: c.passed, backend: c.backend}
	pg.next = t.nextBackend(res)
	// A backend cursor the tools cannot carry makes opts.HasMore true
	// ([Tools.counts]) and leaves pg.next "".
	pg.unreachable = opts.HasMore && pg.next == "" || t.countsFor(res) && res.beyondHits()
	return pg
}

// ending is how a page rendered by layout ends.
type ending uint8

const (
	// endProbe ends the page with no line, and stops once the page
	// needs one.
	endProbe ending = iota
	// endCursor ends it with the line paging.end gives.
	endCursor
	// endNarrow ends it, when the caller has hits after those it shows,
	// with the advice to narrow the query, and gives no cursor.
	endNarrow
	// endNone ends it with no line.
	endNone
)

// reserve returns the bytes to keep for the line that ends a page as e
// says, its line break included: for endCursor the longest line the page
// may end with, the one with the largest count of hits passed.
func (pg *paging) reserve(e ending) int {
	switch e {
	case endNarrow:
		return len(pg.t.narrowLine()) + 1
	case endProbe, endNone:
		return 0
	}
	last := pg.from
	if n := len(pg.at); n > 0 {
		last = pg.at[n-1] + 1
	}
	room := len(pg.t.narrowLine())
	room = max(room, len(pg.t.cursorLine(pg.cursor(cursor{passed: last, backend: pg.backend}))))
	if pg.next != "" {
		room = max(room, len(pg.t.cursorLine(pg.cursor(cursor{backend: pg.next}))))
	}
	return room + 1
}

// cursor returns the text of c.
func (pg *paging) cursor(c cursor) string { return pg.t.cursorText(pg.ctx, pg.query, c) }

// end returns the line that ends a page that shows the kept hits before
// hi (and passes over those before the first it shows), and the cursor
// that line gives: a cursor when the caller has hits after them, else
// the advice to narrow the query when the caller has hits no cursor
// reaches, else nothing.
func (pg *paging) end(hi int) (line, next string) {
	passed := pg.passed(hi)
	switch {
	case pg.cursorAfter(hi, passed):
		// (A page that passes nothing, as with MaxHits < 0, would give
		// a cursor to itself.)
		next = pg.cursor(cursor{passed: passed, backend: pg.backend})
	case pg.next != "":
		next = pg.cursor(cursor{backend: pg.next})
	case pg.unreachable:
		return pg.t.narrowLine(), ""
	default:
		return "", ""
	}
	return pg.t.cursorLine(next), next
}

// passed returns the count of readable hits passed by a page that shows
// the kept hits before hi.
func (pg *paging) passed(hi int) int {
	if hi > 0 {
		return pg.at[hi-1] + 1
	}
	return pg.from
}

// cursorAfter reports whether a page that shows the kept hits before hi,
// and passes the readable hits before passed, gives a cursor to the hits
// after them on the same backend page.
func (pg *paging) cursorAfter(hi, passed int) bool {
	return (hi < len(pg.at) || pg.beyond > 0) && passed > pg.from
}

// hasLine reports whether pg.end(hi) returns a line, without building it.
func (pg *paging) hasLine(hi int) bool {
	return pg.cursorAfter(hi, pg.passed(hi)) || pg.next != "" || pg.unreachable
}

// endAs returns the line and cursor that end, as e says, a page that
// shows the kept hits before hi.
func (pg *paging) endAs(e ending, hi int) (line, next string) {
	switch e {
	case endCursor:
		return pg.end(hi)
	case endNarrow:
		if pg.hasLine(hi) {
			return pg.t.narrowLine(), ""
		}
	}
	return "", ""
}

// cursorLine returns the line of the text that gives the cursor c.
func (t *Tools) cursorLine(c string) string {
	return "For more hits, call " + t.opts.SearchName + " with the same " + t.hints.same + " and cursor=" + string(marshal(c)) + "."
}

// narrowLine returns the line of the text that says to narrow the query.
func (t *Tools) narrowLine() string {
	return "More hits may exist than pages reach: call " + t.opts.SearchName + " with a narrower query."
}

// pageResult renders a default-mode page of hits, the hits the selection
// kept: the text, with the line that ends the page ([paging.end]), and
// structuredContent as Options.Structured chooses. With StructuredShown
// both fit opts.Budget; the text always does.
//
// A page shows a prefix of the readable hits not yet passed, so that the
// cursor's count of hits passed says exactly which were shown. The
// preview may leave out a hit that does not fit and show a later,
// shorter one: the page then ends before the hit left out, which the
// next page shows. A hit the preview leaves out before the first it
// shows, with no room kept for a last line, fits no page alone: it is
// passed over, and counted among the hits not shown (when none fits, the
// first is).
//
// The page is first laid out with no last line. When it needs one (the
// caller has more hits), it is laid out again with room kept for the
// cursor's line, as long as that page still shows the first hit the
// page without a line shows: a hit that fits a page is never passed
// over for want of room for the cursor, which would lose it. Else the
// page shows what fits and ends with the advice to narrow the query, or,
// when even that leaves out its first hit, with no line: the cursor
// cannot be given, and paging ends there.
func (t *Tools) pageResult(hits []mcpid.Hit, opts mcpid.PreviewOptions, pg paging) Result {
	r, first, ok := t.layout(hits, opts, &pg, endProbe, 0)
	if ok {
		return r
	}
	for _, e := range [...]ending{endCursor, endNarrow} {
		if r, _, ok := t.layout(hits, opts, &pg, e, first); ok {
			return r
		}
	}
	r, _, _ = t.layout(hits, opts, &pg, endNone, 0)
	return r
}

// layout renders the page of pageResult that ends as e says. It renders
// again with only the hits shown, so that the text does not count the
// others as in structuredContent (but with StructuredAll, which holds
// them all), with room kept for the page's last line, and for a smaller
// budget while the structured form is over budget, until all agree and
// fit. Each round shows fewer hits or writes a shorter text; after
// maxRounds it shows none.
//
// With endProbe it reports false once the page needs a last line, with
// lo the first hit it renders then. With endCursor and endNarrow it
// reports false when the page would pass over hits[first], or the budget
// leaves the preview less than minPageText besides the line. With
// endNone it always succeeds.
func (t *Tools) layout(hits []mcpid.Hit, opts mcpid.PreviewOptions, pg *paging, e ending, first int) (r Result, lo int, ok bool) {
	budget := opts.Budget
	all := t.opts.Structured == StructuredAll
	keep := e == endCursor || e == endNarrow // hits[first] must stay
	reserve := pg.reserve(e)
	if keep && budget-reserve < minPageText {
		return Result{}, 0, false
	}
	lo, end := 0, len(hits) // the hits rendered
	for round := 0; ; round++ {
		if round >= maxRounds {
			lo, end = min(1, len(hits)), min(1, len(hits))
		}
		if keep && lo > first {
			return Result{}, lo, false
		}
		o := opts
		o.Budget -= reserve
		text := mcpid.RenderPreview(hits[lo:end], o)
		shown := mcpid.ExtractHits(text)
		hi := lo // the end of the hits shown
		switch {
		case len(shown) > 0:
			nlo, nhi, gap := shownRun(hits, lo, end, shown)
			if nlo != lo || gap || nhi < end && !all {
				lo = nlo
				if gap || !all {
					end = nhi
				}
				continue
			}
			hi = nhi
		case lo < end:
			lo++ // fits no page alone: pass over it
			end = lo
			continue
		}
		if e == endProbe {
			if pg.hasLine(hi) {
				return Result{}, lo, false
			}
		}
		line, next := pg.endAs(e, hi)
		preview := len(text)
		if line != "" && text != "" {
			text += "\n" + line
		} else {
			next = ""
		}
		switch t.opts.Structured {
		case StructuredNone:
			return okResult(text, nil), lo, true
		case StructuredAll:
			return okResult(text, structuredOf(hits, opts, next)), lo, true
		}
		structured := structuredOf(shown, opts, next)
		if len(structured) <= budget || lo == hi {
			return okResult(text, structured), lo, true
		}
		opts.Budget = min(o.Budget, preview) - (len(structured) - budget) + reserve
		lo, end = 0, len(hits)
		if opts.Budget-reserve <= 0 { // 0 would mean the default budget
			lo, end, opts.Budget = min(1, len(hits)), min(1, len(hits)), budget
		}
	}
}

// shownRun returns where the hits of in[lo:end] that shown (the hits a
// preview of them shows, in order, at least one) holds begin and end: nlo
// past the hits before the first one shown, and hi the end of the run of
// hits shown from there. gap reports a hit shown after a hit left out of
// that run.
func shownRun(in []mcpid.Hit, lo, end int, shown []mcpid.Hit) (nlo, hi int, gap bool) {
	i := lo
	for i < end && in[i].ID != shown[0].ID {
		i++
	}
	nlo, hi = i, i
	for k := 0; k < len(shown) && hi < end && in[hi].ID == shown[k].ID; k++ {
		hi++
	}
	return nlo, hi, hi-nlo < len(shown)
}
