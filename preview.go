package mcpid

import "math"

// Hit is one search result as [RenderPreview] shows it. It has its id, the
// connection it came from, and free text that helps the model choose. The
// text form leaves out empty fields; the JSON form always has a title and a
// url, possibly "".
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
	// URL is where a person can open the record; hosts turn it into a
	// citation. Both forms show it only when it is an absolute http or
	// https URL (see [FormatJSON]), whole or not at all: a URL that does
	// not fit is left out and its hit stays.
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
	// byte (the runes that [RenderPreview] escapes in a quoted id escaped
	// as \uXXXX here too); "title", the
	// title cut like the text form's (possibly ""); "url", [Hit.URL] when
	// it is an absolute http or https URL (the scheme in any case, a
	// host, no userinfo, only the characters RFC 3986 allows, '%' only
	// before two hex digits) that fits, never cut, else ""; and "text",
	// the snippet cut like the text form's, only when room remains for
	// some of it. Free text is escaped as in the text form, but for
	// U+2028 and U+2029, written as they are, as '<', '>' and '&' are:
	// JSON needs no escape for them. A hit whose id cannot fit, or is not valid UTF-8, is
	// left out: the JSON form has no count of hits not shown, so a server
	// puts every hit in its structured results. Labels and connection ids
	// are not shown: use ids that embed their connection
	// ([SelfContainedID]). Room goes to the ids and the first words of
	// each title first (as in the text form, fewer results rather than
	// results without titles), then the titles, then the URLs, then the
	// texts. A budget of less than 14 bytes,
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
	// MaxHits is the most hits to show; 0 means 8. Only the first
	// MaxHits hits are looked at. Raising it never leaves the hits shown
	// without their titles: each keeps at least its title's first words
	// (see RenderPreview), and fewer hits are shown instead.
	MaxHits int
	// Total is the number of hits in the whole result, when it is more
	// than the hits passed in; a smaller value is ignored. The JSON form
	// does not use it.
	Total int
	// HasMore reports that the result has hits beyond Total (or beyond the
	// hits passed in). The JSON form does not use it.
	HasMore bool
	// MaxLabel caps each label (stream, connector key, display name) in
	// bytes, counting its quotes and the … that marks a cut; 0 means 40.
	MaxLabel int
	// MaxTitle caps the title the same way; 0 means 100.
	MaxTitle int
	// MaxSnippet caps the snippet the same way; 0 means 120.
	MaxSnippet int
	// Format is the shape of the text: FormatText (the zero value) or
	// FormatJSON; any other value means FormatText.
	Format Format
}

// The defaults of PreviewOptions: what a zero Budget and a zero MaxHits
// mean. At the default budget, eight hits with their titles and a
// snippet each cost a model about 60 o200k tokens per id shown, header
// and footer included (at most 75: every token is context a model pays; the test
// TestPreviewTokensPerID measures it): the fixed text is shared by more
// ids, and room goes to ids and titles before long snippets.
const (
	DefaultBudget  = 1800
	DefaultMaxHits = 8
)

// The defaults of the field caps of PreviewOptions. A snippet of 120
// bytes is two sentences: enough to choose a hit by, while the record
// itself is one fetch away.
const (
	defaultBudget     = DefaultBudget
	defaultMaxHits    = DefaultMaxHits
	defaultMaxLabel   = 40
	defaultMaxTitle   = 100
	defaultMaxSnippet = 120
)

// maxBudget is the largest budget a preview uses: no text comes near it,
// and below it no sum of lengths overflows an int.
const maxBudget = math.MaxInt >> 8

// stackPreview is the size of the buffer RenderPreview renders into on
// the stack: room for a preview of the default budget, so that only a
// larger budget costs an allocation besides the string.
const stackPreview = 2048

