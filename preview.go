package mcpid

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Hit is one search result as [RenderPreview] shows it: its id, the
// connection it came from, and free text that helps the model choose.
// Empty fields are not shown.
type Hit struct {
	// ID is the id the model passes to fetch, shown complete or not at
	// all; typically [SelfContainedID] made it.
	ID string
	// ConnectionID is the connection the hit came from. It is shown only
	// when ID does not embed a connection: an embedded connection decides
	// the fetch, and passing another one would only conflict.
	ConnectionID string
	// ConnectorKey, Stream and DisplayName are labels: the kind of
	// source, the stream and the source's name.
	ConnectorKey string
	Stream       string
	DisplayName  string
	// Title is the record's title; it is not shown when it equals ID.
	Title string
	// Snippet is an excerpt of the record.
	Snippet string
	// URL is where a person can open the record.
	URL string
}

// Format selects the shape of a preview.
type Format uint8

// The formats of a preview.
const (
	// FormatText is numbered prose lines, one a hit (the zero value).
	FormatText Format = iota
	// FormatJSON is the JSON object OpenAI's search/fetch contract
	// requires: {"results":[{"id":…,"title":…,"url":…},…]}.
	FormatJSON
)

// PreviewOptions configures [RenderPreview] and [AppendPreview]. The zero
// value means the defaults. A negative Budget or MaxHits means none: no
// text at all, or no hit lines. A negative field cap hides that field.
type PreviewOptions struct {
	// Budget is the hard cap on the bytes of the text; 0 means 1800.
	Budget int
	// MaxHits is the most hit lines to show; 0 means 5. Only the first
	// MaxHits hits are looked at.
	MaxHits int
	// Total is the number of hits in the whole result, when it is more
	// than the hits passed in; a smaller value is ignored.
	Total int
	// HasMore reports that the result has hits beyond Total (or beyond the
	// hits passed in).
	HasMore bool
	// LabelMax caps each label (stream, connector key, display name) in
	// bytes, counting its quotes and the … that marks a cut; 0 means 40.
	LabelMax int
	// TitleMax caps the title the same way; 0 means 100.
	TitleMax int
	// SnippetMax caps the snippet the same way; 0 means 200.
	SnippetMax int
	// Format is the shape of the text: FormatText (the zero value) or
	// FormatJSON.
	Format Format
}

// The defaults of PreviewOptions.
const (
	defaultBudget     = 1800
	defaultMaxHits    = 5
	defaultLabelMax   = 40
	defaultTitleMax   = 100
	defaultSnippetMax = 200
)

// The fixed text of a preview.
const (
	fetchHint       = "To fetch, pass an id exactly as shown; pass connection_id only where its line shows one."
	fetchHintQuoted = "To fetch, pass an id exactly as shown (a quoted id is a JSON string: pass its decoded value); pass connection_id only where its line shows one."
	ellipsis        = "…"
	idKey           = ". id="
	connectionKey   = " connection_id="
)

// minLine is the fewest bytes a hit line takes with its line break:
// "1. id=x\n". No more than budget/minLine hits can be shown.
const minLine = 8

// minShare is the smallest room, in bytes of a quoted value, worth
// giving a field that must be cut: less shows a stub.
const minShare = 24

// maxLevelFields is how many fields of each kind plan remembers the size
// of to share room fairly; fields beyond are assumed to need their cap.
const maxLevelFields = 64

// The kinds of free text, in the order they give up room: snippets first,
// then titles, then labels.
const (
	kindLabel = iota
	kindTitle
	kindSnippet
	nKinds
)

// fields are the free-text fields of a hit line, in the order shown.
var fields = [...]struct {
	key  string // the separator, the key and the opening quote
	kind int
}{
	{` stream="`, kindLabel},
	{` connector_key="`, kindLabel},
	{` display_name="`, kindLabel},
	{` title="`, kindTitle},
	{` snippet="`, kindSnippet},
}

// fieldText returns the text of field f of h, or "" when it is not shown:
// a title equal to the id says nothing new.
func fieldText(h *Hit, f int) string {
	switch f {
	case 0:
		return h.Stream
	case 1:
		return h.ConnectorKey
	case 2:
		return h.DisplayName
	case 3:
		if h.Title == h.ID {
			return ""
		}
		return h.Title
	}
	return h.Snippet
}

