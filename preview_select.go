package mcpid

import (
	"math"
	"strings"
)

// choice is the state of the greedy choice of hits: a hit is shown when
// its mandatory text fits beside the hits already chosen and the fixed
// text, all at their final length.
type choice struct {
	shown    int
	quoted   bool // some shown id is quoted, which the fetch hint explains
	lines    int  // bytes of the shown hits' mandatory text, with separators
	reserved int  // bytes kept for the shown hits' titles (see minTitle)
	scanned  int  // bytes of ids and connection ids measured
}

// idLine is the measure of a hit's mandatory text: the id line of the
// text form, the result without free text of the JSON form.
type idLine struct {
	n        int  // bytes without the separator
	bareID   bool // the id is shown bare
	bareConn bool // the connection id is shown bare
	conn     bool // connection_id is shown
}

// next measures the hit at index i of the window and reports whether it is
// shown; if so it adds the hit to s. Hits are chosen greedily, in order: a
// hit is shown when its mandatory text, and the room kept for its title,
// fit beside those of the hits already chosen, with the fixed text at the
// length it would then have, so that a later hit with a shorter id may
// still fit where an earlier one did not. The first hit shown needs only
// its mandatory text to fit: its title then has the room left, and no
// other hit is shown. Once the ids measured add up to twice the budget, no
// further hit is looked at: ids that do not fit cannot make the cost grow
// past the budget. When p.all, every hit is shown.
func (s *choice) next(p *preview, i int, h *Hit) (idLine, bool) {
	if p.all {
		l, _ := p.measure(i+1, h, p.budget)
		s.shown++
		s.quoted = s.quoted || !l.bareID
		s.lines += l.n + 1
		s.reserved += p.titleReserve(h)
		return l, true
	}
	if s.scanned > 2*p.budget {
		return idLine{}, false
	}
	fixed := p.fixed(s.shown+1, s.quoted)
	scan := p.scan
	l, ok := p.measure(i+1, h, p.budget-fixed-s.lines-s.reserved-1)
	s.scanned += p.scan - scan
	if !ok {
		return l, false
	}
	quoted := s.quoted || !l.bareID
	if quoted != s.quoted {
		fixed = p.fixed(s.shown+1, quoted)
	}
	left := p.budget - fixed - s.lines - s.reserved - l.n - 1
	if left < 0 {
		return l, false
	}
	reserve := p.titleReserve(h)
	if reserve > left {
		if s.shown > 0 {
			return l, false
		}
		reserve = left
	}
	s.shown++
	s.quoted = quoted
	s.lines += l.n + 1
	s.reserved += reserve
	return l, true
}

// titleReserve returns the room the choice keeps for the title of h:
// the bytes its field takes with a value of minTitle bytes, or at the
// title's cap when that is smaller, and 0 when h shows no title. Every
// title gets the same room, however short, so that the titles of the hits
// shown can share the room left at a level no lower than it, even those
// whose sizes plan does not remember (see maxLevelFields). It reads
// nothing of a title but to tell whether the title is shown.
func (p *preview) titleReserve(h *Hit) int {
	c := p.caps[kindTitle]
	if c <= 2 || p.value(h, valTitle, 0) == "" {
		return 0
	}
	over := p.fields[p.titleField].over
	return over + min(minTitle, c-2)
}

// measure measures the mandatory text of h, numbered n, and reports
// whether it can be shown in room bytes: its id and connection id must be
// valid UTF-8. Nothing longer than room is read.
func (p *preview) measure(n int, h *Hit, room int) (idLine, bool) {
	if p.format == FormatJSON {
		l := idLine{n: jsonSkeleton}
		id, ok := p.measureQuoted(h.ID, room-l.n)
		l.n += id
		return l, ok
	}
	l := idLine{n: digits(n) + len(idKey)}
	id, bare, ok := p.measureID(h.ID, room-l.n)
	if !ok {
		return l, false
	}
	l.n += id
	l.bareID = bare
	if p.showsConnection(h) {
		l.conn = true
		c, bare, ok := p.measureID(h.ConnectionID, room-l.n-len(connectionKey))
		if !ok {
			return l, false
		}
		l.n += len(connectionKey) + c
		l.bareConn = bare
	}
	return l, l.n <= room
}

// showsConnection reports whether the text form shows the connection id
// of h: when h has one that its id does not embed. An id that embeds
// another connection shows it too, so that the fetch fails with
// conflicting_connection_id rather than read the wrong connection.
// Embedding is decided as [Parse] decides it.
func (p *preview) showsConnection(h *Hit) bool {
	if h.ConnectionID == "" {
		return false
	}
	p.read += len(h.ID)
	hd, f := parse(h.ID)
	return f.fault != faultNone || !hd.embeds(h.ConnectionID)
}

// measureID returns the bytes id takes when shown in the text form and
// whether it is shown bare: when it is not empty and every rune is
// printable and not a space, '"' or '\\'; else it is shown as a JSON
// string literal. It reports false when id is not valid UTF-8 or does not
// fit in room bytes, reading no more than room bytes of it.
func (p *preview) measureID(id string, room int) (n int, bare, ok bool) {
	n, ok = p.measureQuoted(id, min(room, math.MaxInt-2)+2)
	if !ok {
		return 0, false, false
	}
	if n == len(id)+2 && id != "" && strings.IndexByte(id, ' ') < 0 {
		return len(id), true, true
	}
	return n, false, n <= room
}

// measureQuoted returns the bytes id takes as a JSON string literal, and
// reports whether it is valid UTF-8 and fits in room bytes.
func (p *preview) measureQuoted(id string, room int) (int, bool) {
	if len(id)+2 > room {
		return 0, false
	}
	n, read, valid := quotedLen(id, room, &idEscapes)
	p.scan += read
	p.read += read
	return n, valid && n <= room
}
