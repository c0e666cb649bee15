package mcpid

import "math"

// minShare is the smallest room, in bytes of a quoted value, worth
// giving a field that must be cut: less shows a stub.
const minShare = 24

// maxLevelFields is how many fields of each kind plan remembers the size
// of to share room fairly; fields beyond are assumed to need their cap.
const maxLevelFields = 64

// minTitle is the room, in bytes of a title's value (the … of a cut
// included), that the choice keeps for the title of each hit it shows:
// the first three or four words of a title, enough for a model to tell
// hits apart and choose one. With MaxHits raised, fewer hits are shown,
// each with its title, rather than more ids with nothing to choose by. It
// is at least minShare, so that a title cut to it is not a stub.
const minTitle = 24

// The kinds of free text, in the order they give up room: the last kind
// first. Titles come first, so that a shown hit keeps its title before
// anything else; then URLs, which hosts turn into citations and which are
// shown whole or not at all; then the text form's labels.
const (
	kindTitle = iota
	kindURL
	kindLabel
	kindSnippet
	nKinds
)

// preview is the plan of a preview: which hits fit, and how the room left
// by the fixed text and the mandatory part of each hit goes to free text.
// It is computed in one pass over the window, and the same choice is
// replayed while writing, so that no more than the sizes of a bounded
// number of fields is stored.
type preview struct {
	window []Hit // the hits looked at: a prefix of the input
	format Format
	fields []field
	// titleField is the index of the title in fields.
	titleField int
	budget     int
	total      int // hits in the whole result, at least len(hits)
	passed     int // len(hits): the hits a server puts in its structured results
	hasMore    bool
	// mayHaveMore is set when hits beyond total may exist uncounted (and
	// hasMore is not); terse when the text has no fetch instruction and
	// no count of hits not shown.
	mayHaveMore, terse bool
	caps               [nKinds]int // the cap of each kind of field, at most budget; -1 hides it

	sel choice // the choice after the planning pass
	all bool   // every hit is shown, so no line counts hits left out

	// full is the number of kinds shown uncut, in kind order; kind full
	// (if any) shares room and the kinds after it are hidden.
	full  int
	room  int // bytes the shared kind may use
	items int // non-empty fields of the shared kind in shown hits
	// level is the most bytes each field of the shared kind may take so
	// that all of them fit in room, or 0 when that is too little to be
	// useful and the fields take room in order instead.
	level int
	need  int // bytes the preview writes at most

	// sizes holds the bytes that the first known fields of each kind take
	// uncut or at their cap; the others are assumed to take their cap.
	known [nKinds]int
	sizes [nKinds][maxLevelFields]int32

	// scan counts the bytes of ids and connection ids measured, which
	// bounds the hits looked at; read counts every byte read from the
	// hits, so that tests can check that the cost is bounded by the
	// budget.
	scan, read int

	// urlRoom is what is left of the bytes of invalid URLs that may be
	// examined, in planning and again in writing; urlLeft is, while
	// writing URLs uncut, what is left of the room planning found they
	// take, which no URL that planning did not examine may exceed.
	urlRoom, urlLeft int

	// out, when not nil, receives the hits written (see renderShown).
	out *shownHits
}

func newPreview(hits []Hit, opts PreviewOptions) preview {
	p := preview{budget: min(opts.Budget, maxBudget), hasMore: opts.HasMore,
		mayHaveMore: opts.MayHaveMore && !opts.HasMore, terse: opts.Terse}
	if opts.Format == FormatJSON {
		p.format = FormatJSON
	}
	switch {
	case p.budget == 0:
		p.budget = defaultBudget
	case p.budget < 0:
		return p
	}
	maxHits := opts.MaxHits
	switch {
	case maxHits == 0:
		maxHits = defaultMaxHits
	case maxHits < 0:
		maxHits = 0
	}
	var caps, defaults [nKinds]int
	caps[kindLabel], caps[kindTitle], caps[kindSnippet] = opts.MaxLabel, opts.MaxTitle, opts.MaxSnippet
	defaults[kindLabel], defaults[kindTitle], defaults[kindSnippet] = defaultMaxLabel, defaultMaxTitle, defaultMaxSnippet
	line := minLine
	p.fields, p.titleField = textFields, textTitle
	caps[kindURL] = p.budget // URLs have no cap but the budget
	if p.format == FormatJSON {
		if p.budget < len(jsonOpen+jsonClose) {
			p.budget = -1
			return p
		}
		line = minJSONLine
		p.fields, p.titleField = jsonFields, jsonTitle
		opts.Total, p.hasMore, p.mayHaveMore, p.terse = 0, false, false, false
	}
	p.window = hits[:min(len(hits), maxHits, p.budget/line)]
	p.urlRoom = p.budget
	p.passed = len(hits)
	p.total = max(len(hits), opts.Total)
	for k, c := range caps {
		switch {
		case c == 0:
			c = defaults[k]
		case c < 0:
			c = -1
		}
		p.caps[k] = min(c, p.budget)
	}
	p.plan()
	return p
}

