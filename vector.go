package mcpid

import (
	"math/bits"
)

// chunkClasses are the classes of the bytes of a chunk of up to 64 bytes
// that the vector kernel reads at once, bit k of each for the byte at k.
// The field order is the kernel's.
type chunkClasses struct {
	pct, dot, slash, colon, backslash uint64
	// always holds the bytes that every set stops at: controls, DEL, and
	// the non-ASCII bytes but those of valid characters that the kernel
	// checked.
	always uint64
	// hi holds the non-ASCII bytes, sorted by utf8Nibbles into cont,
	// lead2 and lead3.
	hi, cont, lead2, lead3 uint64
}

// stops returns the chunk's stops for scan: those of every set, and those
// of opaqueBytes.
func (k *chunkClasses) stops() (m, opaque uint64) {
	return k.always | k.pct | k.dot | k.slash | k.colon | k.backslash, k.always
}

// parseChunk parses an id of 1 to 64 bytes from the classes of its bytes
// alone, with the grammar's rules written as operations on the classes.
// It reports false for any id it does not accept whole, so that parse
// reads it again and finds its fault; for an id it accepts, it returns
// the Handle that parse returns.
func parseChunk(id string) (Handle, bool) {
	var k chunkClasses
	k.classify(id)
	n := len(id)
	if k.always != 0 {
		return Handle{}, false
	}
	// Outside an opaque id, '\\' and ".." are faults.
	faults := k.backslash | k.dot&(k.dot>>1)
	if k.slash == 0 {
		// A legacy handle.
		colon := bits.TrailingZeros64(k.colon)
		if faults != 0 || !nameEnds(id, 0, colon) {
			return Handle{}, false
		}
		return Handle{id: id, colon: colon}, true
	}
	slash := bits.TrailingZeros64(k.slash)
	conn := uint64(1)<<slash - 1
	if (k.colon|faults)&conn != 0 || slash == 0 || id[:slash] == "." {
		return Handle{}, false
	}
	for p := k.pct & conn; p != 0; p &= p - 1 {
		if j := bits.TrailingZeros64(p); j+2 >= n || !isEscapeHex(id[j+1:j+3]) {
			return Handle{}, false
		}
	}
	start := slash + 1
	if start < n && id[start] == ':' {
		if start+1 == n {
			return Handle{}, false
		}
		return Handle{id: id, stream: start, colon: start}, true
	}
	if faults != 0 || k.slash&(k.slash-1) != 0 {
		return Handle{}, false
	}
	colon := bits.TrailingZeros64(k.colon &^ conn)
	if !nameEnds(id, start, colon) {
		return Handle{}, false
	}
	return Handle{id: id, stream: start, colon: colon}, true
}

// nameEnds reports whether the ':' at colon, which is len(id) or more
// when there is none, ends a stream from start that is neither empty nor
// ".", and starts a record of the same kind.
func nameEnds(id string, start, colon int) bool {
	return colon < len(id)-1 && colon > start && id[start:colon] != "." && id[colon+1:] != "."
}

// nibbleTables class a byte by its two nibbles, as a vector kernel looks
// them up sixteen bytes at a time: its class is lo[c&15] & hi[c>>4], one
// bit a class. Each table is written twice, once for each 16-byte lane of
// a 32-byte vector.
type nibbleTables struct {
	lo, hi [32]byte
}

// nibbleClass is a class of bytes that a pair of nibble sets makes: the
// bytes whose low nibble is in lo and high nibble in hi, bit k for nibble
// k.
type nibbleClass struct{ lo, hi uint16 }

// newNibbleTables returns the tables of the classes, bit k of a byte's
// class for classes[k]. The classes must not overlap in a way that a
// product of nibble sets cannot tell apart; the tests check every byte.
func newNibbleTables(classes ...nibbleClass) nibbleTables {
	var t nibbleTables
	for k, cl := range classes {
		for n := range 16 {
			if cl.lo&(1<<n) != 0 {
				t.lo[n] |= 1 << k
				t.lo[n+16] |= 1 << k
			}
			if cl.hi&(1<<n) != 0 {
				t.hi[n] |= 1 << k
				t.hi[n+16] |= 1 << k
			}
		}
	}
	return t
}

// one is the class of the single byte c.
func one(c byte) nibbleClass { return nibbleClass{1 << (c & 15), 1 << (c >> 4)} }

const anyNibble = 0xffff

// alwaysClasses are the classes of stopNibbles that every set stops at:
// controls, DEL and non-ASCII bytes.
const alwaysClasses = 0xe0

// stopNibbles class every byte that some set of the grammar stops at: '%',
// '.', '/', ':' and '\\' each in a class of its own, then the controls
// below ' ', DEL and the non-ASCII bytes. A set keeps the classes of its
// stops.
var stopNibbles = newNibbleTables(
	one('%'), one('.'), one('/'), one(':'), one('\\'),
	nibbleClass{anyNibble, 0x0003},
	one(0x7f),
	nibbleClass{anyNibble, 0xff00},
)

// utf8Nibbles class the non-ASCII bytes that a vector kernel checks as
// UTF-8 itself, the lead bytes that leads classes: continuation bytes
// 0x80 to 0xBF (bit 7), three-byte leads 0xE1 to 0xEF but 0xED (bit 6),
// two-byte leads 0xC3 to 0xCF (bit 5) and 0xD0 to 0xDF (bit 4).
var utf8Nibbles = newNibbleTables(
	nibbleClass{}, nibbleClass{}, nibbleClass{}, nibbleClass{},
	nibbleClass{anyNibble, 1 << 0xd},
	nibbleClass{0xfff8, 1 << 0xc},
	nibbleClass{anyNibble &^ (1 | 1<<0xd), 1 << 0xe},
	nibbleClass{anyNibble, 0x0f00},
)