// RenderPreview returns the model-visible text of a search result: a
// header, one line per shown hit, the fetch instruction and the count of
// hits not shown, in at most opts.Budget bytes. Ids are shown complete or
// not at all, and free text is quoted so that it cannot forge a line or an
// id; the layout and the rules are in the package documentation.
// [ExtractIDs] reads the shown ids back.
//
// The cost depends on the budget and MaxHits, not on len(hits): hits
// beyond the first MaxHits are only counted.
func RenderPreview(hits []Hit, opts PreviewOptions) string {
	p := newPreview(hits, opts)
	if p.budget <= 0 {
		return ""
	}
	var stack [2048]byte
	buf := stack[:0]
	if n := p.size(); n > len(stack) {
		buf = make([]byte, 0, n)
	}
	return string(p.append(buf))
}

// AppendPreview appends the text [RenderPreview] returns to dst and
// returns the extended buffer. It never writes more than opts.Budget
// bytes, and it does not allocate when dst has room for them.
func AppendPreview(dst []byte, hits []Hit, opts PreviewOptions) []byte {
	p := newPreview(hits, opts)
	if p.budget <= 0 {
		return dst
	}
	return p.append(dst)
}

// preview is the plan of a preview: which hits fit, and how the room left
// by the fixed text and the id lines goes to free text. It is computed in
// one pass over the window, and the same selection is replayed while
// writing, so that no more than the sizes of a bounded number of fields is
// stored.
type preview struct {
	window  []Hit // the hits looked at: a prefix of the input
	budget  int
	total   int // hits in the whole result, at least len(hits)
	passed  int // len(hits): the hits a server puts in its structured results
	hasMore bool
	caps    [nKinds]int // the cap of each kind of field; -1 hides it

	sel selection // the selection after the planning pass
	all bool      // every hit is shown, so no line counts hits left out

	// full is the number of kinds shown uncut, in the order labels,
	// titles, snippets; kind full (if any) shares room and the kinds
	// after it are hidden.
	full  int
	room  int // bytes the shared kind may use
	items int // non-empty fields of the shared kind in shown hits
	// level is the most bytes each field of the shared kind may take so
	// that all of them fit in room, or 0 when that is too little to be
	// useful and the fields take room in order instead.
	level int
	need  int // bytes the preview writes at most

	// sizes holds the bytes that the first fields of each kind take
	// uncut or at their cap.
	sizes [nKinds][maxLevelFields]int32
}

// selection is the state of the greedy choice of hits: a hit is shown when
// its id line fits beside the ones already chosen, the header and the
// footer, all at their final length.
type selection struct {
	shown  int
	quoted bool // some shown id is quoted, which the fetch hint explains
	lines  int  // bytes of the shown id lines, with their line breaks
}

// idLine is the measure of a hit's mandatory line.
type idLine struct {
	n        int  // bytes without the line break
	bareID   bool // the id is shown bare
	bareConn bool // the connection id is shown bare
	conn     bool // connection_id is shown
}