// RenderPreview returns the model-visible text of a search result. It takes
// at most opts.Budget bytes, in the format opts.Format: [FormatJSON] is one
// JSON object, as that constant describes; [FormatText] is the layout
// below, which clients and models read, so it is fixed. [ExtractIDs] reads
// the shown ids back from either.
//
// The text form looks like this:
//
//	Showing 3 of 12 hits.
//	1. id=cin_4f2a/orders:o1 stream="orders" connector_key="postgres" display_name="Prod DB" title="Order o1" url=https://shop.example.com/o/1 snippet="3 items, shipped to Berlin."
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
//     display_name, the title, the URL and the snippet, each only when not
//     empty: the URL as url=<url>, bare and whole (an absolute http or
//     https URL as [FormatJSON] describes it holds no space, quote or
//     backslash), the others as key="value". n is the hit's position in
//     hits, counting from 1, so a gap in the numbers marks a hit left out.
//     The title is not shown when it equals the id.
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
// empty, every rune is printable ([unicode.IsPrint]), visible (not a
// default-ignorable code point such as U+034F or a Hangul filler, not a
// variation selector, not U+2800) and is not a space, '"' or '\', the id
// is in NFC, every rune is its own NFKC form (no fullwidth form, ligature,
// mathematical letter, Roman numeral, superscript, circled number or
// halfwidth katakana), no rune above ASCII that is not a decimal digit and
// is a punctuation mark or a symbol or of the Latin, Common or Inherited
// script has an ASCII confusable prototype in the sense of UTS #39 (the
// division slash ∕, the fraction slash ⁄, hyphens and the minus sign, the
// ratio colon, the dental click ǀ, the dotless ı), no word (a maximal run
// of letters and combining marks) mixes two of Latin, Cyrillic, Greek and
// the other scripts that have letters looking like Latin ones, and no word
// of such a script other than Latin is made only of letters that look
// like Latin ones (a whole-script confusable). Otherwise it is shown as a
// JSON string literal, with '"' and '\' escaped and every rune that breaks
// the rule escaped as \uXXXX (a surrogate pair above U+FFFF): the
// invisible and non-printable runes; in an id not in NFC, the combining
// marks and the runes NFC would change, such as the Kelvin sign; the
// compatibility characters and the signs; in a mixed word, its letters of
// those scripts but Latin; in a whole-script look-alike, its look-alike
// letters. So the id is never altered and two different ids never look
// the same by these classes: "" for the empty id, "docs:Q3 report.pdf"
// for an id with a space, "s:e\u0301" beside s:é, "c\u2215s:r" beside
// c/s:r, "\ufb01le" beside file, "site:p\u0430ypal" beside site:paypal.
// Ids wholly in scripts without Latin look-alikes (docs:日本,
// docs:한국어), Latin mixed with Han, kana or Hangul, digits of any script
// (ar:١٠), and a word with a letter of its script that has no Latin
// look-alike (ru:жара) stay bare. Look-alikes made only of ASCII (l, I
// and 1) are not covered. An all-ASCII id is judged by its bytes alone,
// at no extra cost.
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
//     with the fetch instruction, and for each the first words of its
//     title (24 bytes of it, or all of a shorter title): a hit whose id
//     line and title's first words do not fit is left out and counted,
//     and a later, shorter one may take its place;
//  3. titles, then URLs (whole or not at all, in order of the hits), then
//     labels, then snippets, each cut to its cap.
//
// So a raised MaxHits shows fewer hits, each with something to choose it
// by, rather than more ids with none; but the first hit is shown whenever
// its id line fits, with as much of its title as the room leaves. Free
// text shrinks before hits are left out: snippets first, then labels,
// then URLs, then titles, which keep their first words. The kind of text that does
// not fit whole shares the
// room left: each value is cut to the same length (shorter values stay
// whole), unless that length is too short to be useful, and then the first
// hits keep their text and later ones lose it; a shared value that would be
// cut to a stub is left out. A budget too small for one id line gives the
// header and the count, or the header alone, or "". For example, a search
// that returns 200 hits from two connections, each with a 500-character
// snippet, and passes the first 100 with Total 200, gets a preview of 1800
// bytes with the default options: 8 complete ids, each with its labels,
// its title and a snippet cut to about 60 bytes, and the line "192 hits
// not shown; 92 of them in structuredContent.results.": 63 o200k tokens
// per id shown.
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

// append writes the preview to dst in its format.
func (p *preview) append(dst []byte) []byte {
	if p.format == FormatJSON {
		return p.appendJSON(dst)
	}
	return p.appendText(dst)
}
