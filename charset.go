package mcpid

import (
	"math/bits"
	"unicode/utf8"
)

// charSet is one rule of the grammar, as scan applies it. stop marks the
// bytes that scan must look at: every byte that the rule does not admit
// as it is, which are a control, DEL, the bytes of non-ASCII characters
// and some of '%', '.', '/', ':' and '\'. fault says what such a byte
// means: a fault, or one of three looks: faultDotDot for a '.', a fault
// only as the first of ".."; faultEscape for a '%' that must start %25,
// %2F or %3A; faultUTF8 for a non-ASCII byte, the first of a character
// that must be valid UTF-8 and from U+00A0 up. Every rule admits the same
// non-ASCII characters and no control; they differ in '%', '.', '/', ':'
// and '\'.
type charSet struct {
	stop  [256]uint8 // 1 for a byte to look at, else 0
	fault [256]fault
}

// newCharSet returns the set that admits the bytes in admitted among
// '%', '.', '/', ':' and '\', and, with escapes, the canonical escapes.
// A '.' it does not admit is a fault only as the first of "..".
func newCharSet(admitted string, escapes bool) *charSet {
	var s charSet
	for c := 0; c < 0x20; c++ {
		s.fault[c] = faultControl
	}
	s.fault[0x7f] = faultControl
	for c := 0x80; c < 0x100; c++ {
		s.fault[c] = faultUTF8
	}
	s.fault['.'] = faultDotDot
	s.fault['/'] = faultSecondSlash
	s.fault[':'] = faultColon
	s.fault['\\'] = faultBackslash
	if escapes {
		s.fault['%'] = faultEscape
	}
	for i := 0; i < len(admitted); i++ {
		s.fault[admitted[i]] = faultNone
	}
	for c, f := range s.fault {
		if f != faultNone {
			s.stop[c] = 1
		}
	}
	return &s
}

