package mcpid

import (
	"math/bits"
	"strings"
	"unicode/utf8"
)

// Handle is a parsed fetch handle: an optional connection, a stream and a
// record.
//
//	handle = [ connection "/" ] stream ":" record
//
// Handle is a small value, safe to copy and to compare with ==; two Handles
// are equal exactly when their ids are equal byte for byte, so a Handle can
// be a map key. The zero Handle is invalid: [Handle.IsValid] reports false
// and every accessor returns "". Build a Handle with [Parse], [MustParse] or
// [Handle.UnmarshalText]; its text form, [Handle.String], is the id it was
// parsed from, unchanged.
type Handle struct {
	id     string // the whole id, as given
	stream int    // offset of the stream: 0, or one past the '/'
	colon  int    // offset of the ':' that ends the stream
}

// Parse parses id as a fetch handle, in its self-contained form
// connection/stream:record or its legacy form stream:record. It splits at
// the first '/' (which marks the self-contained form) and then at the first
// ':' after it, and checks every segment against the grammar in the package
// documentation; nothing is normalized.
//
// A malformed id yields an [*Error] with Code [CodeInvalidID], naming the
// segment and the byte offset of the first fault (segments are checked in
// order, and within a segment the first offending byte wins).
//
// Parse does not allocate on success.
func Parse(id string) (Handle, error) {
	h, f := parse(id)
	if f.fault != faultNone {
		return Handle{}, f.err(FieldID, id)
	}
	return h, nil
}

// MustParse is like [Parse] but panics if id is malformed. It is intended
// for use in tests with hard-coded ids.
func MustParse(id string) Handle {
	h, err := Parse(id)
	if err != nil {
		panic(err)
	}
	return h
}

// Encode returns the id of the handle with the given parts: the
// self-contained form connectionID/stream:recordID, or the legacy form
// stream:recordID when connectionID is "". Encode and [Parse] are exact
// inverses: Parse(Encode(c, s, r)) gives back c, s and r.
//
// A part that breaks the grammar yields an [*Error] with Code
// [CodeInvalidID], Segment naming the part, Input holding it and Offset
// counted within it (-1 when the part is empty). Encode allocates once, for
// the result.
func Encode(connectionID, stream, recordID string) (string, error) {
	if connectionID != "" {
		if f := checkPart(connectionID, SegmentConnection, false); f.fault != faultNone {
			return "", f.err(FieldID, connectionID)
		}
	}
	if f := checkPart(stream, SegmentStream, false); f.fault != faultNone {
		return "", f.err(FieldID, stream)
	}
	if f := checkPart(recordID, SegmentRecord, true); f.fault != faultNone {
		return "", f.err(FieldID, recordID)
	}
	if connectionID == "" {
		return stream + ":" + recordID, nil
	}
	return connectionID + "/" + stream + ":" + recordID, nil
}

// SelfContainedID is what a search tool does to each hit's id before it
// shows it: it returns connectionID/baseID, with embedded true, when baseID
// is a valid legacy handle and connectionID is a valid connection segment,
// so that the model can later fetch with the id alone. In every other case
// it returns baseID unchanged and false: an empty connectionID (a hit with no
// connection), a baseID that already holds a '/' (self-contained ids, URLs,
// paths), a baseID that is not a handle at all, and a connectionID that
// cannot be embedded (one with ':', '/', "..", controls, ...). URLs with
// a path or "//" pass through for their '/'; an opaque id that happens to
// follow the legacy grammar, such as urn:isbn:123 or mailto:a@b.example,
// is a handle like any other and gets its connection.
//
// Whenever embedded is true, [ResolveFetch](id, "") succeeds and is scoped
// to connectionID: SelfContainedID never mints a handle that fetch would
// reject.
func SelfContainedID(baseID, connectionID string) (id string, embedded bool) {
	if connectionID == "" {
		return baseID, false
	}
	if h, f := parse(baseID); f.fault != faultNone || h.IsSelfContained() {
		return baseID, false
	}
	if _, f := checkName(connectionID, false); f != faultNone {
		return baseID, false
	}
	return connectionID + "/" + baseID, true
}