func newPreview(hits []Hit, opts PreviewOptions) preview {
	p := preview{budget: opts.Budget, hasMore: opts.HasMore}
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
	p.window = hits[:min(len(hits), maxHits, p.budget/minLine)]
	p.passed = len(hits)
	p.total = max(len(hits), opts.Total)
	for k, c := range [nKinds]int{opts.LabelMax, opts.TitleMax, opts.SnippetMax} {
		switch {
		case c == 0:
			c = [nKinds]int{defaultLabelMax, defaultTitleMax, defaultSnippetMax}[k]
		case c < 0:
			c = -1
		}
		p.caps[k] = c
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
		for f, fd := range fields {
			c := p.caps[fd.kind]
			s := fieldText(h, f)
			if s == "" || c < 0 {
				continue
			}
			// What the field takes at most: uncut if it fits its cap,
			// else its cap.
			size := len(fd.key) - 1 + min(c, quotedLen(s, c, &textEscapes))
			if n := count[fd.kind]; n < maxLevelFields {
				p.sizes[fd.kind][n] = int32(min(size, 1<<31-1))
			}
			sum[fd.kind] += size
			count[fd.kind]++
		}
	}
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

// levelFor returns the largest size L such that the fields of kind k, each
// cut to at most L bytes, fit in p.room, when L leaves every cut field of
// that kind at least minShare bytes of quoted value; else 0.
func (p *preview) levelFor(k int) int {
	longest := 0 // the longest key of kind k, without its quote
	for _, fd := range fields {
		if fd.kind == k {
			longest = max(longest, len(fd.key)-1)
		}
	}
	most := longest + p.caps[k] // what a field beyond sizes may take
	used := func(level int) int {
		n := 0
		for _, size := range p.sizes[k][:min(p.items, maxLevelFields)] {
			n += min(int(size), level)
		}
		return n + max(0, p.items-maxLevelFields)*min(most, level)
	}
	lo, hi := 0, min(most, p.room)
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if used(mid) <= p.room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo < longest+minShare {
		return 0
	}
	return lo
}

// size returns an upper bound of the bytes the preview writes.
func (p *preview) size() int { return min(p.budget, p.need) }

// fitsAll reports whether every hit is in the window and every id line
// fits. Then the text has no line counting hits not shown, which the
// greedy choice of next cannot foresee.
func (p *preview) fitsAll() bool {
	if p.hasMore || p.total > len(p.window) || p.total == 0 {
		return false
	}
	lines, quoted := 0, false
	for i := range p.window {
		l, ok := measureLine(i+1, &p.window[i], p.budget-lines)
		if !ok {
			return false
		}
		lines += l.n + 1
		quoted = quoted || !l.bareID
	}
	return p.fixed(len(p.window), quoted)+lines <= p.budget
}

// next measures the hit at index i of the window and reports whether it is
// shown; if so it adds the hit to s. Hits are chosen greedily, in order: a
// hit is shown when its id line fits beside those already chosen, with the
// header and the footer at the length they would then have, so that a
// later hit with a shorter id may still fit where an earlier one did not.
// When p.all, every hit is shown.
func (s *selection) next(p *preview, i int, h *Hit) (idLine, bool) {
	if p.all {
		l, _ := measureLine(i+1, h, p.budget)
		s.shown++
		s.quoted = s.quoted || !l.bareID
		s.lines += l.n + 1
		return l, true
	}
	room := p.budget - p.fixed(s.shown+1, s.quoted) - s.lines - 1
	l, ok := measureLine(i+1, h, room)
	if !ok {
		return l, false
	}
	quoted := s.quoted || !l.bareID
	if p.fixed(s.shown+1, quoted)+s.lines+l.n+1 > p.budget {
		return l, false
	}
	s.shown++
	s.quoted = quoted
	s.lines += l.n + 1
	return l, true
}

// measureLine measures the id line of h, numbered n, and reports whether
// it can be shown in room bytes: its id and connection id must be valid
// UTF-8. Nothing longer than room is read.
func measureLine(n int, h *Hit, room int) (idLine, bool) {
	l := idLine{n: digits(n) + len(idKey)}
	id, bare, ok := measureID(h.ID, room-l.n)
	if !ok {
		return l, false
	}
	l.n += id
	l.bareID = bare
	if h.ConnectionID != "" {
		if hd, f := parse(h.ID); f.fault != faultNone || !hd.IsSelfContained() {
			l.conn = true
			c, bare, ok := measureID(h.ConnectionID, room-l.n-len(connectionKey))
			if !ok {
				return l, false
			}
			l.n += len(connectionKey) + c
			l.bareConn = bare
		}
	}
	return l, l.n <= room
}

// measureID returns the bytes id takes when shown and whether it is shown
// bare: when it is not empty and every rune is printable and not a space,
// '"' or '\\'; else it is shown as a JSON string literal. It reports false
// when id is not valid UTF-8 or does not fit in room bytes, reading no
// more than about room bytes of it.
func measureID(id string, room int) (n int, bare, ok bool) {
	if len(id) > room || !utf8.ValidString(id) {
		return 0, false, false
	}
	// A bare id takes len(id) bytes and its literal two more: count up to
	// room+2, so that a bare id that just fills the room fits.
	n = quotedLen(id, min(room, math.MaxInt-2)+2, &idEscapes)
	if n == len(id)+2 && id != "" && strings.IndexByte(id, ' ') < 0 {
		return len(id), true, true
	}
	if n > room {
		return 0, false, false
	}
	return n, false, true
}

// fixed returns the bytes of the text without hit lines: the header, the
// fetch hint when hits are shown, and the count of hits not shown, each
// with its line break but the last.
func (p *preview) fixed(shown int, quoted bool) int {
	var buf [96]byte
	n := len(p.appendHeader(buf[:0], shown))
	if shown > 0 {
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
// are.
func (p *preview) hasFooter(shown int) bool { return p.hasMore || p.total > shown }

// append writes the preview to dst.
func (p *preview) append(dst []byte) []byte {
	if p.sel.shown == 0 {
		// No hit fits: the header and the count, or the header alone, or
		// nothing.
		var buf [96]byte
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
	var sel selection
	room, items := p.room, p.items
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
		for f, fd := range fields {
			c := p.caps[fd.kind]
			s := fieldText(h, f)
			if s == "" || c < 0 || fd.kind > p.full {
				continue
			}
			limit := len(fd.key) - 1 + c
			if fd.kind < p.full {
				dst = appendText(dst, fd.key, s, limit, 0)
				continue
			}
			// The shared kind. Each field takes at most the level, plus
			// what the fields before it left unused as far as the fields
			// after it can still have the level. Without a level, the
			// fields take the room in order: the first hits keep useful
			// text rather than every hit a stub, and a field cut to less
			// than minShare is left out.
			share := room
			if p.level > 0 {
				share = max(p.level, room-(items-1)*p.level)
			}
			n := len(dst)
			dst = appendText(dst, fd.key, s, min(limit, room, share), minShare)
			room -= len(dst) - n
			items--
		}
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
// many.
func (p *preview) appendHeader(b []byte, shown int) []byte {
	if p.total == 0 && !p.hasMore {
		return append(b, "No hits."...)
	}
	b = append(b, "Showing "...)
	b = strconv.AppendInt(b, int64(shown), 10)
	b = append(b, " of "...)
	if p.hasMore {
		b = append(b, "more than "...)
	}
	b = strconv.AppendInt(b, int64(p.total), 10)
	if p.total == 1 && !p.hasMore {
		return append(b, " hit."...)
	}
	return append(b, " hits."...)
}

// appendFooter appends the last line, which counts the hits not shown
// and says how many of them are in the structured results: those passed
// in but left out are, those beyond the hits passed in are not. It is
// written only when hasFooter.
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
		if rest == 1 && !p.hasMore {
			b = append(b, " hit not shown"...)
		} else {
			b = append(b, " hits not shown"...)
		}
	}
	switch {
	case inResults == rest && !p.hasMore:
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

// appendID appends an id or connection id: bare, or as a JSON string
// literal.
func appendID(dst []byte, id string, bare bool) []byte {
	if bare {
		return append(dst, id...)
	}
	dst = append(dst, '"')
	dst, _ = appendEscaped(dst, id, len(id)*12, &idEscapes)
	return append(dst, '"')
}

// appendText appends a free-text field: key, which ends with the opening
// quote, then s escaped and the closing quote, in at most limit bytes. When
// s does not fit, it is cut at the last normalization boundary that leaves
// room for "…", so that no UTF-8 sequence or combining sequence is split;
// when nothing of s fits, or the quoted value would have to be cut to fit
// in less than minCut bytes, nothing is appended.
func appendText(dst []byte, key, s string, limit, minCut int) []byte {
	room := limit - len(key) - 1
	if room <= 0 {
		return dst
	}
	mark := len(dst)
	dst = append(dst, key...)
	dst, n := appendEscaped(dst, s, room-len(ellipsis), &textEscapes)
	if n < len(s) {
		cut := len(dst)
		var m int
		dst, m = appendEscaped(dst, s[n:], room-(cut-mark-len(key)), &textEscapes)
		if n+m < len(s) {
			p := cutBoundary(s, n)
			if p == 0 || room+2 < minCut {
				return dst[:mark]
			}
			dst = append(dst[:cut-quotedLen(s[p:n], room, &textEscapes)+2], ellipsis...)
		}
	}
	return append(dst, '"')
}

// maxNonStarters is the longest run of combining runes that cutBoundary
// keeps with the rune they follow, as in norm's stream-safe text format,
// which breaks longer runs too.
const maxNonStarters = 30

// cutBoundary returns the last normalization boundary of s at or before
// n < len(s), where n is the start of a rune, or 0 when there is none: the
// last position, looking back from n, where the rune that starts there
// cannot combine with anything before it (norm's BoundaryBefore). So a cut
// there never splits a UTF-8 sequence or a combining sequence, e.g. "e"
// and U+0301, or Hangul jamo. Within a run of more than maxNonStarters
// combining runes it returns n.
func cutBoundary(s string, n int) int {
	i := n
	for range maxNonStarters + 2 {
		if norm.NFC.PropertiesString(s[i:]).BoundaryBefore() {
			return i
		}
		if i == 0 {
			return 0
		}
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return n
}

// Escape tables: for each byte, the bytes it takes inside a JSON string
// literal (1 when copied as it is), or 0 for a byte that starts a multibyte
// rune. Free text uses the short escapes \n, \r and \t; ids escape every
// control character as \u00XX.
var textEscapes, idEscapes = escapeTable(true), escapeTable(false)

func escapeTable(short bool) (t [256]uint8) {
	for c := range utf8.RuneSelf {
		switch {
		case c == '"' || c == '\\':
			t[c] = 2
		case short && (c == '\n' || c == '\r' || c == '\t'):
			t[c] = 2
		case c < 0x20 || c == 0x7f:
			t[c] = 6
		default:
			t[c] = 1
		}
	}
	return t
}

// quotedLen returns the length of s as a JSON string literal, quotes
// included, as appendEscaped writes it. It stops counting once the length
// exceeds limit, so that it reads at most about limit bytes of s.
func quotedLen(s string, limit int, esc *[256]uint8) int {
	n := 2
	for i := 0; i < len(s) && n <= limit; {
		c := s[i]
		if w := esc[c]; w != 0 {
			n += int(w)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeLen(r, size)
		i += size
	}
	return n
}

// runeLen returns the bytes that the non-ASCII rune r, read from size
// bytes, takes inside a JSON string literal.
func runeLen(r rune, size int) int {
	switch {
	case r == utf8.RuneError && size == 1:
		return 3 // U+FFFD
	case unicode.IsPrint(r):
		return size
	case r > 0xffff:
		return 12
	}
	return 6
}

// appendEscaped appends as much of s as fits in room bytes, escaped for a
// JSON string literal, and returns the number of bytes of s it consumed,
// always at the start of a rune. Printable runes are copied, invalid bytes
// become U+FFFD, and every other rune is escaped.
func appendEscaped(dst []byte, s string, room int, esc *[256]uint8) ([]byte, int) {
	i := 0
	for i < len(s) {
		c := s[i]
		w := int(esc[c])
		if w == 1 {
			// A run of bytes copied as they are.
			j, end := i+1, min(len(s), i+room)
			if end <= i {
				break
			}
			for j < end && esc[s[j]] == 1 {
				j++
			}
			dst = append(dst, s[i:j]...)
			room -= j - i
			i = j
			continue
		}
		if w != 0 {
			if w > room {
				break
			}
			room -= w
			i++
			switch {
			case w == 6:
				dst = appendU(dst, rune(c))
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			default: // '"' and '\\'
				dst = append(dst, '\\', c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		w = runeLen(r, size)
		if w > room {
			break
		}
		room -= w
		switch {
		case r == utf8.RuneError && size == 1:
			dst = utf8.AppendRune(dst, utf8.RuneError)
		case w == size:
			dst = append(dst, s[i:i+size]...)
		case r > 0xffff:
			r -= 0x10000
			dst = appendU(appendU(dst, 0xd800+r>>10), 0xdc00+r&0x3ff)
		default:
			dst = appendU(dst, r)
		}
		i += size
	}
	return dst, i
}

// appendU appends the escape \uXXXX of r <= 0xffff.
func appendU(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// ExtractIDs returns the ids of the hit lines of a text that
// [RenderPreview] wrote, in order and byte for byte: from every line that
// starts with a number followed by ". id=", the bare id up to the next
// space, or the decoded JSON string literal. Titles and snippets cannot
// add, hide or change an id, since they never hold a line break and come
// after the id. It returns nil when the text holds no id.
func ExtractIDs(text string) []string {
	var ids []string
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if id, ok := lineID(line); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// lineID returns the id of a hit line, or false when line is not one.
func lineID(line string) (string, bool) {
	i := 0
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	if i == 0 || !strings.HasPrefix(line[i:], idKey) {
		return "", false
	}
	rest := line[i+len(idKey):]
	if !strings.HasPrefix(rest, `"`) {
		if j := strings.IndexByte(rest, ' '); j >= 0 {
			rest = rest[:j]
		}
		return rest, true
	}
	return unquoteJSON(rest)
}

// unquoteJSON decodes the JSON string literal at the start of s, which
// starts with '"'.
func unquoteJSON(s string) (string, bool) {
	var b []byte
	for i := 1; i < len(s); {
		c := s[i]
		if c == '"' {
			return string(b), true
		}
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		e := s[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(s, i)
			if !ok || 0xdc00 <= r && r <= 0xdfff {
				return "", false
			}
			i += 4
			if 0xd800 <= r && r < 0xdc00 {
				// A high surrogate: the low one must follow.
				lo, ok := hex4(s, i+2)
				if !ok || s[i] != '\\' || s[i+1] != 'u' || lo < 0xdc00 || lo > 0xdfff {
					return "", false
				}
				r = 0x10000 + (r-0xd800)<<10 + (lo - 0xdc00)
				i += 6
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", false
		}
	}
	return "", false
}

// hex4 decodes the four hex digits of s at i.
func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
