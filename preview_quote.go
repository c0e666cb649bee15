package mcpid

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
// without quotes, in at most room bytes, and returns the bytes of s it read
// and the bytes of s it shows: len(s) uncut, the prefix before "…" when
// cut, 0 when it appends nothing. When s does
// not fit, it is cut at the last normalization boundary that leaves room
// for "…", so that no UTF-8 sequence or combining sequence is split. When
// nothing of s fits, or s must be cut and room+2 (the size of the quoted
// value) is less than minCut, nothing is appended; then a value longer
// than room is not read at all.
func appendCut(dst []byte, s string, room, minCut int, esc *[256]uint8) (out []byte, read, kept int) {
	if room <= 0 || room+2 < minCut && len(s) > room {
		return dst, 0, 0
	}
	mark := len(dst)
	dst, n := appendEscaped(dst, s, room-len(ellipsis), esc)
	read = min(len(s), n+utf8.UTFMax)
	if n == len(s) {
		return dst, read, len(s)
	}
	// The rest may still fit whole in the room kept for "…".
	cut := len(dst)
	dst, m := appendEscaped(dst, s[n:], room-(cut-mark), esc)
	read = min(len(s), n+m+utf8.UTFMax)
	if n+m == len(s) {
		return dst, read, len(s)
	}
	p, back := cutBoundary(s, n)
	if p == 0 || room+2 < minCut {
		return dst[:mark], read + back, 0
	}
	q, _, _ := quotedLen(s[p:n], room+2, esc)
	return append(dst[:cut-(q-2)], ellipsis...), read + back, p
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
