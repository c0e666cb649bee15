package mcpid

import (
	"math"
	"strconv"
	"strings"

	"github.com/mcpid/mcpid/internal/weburl"
)

// Hit is one search result as [RenderPreview] shows it: its id, the
// connection it came from, and free text that helps the model choose.
// The text form leaves out empty fields; the JSON form always has a
// title and a url, possibly "".
type Hit struct {
	// ID is the id the model passes to fetch, shown complete or not at
	// all; typically [SelfContainedID] made it.
	ID string
	// ConnectionID is the connection the hit came from. The text form
	// shows it unless ID embeds this same connection: an id that embeds
	// it decides the fetch, and an id that embeds another one shows it so
	// that fetch reports the conflict instead of reading the wrong
	// connection. The JSON form never shows it.
	ConnectionID string
	// ConnectorKey, Stream and DisplayName are labels: the kind of
	// source, the stream and the source's name. Only the text form shows
	// them.
	ConnectorKey string
	Stream       string
	DisplayName  string
	// Title is the record's title. The text form leaves out a title equal
	// to ID; the JSON form always has one.
	Title string
	// Snippet is an excerpt of the record: the snippet of the text form,
	// the "text" of the JSON form.
	Snippet string
	// URL is where a person can open the record. Only the JSON form shows
	// it, and only when it is an absolute http or https URL (see
	// [FormatJSON]); the text form leaves it to the structured results,
	// so that its room goes to ids and text the model reads.
	URL string
}

// Format selects the shape of a preview. Use [FormatJSON] for ChatGPT and
// every other host that expects OpenAI's search/fetch contract, where the
// search tool answers with one text item holding JSON; use [FormatText]
// for hosts that show the text to a model as prose.
type Format uint8

// The formats of a preview.
const (
	// FormatText is a header, one numbered line per shown hit, the fetch
	// instruction and the count of hits not shown; [RenderPreview] pins
	// the layout. It is the zero value.
	FormatText Format = iota
	// FormatJSON is the one JSON object OpenAI's search/fetch contract
	// requires of a search tool's text:
	//
	//	{"results":[{"id":"…","title":"…","url":"…","text":"…"},…]}
	//
	// The object has no other key, and each result has exactly these keys
	// in this order: "id", complete and decoding to [Hit.ID] byte for
	// byte (every non-printable or invisible rune escaped as \uXXXX, as
	// in the text form); "title", the
	// title cut like the text form's (possibly ""); "url", [Hit.URL] when
	// it is an absolute http or https URL (the scheme in any case, a
	// host, no userinfo, only the characters RFC 3986 allows, '%' only
	// before two hex digits) that fits, never cut, else ""; and "text",
	// the snippet cut like the text form's, only when room remains for
	// some of it. A hit whose id cannot fit, or is not valid UTF-8, is
	// left out: the JSON form has no count of hits not shown, so a server
	// puts every hit in its structured results. Labels and connection ids
	// are not shown: use ids that embed their connection
	// ([SelfContainedID]). Room goes to the ids first, then the URLs,
	// then the titles, then the texts. A budget of less than 14 bytes,
	// too small for {"results":[]}, gives "".
	FormatJSON
)

// PreviewOptions configures [RenderPreview] and [AppendPreview]. The zero
// value means the defaults. A negative Budget or MaxHits means none: no
// text at all, or no hits. A negative field cap hides that field. Every
// value is safe: a cap larger than the budget means the budget, and a
// budget larger than any text can be (math.MaxInt>>8 bytes) means that.
type PreviewOptions struct {
	// Budget is the hard cap on the bytes of the text; 0 means 1800.
	Budget int
	// MaxHits is the most hits to show; 0 means 5. Only the first
	// MaxHits hits are looked at.
	MaxHits int
	// Total is the number of hits in the whole result, when it is more
	// than the hits passed in; a smaller value is ignored. The JSON form
	// does not use it.
	Total int
	// HasMore reports that the result has hits beyond Total (or beyond the
	// hits passed in). The JSON form does not use it.
	HasMore bool
	// LabelMax caps each label (stream, connector key, display name) in
	// bytes, counting its quotes and the … that marks a cut; 0 means 40.
	LabelMax int
	// TitleMax caps the title the same way; 0 means 100.
	TitleMax int
	// SnippetMax caps the snippet the same way; 0 means 200.
	SnippetMax int
	// Format is the shape of the text: FormatText (the zero value) or
	// FormatJSON; any other value means FormatText.
	Format Format
}

