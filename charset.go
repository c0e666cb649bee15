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
// the next; a non-ASCII character is checked by its lead and continuation
// bytes, three-byte ones in runs (decode takes the rare ones).
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
			// A two-byte character (the next is another stop), or a
			// run of three-byte ones, as in CJK text: two a step (their
			// leads by the table, their four continuation bytes with
			// one mask), then one by one.
			k := j
			switch leads[s[j]] {
			case lead2:
				if j+1 < len(s) && s[j+1]^0x80 < 0x40 {
					k += 2
				}
			case lead3:
				for len(s)-k >= 8 {
					b := s[k : k+8]
					w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
						uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
					if leads[uint8(w)]&leads[uint8(w>>24)] != lead3 || w&0xC0C000C0C000 != 0x808000808000 {
						break
					}
					k += 6
				}
				for len(s)-k >= 3 && leads[s[k]] == lead3 && (s[k+1]^0x80)|(s[k+2]^0x80) < 0x40 {
					k += 3
				}
			}
			n := k - j
			if n == 0 {
				if n, f = decode(s[j:]); f != faultNone {
					return j, f, i, m
				}
			}
			// Past the characters' bytes.
			if d := j + n - i; d < 8 {
				m &= ^uint(0) << d
			} else {
				i, m = j+n-8, 0
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

// leads classes the lead byte of a two- or three-byte UTF-8 sequence
// whose value alone rules out a C1 control, an overlong form and a
// surrogate: lead2 for 0xC3 to 0xDF, lead3 for 0xE1 to 0xEF but 0xED.
// Such a sequence needs only its continuation bytes checked; any other
// byte (0) is decoded.
var leads = func() (t [256]uint8) {
	for c := 0xC3; c <= 0xDF; c++ {
		t[c] = lead2
	}
	for c := 0xE1; c <= 0xEF; c++ {
		if c != 0xED {
			t[c] = lead3
		}
	}
	return t
}()

// The classes of leads.
const (
	lead2 = 1 + iota
	lead3
)

// decode checks the non-ASCII character at the start of s that leads
// does not class. It returns its length, or faultUTF8 for invalid UTF-8
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