// plan chooses the hits to show and shares the room left among their free
// text.
func (p *preview) plan() {
	p.all = p.fitsAll()
	var sum, count [nKinds]int
	for i := range p.window {
		h := &p.window[i]
		if _, ok := p.sel.next(p, i, h); !ok {
			continue
		}
		for _, fd := range p.fields {
			k := fd.kind
			if p.caps[k] < 0 {
				continue
			}
			s := p.value(h, fd.val, p.budget-sum[k])
			if s == "" {
				continue
			}
			count[k]++
			if sum[k] > p.budget {
				// The kind cannot be shown uncut: the sizes of its
				// further fields are not needed.
				continue
			}
			size := p.fieldSize(&fd, s)
			if n := p.known[k]; n < maxLevelFields {
				p.sizes[k][n] = int32(min(size, math.MaxInt32))
				p.known[k]++
			}
			sum[k] += size
		}
	}
	p.urlLeft = sum[kindURL]
	// The room kept for titles is in free: titles, the first kind, take
	// it back.
	p.need = p.fixed(p.sel.shown, p.sel.quoted) + p.sel.lines
	free := p.budget - p.need
	for p.full < nKinds && sum[p.full] <= free {
		free -= sum[p.full]
		p.need += sum[p.full]
		p.full++
	}
	if p.full < nKinds {
		p.room, p.items = free, count[p.full]
		p.level = p.levelFor(p.full)
		p.need = p.budget
	}
}

// fieldSize returns the bytes the field takes with value s: uncut if it
// fits its cap, else its cap. It reads no more of s than the cap.
func (p *preview) fieldSize(fd *field, s string) int {
	c := p.caps[fd.kind]
	switch {
	case fd.whole:
		return fd.over + len(s)
	case c <= 2:
		return 0 // no room for a value within the quotes: nothing is written
	}
	q, read, _ := quotedLen(s, c, escapesFor(p.format))
	p.read += read
	return fd.over + min(c, q) - 2
}

// levelFor returns the largest size L such that the fields of kind k, each
// cut to at most L bytes, fit in p.room, when L leaves every cut field of
// that kind at least minShare bytes of quoted value; else 0. Fields shown
// whole or not at all take the room in order: 0.
func (p *preview) levelFor(k int) int {
	longest := 0 // the largest overhead of a field of kind k
	for _, fd := range p.fields {
		if fd.kind == k {
			if fd.whole {
				return 0
			}
			longest = max(longest, fd.over)
		}
	}
	most := longest + p.caps[k] - 2 // what a field of unknown size may take
	known := p.sizes[k][:p.known[k]]
	fits := func(level int) bool {
		n := 0
		for _, size := range known {
			n += min(int(size), level)
		}
		return n <= p.room && mulSat(p.items-len(known), min(most, level)) <= p.room-n
	}
	lo, hi := 0, min(most, p.room)
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo < longest+minShare-2 {
		return 0
	}
	return lo
}

// mulSat returns a*b for a, b >= 0, or math.MaxInt when that overflows.
func mulSat(a, b int) int {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt/b {
		return math.MaxInt
	}
	return a * b
}

// size returns an upper bound of the bytes the preview writes.
func (p *preview) size() int { return min(p.budget, p.need) }

// fitsAll reports whether, in the text form, every hit is in the window
// and every id line fits, with the room kept for each title, or without it
// when the first hit alone, counting the others, does not fit. Then the
// text has no line counting hits not shown, which the greedy choice of
// next cannot foresee.
func (p *preview) fitsAll() bool {
	if p.format != FormatText || p.hasMore || p.total > len(p.window) || p.total == 0 {
		return false
	}
	lines, reserved, quoted := 0, 0, false
	first := 0 // the bytes of the first hit's id line, with its separator
	for i := range p.window {
		h := &p.window[i]
		l, ok := p.measure(i+1, h, p.budget-lines)
		if !ok {
			return false
		}
		if i == 0 {
			first = p.fixed(1, !l.bareID) + l.n + 1
		}
		lines += l.n + 1
		reserved += p.titleReserve(h)
		quoted = quoted || !l.bareID
	}
	fixed := p.fixed(len(p.window), quoted)
	return fixed+lines+reserved <= p.budget || fixed+lines <= p.budget && first > p.budget
}

// fixed returns the bytes of the text without hits: for the text form the
// header, the fetch hint when hits are shown, and the count of hits not
// shown, each with its line break but the last; for the JSON form the
// object around the results, less the separator the first result does
// not have.
func (p *preview) fixed(shown int, quoted bool) int {
	if p.format == FormatJSON {
		return len(jsonOpen+jsonClose) - min(shown, 1)
	}
	var buf [maxCountLine]byte
	n := len(p.appendHeader(buf[:0], shown))
	if shown > 0 && !p.terse {
		n += 1 + len(fetchHint)
		if quoted {
			n += len(fetchHintQuoted) - len(fetchHint)
		}
	}
	if p.hasFooter(shown) {
		n += 1 + len(p.appendFooter(buf[:0], shown))
	}
	return n
}

// hasFooter reports whether the text counts hits not shown: whether some
// are, and the text is not terse.
func (p *preview) hasFooter(shown int) bool { return !p.terse && (p.hasMore || p.total > shown) }