// IsValid reports whether h is a parsed handle rather than the zero Handle.
func (h Handle) IsValid() bool { return h.id != "" }

// IsSelfContained reports whether h embeds its connection, that is whether
// it has the form connection/stream:record.
func (h Handle) IsSelfContained() bool { return h.stream > 0 }

// ConnectionID returns the embedded connection, or "" for a legacy handle
// and for the zero Handle. It does not allocate.
func (h Handle) ConnectionID() string {
	if h.stream == 0 {
		return ""
	}
	return h.id[:h.stream-1]
}

// Stream returns the stream segment, or "" for the zero Handle. It does not
// allocate.
func (h Handle) Stream() string { return h.id[h.stream:h.colon] }

// RecordID returns the record segment, which may itself contain ':', or ""
// for the zero Handle. It does not allocate.
func (h Handle) RecordID() string {
	if h.id == "" {
		return ""
	}
	return h.id[h.colon+1:]
}

// IsOpaque reports whether h has the opaque form connection/:opaque.
func (h Handle) IsOpaque() bool { return h.id != "" && h.stream == h.colon }

// BaseID returns the id without its connection: stream:record for a plain
// handle, the opaque base id for an opaque one, "" for the zero Handle. It
// does not allocate.
func (h Handle) BaseID() string {
	if h.IsOpaque() {
		return h.id[h.colon+1:]
	}
	return h.id[h.stream:]
}

// String returns the id h was parsed from, byte for byte, or "" for the
// zero Handle.
func (h Handle) String() string { return h.id }

// AppendText implements [encoding.TextAppender]: it appends the id to b.
// The zero Handle appends nothing. It never fails, and it does not allocate
// when b has room.
func (h Handle) AppendText(b []byte) ([]byte, error) {
	return append(b, h.id...), nil
}

// MarshalText implements [encoding.TextMarshaler]. The zero Handle
// marshals as empty text.
func (h Handle) MarshalText() ([]byte, error) {
	return h.AppendText(make([]byte, 0, len(h.id)))
}

// UnmarshalText implements [encoding.TextUnmarshaler]. Empty text gives the
// zero Handle; any other text must be a valid id, as for [Parse]. On error
// *h is set to the zero Handle.
func (h *Handle) UnmarshalText(text []byte) error {
	if len(text) == 0 {
		*h = Handle{}
		return nil
	}
	var err error
	*h, err = Parse(string(text))
	return err
}

// failure locates a fault without allocating; err turns it into an *Error
// only on the way out of the package.
type failure struct {
	fault   fault
	segment string
	offset  int
}

func (f failure) err(field, input string) *Error {
	return &Error{
		Code:    codeFor(field),
		Field:   field,
		Segment: f.segment,
		Offset:  f.offset,
		Input:   input,
		fault:   f.fault,
	}
}

// codeFor returns the code of a malformed value of field.
func codeFor(field string) Code {
	if field == FieldConnectionID {
		return CodeInvalidConnectionID
	}
	return CodeInvalidID
}

// parse is Parse without the error value. Ids of eight bytes or more go
// through a fast check first, and only a malformed one pays for
// parseSlow, which finds the first fault segment by segment; shorter ids
// gain nothing from the word-at-a-time scan and go to parseSlow directly.
func parse(id string) (Handle, failure) {
	if len(id) < 8 {
		return parseSlow(id)
	}
	if h, ok := parseFast(id); ok {
		return h, failure{}
	}
	if _, f := parseSlow(id); f.fault != faultNone {
		return Handle{}, f
	}
	// Unreachable while parseFast and parseSlow agree, which the tests
	// and fuzz targets check; fail closed all the same.
	return Handle{}, failure{faultUnknown, "", -1}
}

