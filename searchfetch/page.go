package searchfetch

import (
	"context"

	"github.com/mcpid/mcpid"
)

// paging is what a default-mode search result needs to end its page: to
// give a cursor to the next one, or to say that more hits may exist than
// pages reach.
type paging struct {
	t     *Tools
	ctx   context.Context
	query string
	// at, beyond, unsure and readable are the selection's: the place of
	// each kept hit among the readable ones, the fetchable hits after
	// them, whether hits after them have no verdict yet, and the
	// readable hits of the backend page.
	at       []int
	beyond   int
	unsure   bool
	readable int
	// cur is the cursor of this page; next the backend's cursor of the
	// page after it ("" for none, or when a model cannot page on to it).
	cur  cursor
	next string
	// unreachable reports that the caller may have hits no cursor
	// reaches: past a backend cursor the tools cannot follow, counted by
	// the backend beyond its hits, or hits the search could neither show
	// nor count.
	unreachable bool
}

// newPaging returns the paging of a page of res for query, of which sel
// is the selection from the cursor c on, next the backend page after it
// ([Tools.nextBackend]) and opts the counts.
func (t *Tools) newPaging(ctx context.Context, query string, res SearchResult, sel *selection, c cursor, next string, opts mcpid.PreviewOptions) paging {
	pg := paging{t: t, ctx: ctx, query: query, at: sel.at, beyond: sel.beyond, unsure: sel.unsure, readable: sel.readable, cur: c, next: next}
	pg.unreachable = next == "" && (res.NextCursor != "" || opts.HasMore || opts.Total > sel.counted() || sel.unsure)
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
	last := pg.cur
	if n := len(pg.at); n > 0 {
		last.passed = pg.at[n-1] + 1
	}
	room := len(pg.t.narrowLine())
	room = max(room, len(pg.t.cursorLine(pg.cursor(last))))
	if pg.next != "" {
		room = max(room, len(pg.t.cursorLine(pg.cursor(pg.nextPage()))))
	}
	return room + 1
}

// nextPage returns the cursor of the backend page after this one.
func (pg *paging) nextPage() cursor {
	return cursor{backend: pg.next, pages: pg.cur.pages + 1, earlier: pg.cur.earlier + pg.readable}
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
		c := pg.cur
		c.passed = passed
		next = pg.cursor(c)
	case pg.next != "":
		next = pg.cursor(pg.nextPage())
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
	return pg.cur.passed
}

// cursorAfter reports whether a page that shows the kept hits before hi,
// and passes the readable hits before passed, gives a cursor to the hits
// after them on the same backend page: kept, fetchable, or without a
// verdict yet, which a later page asks about again.
func (pg *paging) cursorAfter(hi, passed int) bool {
	return (hi < len(pg.at) || pg.beyond > 0 || pg.unsure) && passed > pg.cur.passed
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
// shows, with no room kept for a last line, even in a terse page, fits
// no page alone: it is passed over, and counted among the hits not shown
// (when none fits, the first is).
//
// The page is first laid out with no last line. When it needs one (the
// caller may have more hits), it is laid out again with room kept for
// the cursor's line, as long as that page still shows the first hit the
// page without a line shows: a hit that fits a page is never passed over
// for want of room for the way on, which would lose it. Hits after the
// first give up their room first, then the fetch instruction and the
// count of hits not shown ([mcpid.PreviewOptions.Terse]); then the
// advice to narrow the query, a line that may be shorter than a cursor's
// long backend cursor, takes the cursor's place, the same way. Only when
// the first hit and the shortest of these lines cannot both fit the
// budget does the page end with no line, and paging there.
func (t *Tools) pageResult(hits []mcpid.Hit, opts mcpid.PreviewOptions, pg paging) Result {
	r, first, ok := t.layout(hits, opts, &pg, endProbe, 0)
	if ok {
		return r
	}
	for _, e := range [...]ending{endCursor, endNarrow} {
		for _, terse := range [...]bool{false, true} {
			o := opts
			o.Terse = terse
			if r, _, ok := t.layout(hits, o, &pg, e, first); ok {
				return r
			}
		}
	}
	// No way on fits beside the first hit: the page shows what fits,
	// terse when only that shows its first hit.
	r, lo, _ := t.layout(hits, opts, &pg, endNone, 0)
	if lo > first {
		opts.Terse = true
		r, _, _ = t.layout(hits, opts, &pg, endNone, 0)
	}
	return r
}

// fitsTerse reports whether a terse preview of h alone, as opts says
// otherwise, shows it: whether h fits a page that gives up the fetch
// instruction and the count of hits not shown.
func fitsTerse(h mcpid.Hit, opts mcpid.PreviewOptions) bool {
	opts.Terse = true
	return len(mcpid.ExtractHits(mcpid.RenderPreview([]mcpid.Hit{h}, opts))) > 0
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
// has no room for the line. With endNone it always succeeds.
func (t *Tools) layout(hits []mcpid.Hit, opts mcpid.PreviewOptions, pg *paging, e ending, first int) (r Result, lo int, ok bool) {
	budget := opts.Budget
	all := t.opts.Structured == StructuredAll
	keep := e == endCursor || e == endNarrow // hits[first] must stay
	reserve := pg.reserve(e)
	if keep && budget-reserve <= 0 { // 0 would mean the default budget
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
			if nlo != lo && end > lo+1 {
				end = lo + 1 // hits[lo] left out for later ones: it may fit alone
				continue
			}
			if nlo != lo || gap || nhi < end && !all {
				lo = nlo
				if gap || !all {
					end = nhi
				}
				continue
			}
			hi = nhi
		case lo+1 < end:
			end = lo + 1 // hits[lo] may fit alone
			continue
		case lo < end:
			if e == endProbe && !o.Terse && fitsTerse(hits[lo], o) {
				return Result{}, lo, false // it needs a terse page
			}
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
