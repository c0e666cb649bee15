package mcpid

import (
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpid/mcpid/internal/lookalike"
)

// ellipsis marks a value that was cut.
const ellipsis = "…"

// Escape tables: for each byte, the bytes it takes inside a JSON string
// literal (1 when copied as it is), or 0 for a byte that starts a multibyte
// rune. Free text uses the short escapes \n, \r and \t; ids escape every
// control character as \u00XX. Free text of the JSON form
// (jsonTextEscapes, a table of its own so that its address tells) also
// writes U+2028 and U+2029 as they are: JSON needs no escape for them, and
// the JSON form has no lines to keep, where the text form must show no
// line separator but '\n'.
var (
	textEscapes, idEscapes = escapeTable(true), escapeTable(false)
	jsonTextEscapes        = textEscapes
)

// escapesFor returns the escape table of the free text of format f.
func escapesFor(f Format) *[256]uint8 {
	if f == FormatJSON {
		return &jsonTextEscapes
	}
	return &textEscapes
}

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

// quotedLen returns the length n of s as a JSON string literal, quotes
// included, as appendEscaped writes it, the bytes of s it read, and
// whether those bytes are valid UTF-8. It stops once n exceeds limit, so
// that it reads at most about limit bytes of s.
//
// With esc &idEscapes, s is an id, quoted by the rule of [idView]; it is
// read whole then, unless it is longer than limit.
func quotedLen(s string, limit int, esc *[256]uint8) (n, read int, valid bool) {
	n, valid = 2, true
	var id *idView
	if esc == &idEscapes {
		id = &idView{s: s, skip: len(s) > limit}
	}
	seps := esc == &jsonTextEscapes
	i := 0
	for i < len(s) && n <= limit {
		c := s[i]
		if w := esc[c]; w != 0 {
			n += int(w)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		valid = valid && (r != utf8.RuneError || size > 1)
		n += runeLen(r, i, size, id, seps)
		i += size
	}
	if id != nil && id.checked {
		i = max(i, id.read)
	}
	return n, i, valid
}

// runeLen returns the bytes that the non-ASCII rune r, read from size
// bytes at i, takes inside a JSON string literal: as it is when
// printable, and in an id (id not nil) only when id shows it; U+2028 and
// U+2029 as they are too when seps.
func runeLen(r rune, i, size int, id *idView, seps bool) int {
	switch {
	case r == utf8.RuneError && size == 1:
		return 3 // U+FFFD
	case unicode.IsPrint(r) && (id == nil || id.shows(i, r, size)):
		return size
	case seps && (r == '\u2028' || r == '\u2029'):
		return size
	case r > 0xffff:
		return 12
	}
	return 6
}

// appendEscaped appends as much of s as fits in room bytes, escaped for a
// JSON string literal, and returns the number of bytes of s it consumed,
// always at the start of a rune. Printable runes are copied (in an id,
// those that [idView] shows), invalid bytes become U+FFFD, and every other
// rune is escaped. It reads at most one rune past what it consumes, or
// the whole of an id that is not ASCII.
func appendEscaped(dst []byte, s string, room int, esc *[256]uint8) ([]byte, int) {
	var id *idView
	if esc == &idEscapes {
		id = &idView{s: s}
	}
	seps := esc == &jsonTextEscapes
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
		w = runeLen(r, i, size, id, seps)
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

// invisible reports whether the printable rune r shows nothing a person
// can tell apart from its absence or from a space: a default-ignorable
// code point such as U+034F COMBINING GRAPHEME JOINER or a Hangul filler
// (U+115F, U+1160, U+3164, U+FFA0), a variation selector, or U+2800
// BRAILLE PATTERN BLANK. Two ids that differ only in such runes would look
// the same, so an id holding one is quoted with it escaped.
func invisible(r rune) bool {
	return r == 0x2800 || unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// idView decides, rune by rune in order, which printable runes of an id
// are shown as they are; [appendQuotedID] escapes the others as \uXXXX
// and an id holding one is quoted, so that two different shown ids never
// look the same to a person by these classes:
//
//   - Invisible runes (see [invisible]).
//   - Compatibility characters, which are not their own NFKC form (see
//     [ownNFKC]): "\uff0fs" beside "/s", "\ufb01le" beside file.
//   - Signs that look like ASCII text (see lookalike.ASCII): runes that
//     are not decimal digits and are punctuation or symbols or of the
//     Latin, Common or Inherited script, whose UTS #39 skeleton is ASCII.
//     So "c\u2215s:r" (a division slash) beside c/s:r, "\u01c0og" beside
//     log, "a\u2010b" (a hyphen) beside a-b. Digits of other scripts
//     (Arabic ١٠) are shown: they are read as numbers.
//   - In an id that is not in NFC, every combining mark and every rune
//     that NFC changes or composes with what precedes it: so "e\u0301"
//     (NFD, as macOS writes file names) shows its U+0301 escaped beside the
//     bare "é", and the Kelvin sign U+212A and the Ångström sign U+212B
//     show escaped beside K and Å.
//   - In a word (a maximal run of letters and combining marks) that mixes
//     letters of two of the scripts with Latin look-alikes (Latin itself,
//     Cyrillic, Greek, Armenian, Cherokee and the other scripts of package
//     lookalike), every letter of those scripts but Latin: "p\u0430ypal".
//     Other mixes, such as Latin with Han, kana or Hangul, are shown;
//     combining marks have no script.
//   - In a word whose letters of such a script other than Latin all look
//     like Latin ones (a whole-script confusable in the sense of UTS #39),
//     those letters: a lone Cyrillic "\u0430", or "\u0430" beside Han. A
//     word with a letter of that script that has no Latin look-alike, such
//     as Cyrillic "жара", is shown.
//
// Which letters and signs look like Latin ones comes from package
// lookalike, a table generated from Unicode's confusables data.
// Look-alikes made only of ASCII (l, I and 1; rn and m) are not covered.
// An all-ASCII id never reaches idView: ASCII is in NFKC and Latin.
type idView struct {
	s       string
	skip    bool // only length matters: NFC and words are not looked at
	checked bool // nfc is known
	nfc     bool // s is in NFC
	read    int  // the bytes of s read
	// The word that ends at wordEnd shows its letters of a script with
	// Latin look-alikes but Latin (hideForeign), or its look-alike letters
	// (hideLookalikes), or all of them.
	wordEnd                     int
	hideForeign, hideLookalikes bool
}

// shows reports whether the printable rune r at s[i:i+size] is shown as it
// is. Calls come in the order of the runes; ASCII runes may be skipped.
func (v *idView) shows(i int, r rune, size int) bool {
	if invisible(r) {
		return false
	}
	if v.skip {
		return true
	}
	if !ownNFKC(v.s[i : i+size]) {
		return false
	}
	if _, ok := lookalike.ASCII(r); ok {
		return false
	}
	if !v.checked {
		v.checked, v.nfc, v.read = true, isNFC(v.s), len(v.s)
	}
	if !v.nfc && (unicode.Is(unicode.M, r) || !norm.NFC.PropertiesString(v.s[i:]).BoundaryBefore() ||
		norm.NFC.QuickSpanString(v.s[i:i+size]) < size) {
		return false
	}
	if !unicode.IsLetter(r) {
		return true
	}
	if i >= v.wordEnd {
		v.judgeWord(i)
	}
	switch {
	case v.hideForeign:
		return lookalike.Script(r) <= 1
	case v.hideLookalikes:
		_, ok := lookalike.Latin(r)
		return !ok
	}
	return true
}

// ownNFKC reports whether the rune s is its own NFKC form: not a
// compatibility character such as the fullwidth ／, the ligature ﬁ, the
// mathematical bold 𝐚, the Roman numeral Ⅰ, a superscript, a circled
// number or a halfwidth katakana, each of which NFKC folds to the rune it
// looks like. A rune that the quick check cannot decide alone (a
// combining mark that may compose with what precedes it) has no
// decomposition of its own, so the quick check and the rune's
// decomposition decide it exactly, without allocating.
func ownNFKC(s string) bool {
	return norm.NFKC.QuickSpanString(s) == len(s) || len(norm.NFKC.PropertiesString(s).Decomposition()) == 0
}

// isNFC reports whether s is in NFC, as norm.NFC.IsNormalString does,
// without allocating once warm: the rare id that the quick check cannot
// decide is normalized segment by segment by a pooled norm.Iter.
func isNFC(s string) bool {
	if norm.NFC.QuickSpanString(s) == len(s) {
		return true
	}
	it := nfcIters.Get().(*norm.Iter)
	defer nfcIters.Put(it)
	it.InitString(norm.NFC, s)
	for i := 0; !it.Done(); {
		seg := it.Next()
		if len(seg) > len(s)-i || string(seg) != s[i:i+len(seg)] {
			return false
		}
		i += len(seg)
	}
	return true
}

// nfcIters holds the iterators of isNFC.
var nfcIters = sync.Pool{New: func() any { return new(norm.Iter) }}

// inWord reports whether r belongs to a word: a letter or a combining
// mark.
func inWord(r rune) bool { return unicode.IsLetter(r) || unicode.Is(unicode.M, r) }

// judgeWord finds the word around s[i] and decides which of its letters
// are shown. The runes of the word before i are ASCII letters, marks, or
// letters that shows hid for their own sake, which it passed over; the
// word starts after the last one judged.
func (v *idView) judgeWord(i int) {
	start := i
	for start > v.wordEnd {
		r, size := utf8.DecodeLastRuneInString(v.s[:start])
		if !inWord(r) {
			break
		}
		start -= size
	}
	end := start
	var scripts uint64 // the set of scripts with Latin look-alikes
	lookalikes, others := false, false
	for end < len(v.s) {
		r, size := utf8.DecodeRuneInString(v.s[end:])
		letter := unicode.IsLetter(r)
		if !letter && !unicode.Is(unicode.M, r) {
			break
		}
		end += size
		if !letter {
			continue
		}
		sc := lookalike.Script(r)
		if sc == 0 {
			continue
		}
		scripts |= 1 << sc
		if sc > 1 {
			_, ok := lookalike.Latin(r)
			lookalikes = lookalikes || ok
			others = others || !ok
		}
	}
	v.wordEnd = end
	v.hideForeign = bits.OnesCount64(scripts) > 1
	v.hideLookalikes = lookalikes && !others
}

// appendU appends the escape \uXXXX of r <= 0xffff.
func appendU(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// appendQuotedID appends id as a JSON string literal in which every rune
// that [idView] does not show is escaped as \uXXXX, so that it decodes to
// id exactly. id must be valid UTF-8.
func appendQuotedID(dst []byte, id string) []byte {
	dst = append(dst, '"')
	dst, _ = appendEscaped(dst, id, len(id)*12, &idEscapes)
	return append(dst, '"')
}

// appendCut appends s escaped for a JSON string literal by the table esc,
// without quotes, in at most room bytes, and returns the bytes of s it read. When s does
// not fit, it is cut at the last normalization boundary that leaves room
// for "…", so that no UTF-8 sequence or combining sequence is split. When
// nothing of s fits, or s must be cut and room+2 (the size of the quoted
// value) is less than minCut, nothing is appended; then a value longer
// than room is not read at all.
func appendCut(dst []byte, s string, room, minCut int, esc *[256]uint8) ([]byte, int) {
	if room <= 0 || room+2 < minCut && len(s) > room {
		return dst, 0
	}
	mark := len(dst)
	dst, n := appendEscaped(dst, s, room-len(ellipsis), esc)
	read := min(len(s), n+utf8.UTFMax)
	if n == len(s) {
		return dst, read
	}
	// The rest may still fit whole in the room kept for "…".
	cut := len(dst)
	dst, m := appendEscaped(dst, s[n:], room-(cut-mark), esc)
	read = min(len(s), n+m+utf8.UTFMax)
	if n+m == len(s) {
		return dst, read
	}
	p, back := cutBoundary(s, n)
	if p == 0 || room+2 < minCut {
		return dst[:mark], read + back
	}
	q, _, _ := quotedLen(s[p:n], room+2, esc)
	return append(dst[:cut-(q-2)], ellipsis...), read + back
}

// maxNonStarters is the longest run of combining runes that cutBoundary
// keeps with the rune they follow, as in norm's stream-safe text format,
// which breaks longer runs too.
const maxNonStarters = 30

// cutBoundary returns the last normalization boundary p of s at or before
// n < len(s), where n is the start of a rune, or 0 when there is none: the
// last position, looking back from n, where the rune that starts there
// cannot combine with anything before it (norm's BoundaryBefore). So a cut
// there never splits a UTF-8 sequence or a combining sequence, e.g. "e"
// and U+0301, or Hangul jamo. Within a run of more than maxNonStarters
// combining runes it returns n. It also returns the bytes it read.
func cutBoundary(s string, n int) (p, read int) {
	i := n
	for range maxNonStarters + 2 {
		if norm.NFC.PropertiesString(s[i:]).BoundaryBefore() {
			return i, n - i + utf8.UTFMax
		}
		if i == 0 {
			return 0, n + utf8.UTFMax
		}
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return n, n - i + utf8.UTFMax
}
