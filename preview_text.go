package mcpid

import "strconv"

// The fixed text of the text form.
const (
	fetchHint       = "To fetch, pass an id exactly as shown; pass connection_id only where its line shows one."
	fetchHintQuoted = "To fetch, pass an id exactly as shown (a quoted id is a JSON string: pass its decoded value); pass connection_id only where its line shows one."
	idKey           = ". id="
	connectionKey   = " connection_id="
	urlKey          = " url="
)

// minLine is the fewest bytes a hit takes in the text form with its
// separator: "1. id=x\n". No more than budget/minLine hits can be shown.
const minLine = 8

// maxCountLine bounds the header and the line that counts hits not shown:
// fixed words around at most two decimal ints (103 bytes), so that they
// are measured on the stack.
const maxCountLine = 128

// textFields are the free-text fields of a hit in the text form; the
// title is textFields[textTitle]. The URL follows the title, bare: an
// absolute http or https URL that the preview shows holds only the
// characters RFC 3986 allows, so no space, quote, backslash or line break
// that could end it early or forge a field.
const textTitle = 3

var textFields = []field{
	optional(valStream, kindLabel, ` stream="`),
	optional(valConnectorKey, kindLabel, ` connector_key="`),
	optional(valDisplayName, kindLabel, ` display_name="`),
	optional(valTitle, kindTitle, ` title="`),
	{val: valURL, kind: kindURL, key: urlKey, over: len(urlKey), whole: true, bare: true},
	optional(valSnippet, kindSnippet, ` snippet="`),
}

// appendText writes the text form to dst.
func (p *preview) appendText(dst []byte) []byte {
	p.urlRoom = p.budget
	if p.sel.shown == 0 {
		// No hit fits: the header and the count, or the header alone, or
		// nothing.
		var buf [maxCountLine]byte
		header := len(p.appendHeader(buf[:0], 0))
		if header > p.budget {
			return dst
		}
		dst = p.appendHeader(dst, 0)
		if p.hasFooter(0) && p.fixed(0, false) <= p.budget {
			dst = p.appendFooter(append(dst, '\n'), 0)
		}
		return dst
	}
	dst = p.appendHeader(dst, p.sel.shown)
	var sel choice
	sh := share{room: p.room, items: p.items}
	for i := range p.window {
		h := &p.window[i]
		l, ok := sel.next(p, i, h)
		if !ok {
			continue
		}
		dst = append(dst, '\n')
		dst = strconv.AppendInt(dst, int64(i+1), 10)
		dst = append(dst, idKey...)
		dst = appendID(dst, h.ID, l.bareID)
		if l.conn {
			dst = append(dst, connectionKey...)
			dst = appendID(dst, h.ConnectionID, l.bareConn)
		}
		dst = p.appendFields(dst, h, &sh, p.out.add(h, i, l.conn))
	}
	if p.terse {
		return dst
	}
	dst = append(dst, '\n')
	if sel.quoted {
		dst = append(dst, fetchHintQuoted...)
	} else {
		dst = append(dst, fetchHint...)
	}
	if p.hasFooter(p.sel.shown) {
		dst = p.appendFooter(append(dst, '\n'), p.sel.shown)
	}
	return dst
}

// appendHeader appends the first line: how many hits are shown of how
// many. Where more may exist uncounted, it says "or more" of the count,
// or, when none were counted, that more may exist: never that they do.
func (p *preview) appendHeader(b []byte, shown int) []byte {
	switch {
	case p.total == 0 && p.mayHaveMore:
		return append(b, "No hits counted; more may exist."...)
	case p.total == 0 && !p.hasMore:
		return append(b, "No hits."...)
	}
	b = append(b, "Showing "...)
	b = strconv.AppendInt(b, int64(shown), 10)
	b = append(b, " of "...)
	if p.hasMore {
		b = append(b, "more than "...)
	}
	b = strconv.AppendInt(b, int64(p.total), 10)
	switch {
	case p.mayHaveMore:
		return append(b, " or more hits."...)
	case p.total == 1 && !p.hasMore:
		return append(b, " hit."...)
	}
	return append(b, " hits."...)
}

// appendFooter appends the last line, which counts the hits not shown
// and says how many of them are in the structured results: those passed
// in but left out are, those beyond the hits passed in are not. Where
// more may exist uncounted, it says "or more" of the count. It is written
// only when hasFooter.
func (p *preview) appendFooter(b []byte, shown int) []byte {
	rest := p.total - shown
	inResults := p.passed - shown
	switch {
	case p.hasMore && rest == 0:
		b = append(b, "More hits exist"...)
	default:
		if p.hasMore {
			b = append(b, "More than "...)
		}
		b = strconv.AppendInt(b, int64(rest), 10)
		switch {
		case p.mayHaveMore:
			b = append(b, " or more hits not shown"...)
		case rest == 1 && !p.hasMore:
			b = append(b, " hit not shown"...)
		default:
			b = append(b, " hits not shown"...)
		}
	}
	switch {
	case inResults == rest && !p.hasMore && !p.mayHaveMore:
		return append(b, "; see structuredContent.results."...)
	case inResults == 0:
		return append(b, "; none of them in structuredContent.results."...)
	}
	b = append(b, "; "...)
	b = strconv.AppendInt(b, int64(inResults), 10)
	return append(b, " of them in structuredContent.results."...)
}

// digits returns the number of decimal digits of n > 0.
func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// appendID appends an id or connection id of the text form: bare, or as
// a JSON string literal.
func appendID(dst []byte, id string, bare bool) []byte {
	if bare {
		return append(dst, id...)
	}
	return appendQuotedID(dst, id)
}