// The defaults of PreviewOptions: what a zero Budget and a zero MaxHits
// mean.
const (
	DefaultBudget  = 1800
	DefaultMaxHits = 5
)

// The defaults of the field caps of PreviewOptions.
const (
	defaultBudget     = DefaultBudget
	defaultMaxHits    = DefaultMaxHits
	defaultLabelMax   = 40
	defaultTitleMax   = 100
	defaultSnippetMax = 200
)

// maxBudget is the largest budget a preview uses: no text comes near it,
// and below it no sum of lengths overflows an int.
const maxBudget = math.MaxInt >> 8

// The fixed text of a preview.
const (
	fetchHint       = "To fetch, pass an id exactly as shown; pass connection_id only where its line shows one."
	fetchHintQuoted = "To fetch, pass an id exactly as shown (a quoted id is a JSON string: pass its decoded value); pass connection_id only where its line shows one."
	idKey           = ". id="
	connectionKey   = " connection_id="
	jsonOpen        = `{"results":[`
	jsonClose       = `]}`
	jsonIDKey       = `{"id":`
)

// jsonSkeleton is the bytes of a JSON result besides its quoted id:
// `,"title":""`, `,"url":""` and the closing brace.
const jsonSkeleton = len(jsonIDKey) + len(`,"title":"","url":""}`)

// The fewest bytes a hit takes with its separator: "1. id=x\n" in the
// text form, {"id":"","title":"","url":""}, in the JSON form. No more
// than budget/minLine hits can be shown.
const (
	minLine     = 8
	minJSONLine = jsonSkeleton + 2 + 1
)

// stackPreview is the size of the buffer RenderPreview renders into on
// the stack: room for a preview of the default budget, so that only a
// larger budget costs an allocation besides the string.
const stackPreview = 2048

// maxCountLine bounds the header and the line that counts hits not shown:
// fixed words around at most two decimal ints (103 bytes), so that they
// are measured on the stack.
const maxCountLine = 128

// minShare is the smallest room, in bytes of a quoted value, worth
// giving a field that must be cut: less shows a stub.
const minShare = 24

// maxLevelFields is how many fields of each kind plan remembers the size
// of to share room fairly; fields beyond are assumed to need their cap.
const maxLevelFields = 64

// The kinds of free text, in the order they give up room: the last kind
// first. The text form's labels and the JSON form's URLs share the first.
const (
	kindLabel = iota
	kindTitle
	kindSnippet
	nKinds
)

// The values of a Hit that a field shows.
const (
	valStream = iota
	valConnectorKey
	valDisplayName
	valTitle
	valSnippet
	valURL
)

// field is a free-text field of a hit, in the order a format shows them.
type field struct {
	val  int    // which value of the Hit
	kind int    // which kind of room it takes
	key  string // written before the value; ends with the opening quote
	// over is the bytes the field adds besides its value: its key and
	// closing quote, or 0 for a field always written, whose key and
	// quotes belong to the hit's mandatory text.
	over  int
	whole bool // shown whole or not at all
}

// always reports whether the field is written even without a value.
func (fd *field) always() bool { return fd.over == 0 }

// optional returns a field written only when it has a value.
func optional(val, kind int, key string) field {
	return field{val: val, kind: kind, key: key, over: len(key) + 1}
}