// parseSlow checks id segment by segment, as the grammar reads: segments
// in order, and within a segment the first offending byte wins. An empty
// segment is reported at the separator beside it, a missing ':' at the
// start of the segment that lacks it.
func parseSlow(id string) (Handle, failure) {
	if id == "" {
		return Handle{}, failure{faultEmpty, "", -1}
	}
	start := 0
	if slash := strings.IndexByte(id, '/'); slash >= 0 {
		if slash == 0 {
			return Handle{}, failure{faultEmptySegment, SegmentConnection, 0}
		}
		if off, f := checkName(id[:slash], false); f != faultNone {
			return Handle{}, failure{f, SegmentConnection, off}
		}
		start = slash + 1
	}
	rest := id[start:]
	colon := strings.IndexByte(rest, ':')
	if colon < 0 {
		if rest == "" {
			return Handle{}, failure{faultEmptySegment, SegmentStream, start - 1}
		}
		if off, f := checkName(rest, false); f != faultNone {
			return Handle{}, failure{f, SegmentStream, start + off}
		}
		return Handle{}, failure{faultNoColon, SegmentStream, start}
	}
	if colon == 0 {
		return Handle{}, failure{faultEmptySegment, SegmentStream, start}
	}
	if off, f := checkName(rest[:colon], false); f != faultNone {
		return Handle{}, failure{f, SegmentStream, start + off}
	}
	if colon == len(rest)-1 {
		return Handle{}, failure{faultEmptySegment, SegmentRecord, start + colon}
	}
	if off, f := checkName(rest[colon+1:], true); f != faultNone {
		return Handle{}, failure{f, SegmentRecord, start + colon + 1 + off}
	}
	return Handle{id: id, stream: start, colon: start + colon}, failure{}
}

// parseFast reports whether id, at least eight bytes long, is a valid
// handle and returns it. It looks
// at eight bytes at a time: a few arithmetic operations check a word and
// find its separators. Bytes outside ASCII need no decoding: once the
// whole id is known to be valid UTF-8 (checked only when such a byte
// shows up), the one rule left for them is that no C1 control, encoded as
// 0xC2 followed by 0x80 to 0x9F, appears. The last word may overlap the
// one before it; every check is idempotent.
func parseFast(id string) (Handle, bool) {
	n := len(id) // at least 8
	sc := fastScan{slash: -1, colon: -1}
	for i := 0; i < n; i += 8 {
		i = min(i, n-8)
		v := load64(id, i)
		b7 := v & lo7
		// The high bit of each byte of these words answers one question
		// about that byte (for ASCII bytes; v's own high bit marks the
		// others). No carry crosses a byte.
		bad := ^(b7 + ones*(0x80-0x20)) | (b7 + ones*0x01) | eq(b7, '\\') // control, DEL, '\\'
		dotSlash := (b7 + ones*(0x80-'.')) &^ (b7 + ones*(0x80-'0'))      // '.' or '/'
		colon := eq(b7, ':')
		// Most words are plain: none of these, and all ASCII.
		if (v|bad|dotSlash|colon)&hi == 0 {
			continue
		}
		ascii := ^v & hi // the high bit of each ASCII byte
		if ascii != hi {
			// Every byte before this word is ASCII unless utf8Checked, so
			// a rune starts at i.
			if !sc.utf8Checked {
				if !utf8.ValidString(id[i:]) {
					return Handle{}, false
				}
				sc.utf8Checked = true
			}
			for c2 := eq8(v, 0xC2); c2 != 0; c2 &= c2 - 1 {
				if id[i+bits.TrailingZeros64(c2)>>3+1] < 0xA0 {
					return Handle{}, false
				}
			}
		}
		if bad&ascii != 0 {
			return Handle{}, false
		}
		// '/' is odd and '.' even: bit 0 of each byte, moved to bit 7,
		// tells them apart. Every '/' must be the first one.
		odd := b7 << 7
		for sl := dotSlash & odd & ascii; sl != 0; sl &= sl - 1 {
			if !sc.seeSlash(i + bits.TrailingZeros64(sl)>>3) {
				return Handle{}, false
			}
		}
		if co := colon & ascii; co != 0 && sc.colon < 0 {
			sc.colon = i + bits.TrailingZeros64(co)>>3
		}
		// No two dots in a row, within the word or from its last byte on.
		if d := dotSlash &^ odd & ascii; d != 0 && (d&(d>>8) != 0 || (d>>63 != 0 && i+8 < n && id[i+8] == '.')) {
			return Handle{}, false
		}
	}
	return sc.handle(id)
}

