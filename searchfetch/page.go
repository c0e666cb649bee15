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