var (
	textFields = []field{
		optional(valStream, kindLabel, ` stream="`),
		optional(valConnectorKey, kindLabel, ` connector_key="`),
		optional(valDisplayName, kindLabel, ` display_name="`),
		optional(valTitle, kindTitle, ` title="`),
		optional(valSnippet, kindSnippet, ` snippet="`),
	}
	jsonFields = []field{
		{val: valTitle, kind: kindTitle, key: `,"title":"`},
		{val: valURL, kind: kindLabel, key: `,"url":"`, whole: true},
		optional(valSnippet, kindSnippet, `,"text":"`),
	}
)

// RenderPreview returns the model-visible text of a search result in at
// most opts.Budget bytes, in the format opts.Format: [FormatJSON] is one
// JSON object, as that constant describes; [FormatText] is the layout
// below, which clients and models read, so it is fixed. [ExtractIDs]
// reads the shown ids back from either.
//
// The text form looks like this:
//
//	Showing 3 of 12 hits.
//	1. id=cin_4f2a/orders:o1 stream="orders" connector_key="postgres" display_name="Prod DB" title="Order o1" snippet="3 items, shipped to Berlin."
//	2. id=cin_9b1c/:T-17 stream="tickets" connector_key="zendesk" display_name="Support" title="Refund for o1" snippet="The customer writes:\n\"2. id=evil\""
//	3. id=https://wiki.example.com/p/7 connection_id=eu:wiki stream="pages" connector_key="confluence" display_name="Wiki" title="Refund runbook"
//	To fetch, pass an id exactly as shown; pass connection_id only where its line shows one.
//	9 hits not shown; none of them in structuredContent.results.
//
// Lines are separated by '\n' alone, with no line break after the last one;
// the text holds no other control character, and no U+2028 or U+2029. The
// lines are, in order:
//
//   - The header: "Showing k of n hits." where n is the larger of
//     opts.Total and len(hits), or "Showing k of more than n hits." when
//     opts.HasMore; "No hits." when there are none. It is short, so the
//     first id starts well within the first 200 bytes, before any host
//     clips the text.
//   - One line per shown hit: "<n>. id=<id>", then " connection_id=<c>"
//     when the line shows one, then the labels stream, connector_key and
//     display_name, the title and the snippet, each as key="value" and only
//     when not empty. n is the hit's position in hits, counting from 1, so
//     a gap in the numbers marks a hit left out. The title is not shown
//     when it equals the id.
//   - When a hit is shown, the fetch instruction: pass the id exactly as
//     shown, and connection_id only where the line shows one. When a shown
//     id is quoted, it adds that a quoted id is a JSON string whose decoded
//     value is the id.
//   - When some hits are not shown, how many ("9 hits not shown", or "More
//     than 9 hits not shown" when HasMore), and how many of them are in
//     structuredContent.results, where a server puts every hit it passed
//     in: "see structuredContent.results" when all of them are, "3 of
//     them in structuredContent.results" when only some are, and "none of
//     them in structuredContent.results" when every hit passed in is
//     shown. Hits counted by Total or HasMore but not passed in are never
//     in the structured results of this call.
//
// connection_id is shown for a hit with a ConnectionID that its id does not
// embed, as [Parse] reads and decodes the id, and only then. An id that embeds the same
// connection decides the fetch alone (see [ResolveFetch]); an id that embeds
// a different one shows the hit's own too, so that the fetch fails with
// conflicting_connection_id instead of silently reading the wrong
// connection.
//
// An id is shown complete or not at all. It is shown bare when it is not
// empty and every rune is printable ([unicode.IsPrint]), visible (not a
// default-ignorable code point such as U+034F or a Hangul filler, not a
// variation selector, not U+2800) and is not a space, '"' or '\';
// otherwise it is shown as a JSON string literal, with '"' and '\' escaped
// and every other such rune escaped as \uXXXX (a surrogate pair above
// U+FFFF), so that the id is never altered and two different ids never
// look the same: "" for the empty id, "docs:Q3 report.pdf" for an id with
// a space.
// Connection ids are shown the same way. An id or connection id that is
// not valid UTF-8 cannot be shown faithfully: its hit is left out and
// counted. The preview does not judge whether an id can be fetched: URLs
// and other opaque ids are shown as they are; minting fetchable handles is
// [SelfContainedID]'s job.
//
// Labels, titles and snippets are always JSON string literals: '"', '\',
// control characters (as \n, \r, \t or \u00XX), U+0085, U+2028, U+2029 and
// every other non-printable rune are escaped, and bytes that are not valid
// UTF-8 become U+FFFD. A title that holds "\n2. id=evil" therefore stays
// inside its quotes on its own line and can neither add a line nor an id.
// A value that does not fit is cut and the cut is marked with "…" inside
// the quotes. The cut is made once per value, at the last normalization
// boundary (golang.org/x/text/unicode/norm) before the room runs out: it
// never splits a UTF-8 sequence or a combining sequence such as "e" and
// U+0301, except inside a run of more than 30 combining marks, which
// norm's stream-safe format breaks too.
//
// The budget is a hard cap: room goes, in order of priority, to
//
//  1. the header, and the count of hits not shown;
//  2. the id lines (number, id, connection_id) of the first MaxHits hits,
//     with the fetch instruction: a hit whose id line does not fit is left
//     out and counted, and a later, shorter one may take its place;
//  3. labels, then titles, then snippets, each cut to its cap.
//
// So free text shrinks before hits are left out: snippets first, then
// titles, then labels. The kind of text that does not fit whole shares the
// room left: each value is cut to the same length (shorter values stay
// whole), unless that length is too short to be useful, and then the first
// hits keep their text and later ones lose it; a shared value that would be
// cut to a stub is left out. A budget too small for one id line gives the
// header and the count, or the header alone, or "". For example, a search
// that returns 200 hits from two connections, each with a 500-character
// snippet, and passes the first 100 with Total 200, gets a preview of 1800
// bytes with the default options: 5 complete ids, each with its labels,
// its title and a snippet cut to about 182 bytes, and the line "195 hits
// not shown; 95 of them in structuredContent.results.".
//
// The cost depends on the budget, not on len(hits) or on the length of
// the fields: hits beyond the first MaxHits are only counted, no more
// than the budget allows are looked at, and a field is read no further
// than the room it may take.
func RenderPreview(hits []Hit, opts PreviewOptions) string {
	p := newPreview(hits, opts)
	if p.budget <= 0 {
		return ""
	}
	var stack [stackPreview]byte
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
// by the fixed text and the mandatory part of each hit goes to free text.
// It is computed in one pass over the window, and the same selection is
// replayed while writing, so that no more than the sizes of a bounded
// number of fields is stored.
type preview struct {
	window  []Hit // the hits looked at: a prefix of the input
	format  Format
	fields  []field
	budget  int
	total   int // hits in the whole result, at least len(hits)
	passed  int // len(hits): the hits a server puts in its structured results
	hasMore bool
	caps    [nKinds]int // the cap of each kind of field, at most budget; -1 hides it

	sel selection // the selection after the planning pass
	all bool      // every hit is shown, so no line counts hits left out

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
}

// selection is the state of the greedy choice of hits: a hit is shown when
// its mandatory text fits beside the hits already chosen and the fixed
// text, all at their final length.
type selection struct {
	shown   int
	quoted  bool // some shown id is quoted, which the fetch hint explains
	lines   int  // bytes of the shown hits' mandatory text, with separators
	scanned int  // bytes of ids and connection ids measured
}

// idLine is the measure of a hit's mandatory text: the id line of the
// text form, the result without free text of the JSON form.
type idLine struct {
	n        int  // bytes without the separator
	bareID   bool // the id is shown bare
	bareConn bool // the connection id is shown bare
	conn     bool // connection_id is shown
}

func newPreview(hits []Hit, opts PreviewOptions) preview {
	p := preview{budget: min(opts.Budget, maxBudget), hasMore: opts.HasMore}
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
	caps := [nKinds]int{opts.LabelMax, opts.TitleMax, opts.SnippetMax}
	defaults := [nKinds]int{defaultLabelMax, defaultTitleMax, defaultSnippetMax}
	line := minLine
	p.fields = textFields
	if p.format == FormatJSON {
		if p.budget < len(jsonOpen+jsonClose) {
			p.budget = -1
			return p
		}
		line = minJSONLine
		p.fields = jsonFields
		caps[kindLabel] = p.budget // URLs have no cap but the budget
		opts.Total, p.hasMore = 0, false
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

// value returns the value field val of h shows, or "" when it shows none:
// a title equal to the id says nothing new in the text form, and a URL is
// shown only when it is an absolute http or https URL that fits room, the
// most its field could take (see url).
func (p *preview) value(h *Hit, val, room int) string {
	switch val {
	case valStream:
		return h.Stream
	case valConnectorKey:
		return h.ConnectorKey
	case valDisplayName:
		return h.DisplayName
	case valTitle:
		if p.format == FormatText && len(h.Title) == len(h.ID) {
			p.read += len(h.ID)
			if h.Title == h.ID {
				return ""
			}
		}
		return h.Title
	case valSnippet:
		return h.Snippet
	}
	u, _ := p.url(h.URL, room)
	return u
}

// url returns u when it is an absolute http or https URL that fits room,
// and reports whether it examined u. It examines u only when u fits room
// and p.urlRoom, and takes the bytes of a u it finds invalid out of
// p.urlRoom, so that examining URLs costs no more than the budget however
// many hits hold long ones.
func (p *preview) url(u string, room int) (string, bool) {
	if len(u) > min(room, p.urlRoom) {
		return "", false
	}
	p.read += len(u)
	if !weburl.Valid(u) {
		p.urlRoom -= len(u)
		return "", true
	}
	return u, true
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
	p.urlLeft = sum[kindLabel]
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
	q, read, _ := quotedLen(s, c, &textEscapes)
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
// and every id line fits. Then the text has no line counting hits not
// shown, which the greedy choice of next cannot foresee.
func (p *preview) fitsAll() bool {
	if p.format != FormatText || p.hasMore || p.total > len(p.window) || p.total == 0 {
		return false
	}
	lines, quoted := 0, false
	for i := range p.window {
		l, ok := p.measure(i+1, &p.window[i], p.budget-lines)
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
// hit is shown when its mandatory text fits beside that of those already
// chosen, with the fixed text at the length it would then have, so that a
// later hit with a shorter id may still fit where an earlier one did not.
// Once the ids measured add up to twice the budget, no further hit is
// looked at: ids that do not fit cannot make the cost grow past the
// budget. When p.all, every hit is shown.
func (s *selection) next(p *preview, i int, h *Hit) (idLine, bool) {
	if p.all {
		l, _ := p.measure(i+1, h, p.budget)
		s.shown++
		s.quoted = s.quoted || !l.bareID
		s.lines += l.n + 1
		return l, true
	}
	if s.scanned > 2*p.budget {
		return idLine{}, false
	}
	fixed := p.fixed(s.shown+1, s.quoted)
	scan := p.scan
	l, ok := p.measure(i+1, h, p.budget-fixed-s.lines-1)
	s.scanned += p.scan - scan
	if !ok {
		return l, false
	}
	quoted := s.quoted || !l.bareID
	if quoted != s.quoted {
		fixed = p.fixed(s.shown+1, quoted)
	}
	if fixed+s.lines+l.n+1 > p.budget {
		return l, false
	}
	s.shown++
	s.quoted = quoted
	s.lines += l.n + 1
	return l, true
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
	if p.format == FormatJSON {
		return p.appendJSON(dst)
	}
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
	var sel selection
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
		dst = p.appendFields(dst, h, &sh)
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

// appendJSON writes the JSON form to dst.
func (p *preview) appendJSON(dst []byte) []byte {
	p.urlRoom = p.budget
	dst = append(dst, jsonOpen...)
	var sel selection
	sh := share{room: p.room, items: p.items}
	for i := range p.window {
		h := &p.window[i]
		if _, ok := sel.next(p, i, h); !ok {
			continue
		}
		if sel.shown > 1 {
			dst = append(dst, ',')
		}
		dst = append(dst, jsonIDKey...)
		dst = appendQuotedID(dst, h.ID)
		dst = p.appendFields(dst, h, &sh)
		dst = append(dst, '}')
	}
	return append(dst, jsonClose...)
}

// share is the room left to the shared kind while writing, and the
// number of its fields still to write.
type share struct{ room, items int }

// appendFields writes the free-text fields of h.
func (p *preview) appendFields(dst []byte, h *Hit, sh *share) []byte {
	for _, fd := range p.fields {
		k := fd.kind
		s := ""
		if p.caps[k] >= 0 && k <= p.full {
			room := p.urlLeft - fd.over
			if k == p.full {
				limit, _ := p.fieldLimit(&fd, sh)
				room = limit - fd.over
			}
			s = p.value(h, fd.val, room)
			if fd.val == valURL && k < p.full {
				p.urlLeft -= fd.over + len(s)
			}
		}
		switch {
		case fd.always():
			dst = append(dst, fd.key...)
			if s != "" {
				dst = p.appendValue(dst, &fd, s, sh)
			}
			dst = append(dst, '"')
		case s != "":
			dst = p.appendValue(dst, &fd, s, sh)
		}
	}
	return dst
}

// appendValue writes a field with value s: for an optional field its key,
// the value and the closing quote, or nothing; for a field always
// written, the value alone. The value is uncut when its kind is shown
// uncut, else cut to the room the shared kind gives it. Each field takes
// at most the level, plus what the fields before it left unused as far as
// the fields after it can still have the level. Without a level, the
// fields take the room in order: the first hits keep useful text rather
// than every hit a stub, and a field cut to less than minShare is left
// out. Nothing is written past the field's room, even for a moment.
func (p *preview) appendValue(dst []byte, fd *field, s string, sh *share) []byte {
	limit, minCut := p.fieldLimit(fd, sh)
	mark, read := len(dst), 0
	if limit-fd.over > 0 {
		if !fd.always() {
			dst = append(dst, fd.key...)
		}
		n := len(dst)
		if fd.whole {
			if fd.over+len(s) <= limit {
				dst = append(dst, s...)
				read = len(s)
			}
		} else {
			dst, read = appendCut(dst, s, limit-fd.over, minCut)
		}
		switch {
		case len(dst) == n:
			dst = dst[:mark]
		case !fd.always():
			dst = append(dst, '"')
		}
	}
	p.read += read
	if fd.kind == p.full {
		// A value read and then left out (no boundary to cut at, or a
		// stub) costs the room it read, so that such values cannot make
		// the cost grow past the budget.
		sh.items--
		if len(dst) > mark {
			sh.room -= len(dst) - mark
		} else {
			sh.room -= min(sh.room, read)
		}
	}
	return dst
}

// fieldLimit returns the most bytes the field may take with its key and
// quotes, and the least a cut value may take, as appendValue writes it.
func (p *preview) fieldLimit(fd *field, sh *share) (limit, minCut int) {
	limit = fd.over + p.caps[fd.kind] - 2 // the field at its cap
	if fd.kind == p.full {
		room := sh.room
		if p.level > 0 {
			room = max(p.level, sh.room-mulSat(sh.items-1, p.level))
		}
		limit = min(limit, sh.room, room)
		minCut = minShare
	}
	return limit, minCut
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

// appendID appends an id or connection id of the text form: bare, or as
// a JSON string literal.
func appendID(dst []byte, id string, bare bool) []byte {
	if bare {
		return append(dst, id...)
	}
	return appendQuotedID(dst, id)
}