// fastScan is what parseFast has learned: where the first '/' and the
// first ':' are (or -1), and whether the id is known to be valid UTF-8.
type fastScan struct {
	slash, colon int
	utf8Checked  bool
}

// seeSlash records the '/' at i and reports whether it is the first one
// (or the first one again).
func (sc *fastScan) seeSlash(i int) bool {
	if sc.slash < 0 {
		sc.slash = i
	}
	return sc.slash == i
}

// handle checks the shape the separators give id: the first ':' comes
// after the '/', and no segment is empty or ".".
func (sc *fastScan) handle(id string) (Handle, bool) {
	n, slash, colon := len(id), sc.slash, sc.colon
	start := slash + 1
	if colon < start || slash == 0 || colon == start || colon == n-1 ||
		(slash == 1 && id[0] == '.') || (colon == start+1 && id[start] == '.') ||
		(colon == n-2 && id[n-1] == '.') {
		return Handle{}, false
	}
	return Handle{id: id, stream: start, colon: colon}, true
}

// Word-at-a-time constants: every byte 0x01, 0x7f, 0x80.
const (
	ones = 0x0101010101010101
	lo7  = 0x7f7f7f7f7f7f7f7f
	hi   = 0x8080808080808080
)

// load64 returns the eight bytes of s at i as a little-endian word; the
// compiler turns it into one load.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// eq8 sets the high bit of each byte of v that equals c, and only of
// those.
func eq8(v uint64, c byte) uint64 {
	t := v ^ ones*uint64(c)
	return ^((t&lo7 + lo7) | t) & hi
}

// eq sets the high bit of each byte of b7 (a word of 7-bit bytes) that
// equals c, and only of those: no carry crosses a byte.
func eq(b7 uint64, c byte) uint64 {
	return ^((b7 ^ ones*uint64(c)) + lo7)
}

// checkPart checks one part given to Encode. Within a part, a '/' is not a
// second separator but a forbidden character.
func checkPart(part, segment string, colonOK bool) failure {
	if part == "" {
		return failure{faultEmptySegment, segment, -1}
	}
	off, f := checkName(part, colonOK)
	if f == faultSecondSlash {
		f = faultSlash
	}
	return failure{f, segment, off}
}

// special marks the ASCII bytes that checkName must look at: the controls,
// DEL and the reserved characters. Other ASCII bytes are always legal.
var special = func() (t [utf8.RuneSelf]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range []byte{0x7f, '/', '\\', ':', '.'} {
		t[c] = true
	}
	return t
}()

// checkName checks a non-empty name against the name rule (name-nocolon
// unless colonOK) and returns the offset and kind of its first fault, or
// faultNone. A '/' is reported as faultSecondSlash, its meaning inside an
// id.
func checkName(name string, colonOK bool) (int, fault) {
	if name == "." {
		return 0, faultDot
	}
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			if special[c] {
				switch {
				case c == '.':
					if i+1 < len(name) && name[i+1] == '.' {
						return i, faultDotDot
					}
				case c == ':':
					if !colonOK {
						return i, faultColon
					}
				case c == '/':
					return i, faultSecondSlash
				case c == '\\':
					return i, faultBackslash
				default:
					return i, faultControl
				}
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && size == 1 {
			return i, faultUTF8
		}
		if r <= 0x9f { // C1 controls U+0080 to U+009F
			return i, faultControl
		}
		i += size
	}
	if name == "" {
		return -1, faultEmptySegment
	}
	return 0, faultNone
}