// The character sets of the grammar's rules. Along an id, a parse only
// ever moves to a set that stops at fewer bytes (segmentBytes, then
// nameNoColonBytes, nameBytes or opaqueBytes), so the stops it found for
// a word with one set still hold every stop of the next.
var (
	nameNoColonBytes = newCharSet("%", false)
	nameBytes        = newCharSet("%:", false)
	opaqueBytes      = newCharSet(`%./:\`, false)
	// connectionBytes is a connection id as given: a name that may hold
	// '/' and ':'. segmentBytes is the connection segment it is written
	// as, with '%', '/' and ':' escaped.
	connectionBytes = newCharSet("%/:", false)
	segmentBytes    = newCharSet("", true)
)

// scan returns the offset and kind of the next byte of s that set rules
// out, or len(s) and faultNone at its end. It is the one check of the
// grammar's character rules. It reads s eight bytes a step: i is the
// offset of the current word and m its stops not yet looked at, bit k for
// s[i+k] (i = -8 and m = 0 to start at 0). It returns them as they are
// after the byte it stopped at, so that the next call goes on from there,
// with the same set or with one that stops at fewer bytes; no byte is read
// twice. A word without stops costs sixteen loads and no branch but the
// loop's; each stop is judged by its entry in set, and goes straight to
// the next; a run of non-ASCII characters is checked character by
// character by charLen (decode finds the fault of a broken one).
func scan(s string, i int, m uint, set *charSet) (int, fault, int, uint) {
	for {
		for m == 0 {
			i += 8
			if len(s)-i < 8 {
				if i >= len(s) {
					return len(s), faultNone, i, 0
				}
				m = set.lastStops(s[i:])
				continue
			}
			b, t := s[i:i+8], &set.stop
			m = uint(t[b[0]]) + uint(t[b[1]])<<1 + uint(t[b[2]])<<2 + uint(t[b[3]])<<3 +
				(uint(t[b[4]])+uint(t[b[5]])<<1+uint(t[b[6]])<<2+uint(t[b[7]])<<3)<<4
		}
		j := i + bits.TrailingZeros(m)
		m &= m - 1
		switch f := set.fault[s[j]]; f {
		case faultNone:
		case faultDotDot:
			if j+1 < len(s) && s[j+1] == '.' {
				return j, f, i, m
			}
		case faultEscape:
			if j+2 >= len(s) || !isEscapeHex(s[j+1:j+3]) {
				return j, f, i, m
			}
		case faultUTF8:
			// A run of non-ASCII characters, as in words of non-Latin
			// text: each checked by its lead's entry in utf8Leads, up
			// to the next ASCII byte; decode reports the first fault.
			k := j
			for k < len(s) && s[k] >= 0x80 {
				// Two three-byte characters at once, as in CJK text:
				// leads whose second byte may be any continuation byte,
				// and four continuation bytes, by one mask.
				if plainLead3(s[k]) && len(s)-k >= 8 {
					w := load64(s[k:])
					if plainLead3(uint8(w>>24)) && w&0xC0C000C0C000 == 0x808000808000 {
						k += 6
						continue
					}
				}
				n := charLen(s[k:])
				if n == 0 {
					if n, f = decode(s[k:]); f != faultNone {
						return k, f, i, m
					}
				}
				k += n
			}
			// Past the characters' bytes.
			if d := k - i; d < 8 {
				m &= ^uint(0) << d
			} else {
				i, m = k-8, 0
			}
		default:
			return j, f, i, m
		}
	}
}

// lastStops returns the stops of the last one to seven bytes of a string.
func (set *charSet) lastStops(b string) uint {
	m := uint(0)
	for k := 0; k < len(b); k++ {
		m |= uint(set.stop[b[k]]) << k
	}
	return m
}

// checkChars returns the offset and kind of the first byte of s that set
// rules out, or faultNone: scan of a single segment.
func checkChars(s string, set *charSet) (int, fault) {
	j, f, _, _ := scan(s, -8, 0, set)
	if f == faultNone {
		return 0, f
	}
	return j, f
}

// isEscapeHex reports whether hex, the two bytes after a '%' of a
// connection segment, make one of its three escapes: %25, %2F or %3A,
// uppercase.
func isEscapeHex(hex string) bool {
	return hex == "25" || hex == "2F" || hex == "3A"
}

// utf8Lead is what the lead byte of a UTF-8 sequence says of it: its
// length, and the range its second byte must fall in. The ranges rule out
// overlong forms, surrogates, code points past U+10FFFF and, for 0xC2,
// the C1 controls; every other continuation byte is 0x80 to 0xBF.
type utf8Lead struct{ size, lo, hi uint8 }

// utf8Leads holds the entry of every lead byte; any other byte has size 0.
var utf8Leads = func() (t [256]utf8Lead) {
	t[0xC2] = utf8Lead{2, 0xA0, 0xBF}
	for c := 0xC3; c <= 0xDF; c++ {
		t[c] = utf8Lead{2, 0x80, 0xBF}
	}
	for c := 0xE0; c <= 0xEF; c++ {
		t[c] = utf8Lead{3, 0x80, 0xBF}
	}
	t[0xE0].lo, t[0xED].hi = 0xA0, 0x9F
	for c := 0xF0; c <= 0xF4; c++ {
		t[c] = utf8Lead{4, 0x80, 0xBF}
	}
	t[0xF0].lo, t[0xF4].hi = 0x90, 0x8F
	return t
}()

// plainLead3 reports whether c leads a three-byte character whose second
// byte may be any continuation byte: 0xE1 to 0xEF but 0xED.
func plainLead3(c byte) bool { return c-0xE1 <= 0xEF-0xE1 && c != 0xED }

// load64 reads the first eight bytes of s, little-endian.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// charLen returns the length of the character at the start of s, which
// starts with a non-ASCII byte, or 0 when it is no valid character from
// U+00A0 up (decode then says which fault it is).
func charLen(s string) int {
	// Each length is returned as a constant, so that the scan's next
	// offset waits on a predicted branch, not on the table's load.
	l := utf8Leads[s[0]]
	if l.size == 0 || len(s) < int(l.size) || s[1] < l.lo || s[1] > l.hi {
		return 0
	}
	switch l.size {
	case 2:
		return 2
	case 3:
		if s[2]^0x80 < 0x40 {
			return 3
		}
	default:
		if (s[2]^0x80)|(s[3]^0x80) < 0x40 {
			return 4
		}
	}
	return 0
}

// decode checks the non-ASCII character at the start of s that charLen
// does not take. It returns its length, or faultUTF8 for invalid UTF-8
// and faultControl for a C1 control (U+0080 to U+009F).
func decode(s string) (int, fault) {
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		return 0, faultUTF8
	case r <= 0x9f:
		return 0, faultControl
	}
	return size, faultNone
}
