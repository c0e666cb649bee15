package searchfetch

import (
	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/previewshown"
)

// renderShown is mcpid's renderer with its account of what it wrote: the
// text RenderPreview returns, the hits it shows (fields as cut), and the
// index of each among the hits passed in. A page learns what it shows
// from it, never by reading the text back.
var renderShown = previewshown.Render.(func([]mcpid.Hit, mcpid.PreviewOptions) (string, []mcpid.Hit, []int))

// page is a default-mode page laid out: its result, and the hits of the
// page's hits it shows, hits[lo:hi]. A layout that fails sets lo alone.
type page struct {
	r      Result
	lo, hi int
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
func (t *Tools) pageResult(hits []mcpid.Hit, opts mcpid.PreviewOptions, pg paging) page {
	p, ok := t.layout(hits, opts, &pg, endProbe, 0)
	if ok {
		return p
	}
	first := p.lo
	for _, e := range [...]ending{endCursor, endNarrow} {
		for _, terse := range [...]bool{false, true} {
			o := opts
			o.Terse = terse
			if p, ok := t.layout(hits, o, &pg, e, first); ok {
				return p
			}
		}
	}
	// No way on fits beside the first hit: the page shows what fits,
	// terse when only that shows its first hit.
	p, _ = t.layout(hits, opts, &pg, endNone, 0)
	if p.lo > first {
		opts.Terse = true
		p, _ = t.layout(hits, opts, &pg, endNone, 0)
	}
	return p
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
func (t *Tools) layout(hits []mcpid.Hit, opts mcpid.PreviewOptions, pg *paging, e ending, first int) (page, bool) {
	l := pageLayout{t: t, hits: hits, opts: opts, pg: pg, e: e, budget: opts.Budget, reserve: pg.reserve(e), end: len(hits)}
	keep := e == endCursor || e == endNarrow // hits[first] must stay
	if keep && l.budget-l.reserve <= 0 {     // 0 would mean the default budget
		return page{}, false
	}
	for round := 0; ; round++ {
		if round >= maxRounds {
			l.showNone()
		}
		if keep && l.lo > first {
			return page{lo: l.lo}, false
		}
		text, shown, next := l.render()
		switch {
		case next == stepAgain:
			continue
		case next == stepFail, e == endProbe && pg.hasLine(l.hi):
			return page{lo: l.lo}, false
		}
		if r, ok := l.result(text, shown); ok {
			return page{r: r, lo: l.lo, hi: l.hi}, true
		}
	}
}

// pageLayout is the state of one layout: the hits rendered, hits[lo:end],
// of which a preview shows hits[lo:hi], and the options of the next
// render, whose budget shrinks while structuredContent is over budget.
type pageLayout struct {
	t       *Tools
	hits    []mcpid.Hit
	opts    mcpid.PreviewOptions
	pg      *paging
	e       ending
	budget  int // the page's budget, for both channels
	reserve int // the bytes kept for the page's last line
	lo, end int
	hi      int
}

// step is what a render of a layout leads to.
type step uint8

const (
	stepShow  step = iota // the page shows hits[lo:hi]
	stepAgain             // the hits to render changed: render again
	stepFail              // the page ends the layout with no result
)

// showNone makes the next render show none of the hits.
func (l *pageLayout) showNone() {
	n := min(1, len(l.hits))
	l.lo, l.end = n, n
}

// render renders hits[lo:end], with room kept for the last line, and
// returns the text, the hits it shows, and the step it leads to.
func (l *pageLayout) render() (string, []mcpid.Hit, step) {
	o := l.opts
	o.Budget -= l.reserve
	text, shown, at := renderShown(l.hits[l.lo:l.end], o)
	l.hi = l.lo
	if len(shown) == 0 {
		return text, nil, l.noneShown(o)
	}
	return text, shown, l.narrow(at)
}

// narrow returns the step a render leads to whose hits shown are those of
// hits[lo:end] at the indices at (relative to lo, at least one): it shows
// a run of hits from lo on, or renders again the run it shows, or hits[lo]
// alone when the preview left it out for a later hit.
func (l *pageLayout) narrow(at []int) step {
	nlo := l.lo + at[0]
	run := 1
	for run < len(at) && at[run] == at[0]+run {
		run++
	}
	nhi, gap := nlo+run, run < len(at)
	all := l.t.opts.Structured == StructuredAll
	switch {
	case nlo != l.lo && l.end > l.lo+1:
		l.end = l.lo + 1 // hits[lo] left out for later ones: it may fit alone
		return stepAgain
	case nlo != l.lo || gap || nhi < l.end && !all:
		l.lo = nlo
		if gap || !all {
			l.end = nhi
		}
		return stepAgain
	}
	l.hi = nhi
	return stepShow
}

// noneShown returns the step a render of hits[lo:end] with o leads to
// that shows no hit: hits[lo] rendered alone, passed over when it fits no
// page alone, or a probe that fails when a terse page would show it. With
// no hit rendered, the page shows none.
func (l *pageLayout) noneShown(o mcpid.PreviewOptions) step {
	switch {
	case l.lo+1 < l.end:
		l.end = l.lo + 1 // hits[lo] may fit alone
		return stepAgain
	case l.lo < l.end:
		if l.e == endProbe && !o.Terse && fitsTerse(l.hits[l.lo], o) {
			return stepFail // it needs a terse page
		}
		l.lo++ // fits no page alone: pass over it
		l.end = l.lo
		return stepAgain
	}
	return stepShow
}

// result returns the page of text, a preview that shows shown, hits[lo:hi],
// ended by its last line, and reports false when its structuredContent is
// over budget: then the next render has a budget smaller by the excess.
func (l *pageLayout) result(text string, shown []mcpid.Hit) (Result, bool) {
	line, next := l.pg.endAs(l.e, l.hi)
	preview := len(text)
	if line != "" && text != "" {
		text += "\n" + line
	} else {
		next = ""
	}
	switch l.t.opts.Structured {
	case StructuredNone:
		return okResult(text, nil), true
	case StructuredAll:
		return okResult(text, structuredOf(l.hits, l.opts, next)), true
	}
	structured := structuredOf(shown, l.opts, next)
	if len(structured) <= l.budget || l.lo == l.hi {
		return okResult(text, structured), true
	}
	l.shrink(preview, len(structured))
	return Result{}, false
}

// shrink sets the next render's budget, after a preview of preview bytes
// whose structuredContent took structured bytes, to what it was less the
// excess, and renders all the hits again; with no room left, it renders
// none at the page's budget.
func (l *pageLayout) shrink(preview, structured int) {
	l.opts.Budget = min(l.opts.Budget-l.reserve, preview) - (structured - l.budget) + l.reserve
	l.lo, l.end = 0, len(l.hits)
	if l.opts.Budget-l.reserve <= 0 { // 0 would mean the default budget
		l.showNone()
		l.opts.Budget = l.budget
	}
}

// fitsTerse reports whether a terse preview of h alone, as opts says
// otherwise, shows it: whether h fits a page that gives up the fetch
// instruction and the count of hits not shown.
func fitsTerse(h mcpid.Hit, opts mcpid.PreviewOptions) bool {
	opts.Terse = true
	_, shown, _ := renderShown([]mcpid.Hit{h}, opts)
	return len(shown) > 0
}
