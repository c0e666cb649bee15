package mcpid

import (
	"math/bits"
	"strings"
	"unicode/utf8"
)

// Handle is a parsed fetch handle, in one of its three forms:
//
//	stream:record               legacy
//	connection/stream:record    self-contained, plain
//	connection/:opaque          self-contained, opaque
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
	colon  int    // offset of the ':' that ends the stream; == stream when opaque
}

// Parse parses id as a fetch handle in any of its forms. It splits at the
// first '/', which marks the self-contained forms; a ':' right after it
// marks the opaque form, whose base id is everything after that ':';
// otherwise it splits the rest at its first ':'. Every segment is checked
// against the grammar in the package documentation; the connection segment
// may hold only the canonical escapes %25, %2F and %3A, which
// [Handle.ConnectionID] decodes. Nothing is normalized.
//
// A malformed id yields an [*Error] with Code [CodeInvalidID], naming the
// segment and the byte offset of the first fault (segments are checked in
// order, and within a segment the first offending byte wins). The opaque
// base id is the record segment.
//
// Parse does not allocate on success. On amd64 processors with AVX2 it
// reads the id with vector instructions, 32 bytes at a time; elsewhere,
// and in builds with the tag purego, with portable Go. Both accept the
// same ids and report the same faults.
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

// Encode returns the id of the handle with the given parts:
//
//	Encode("", stream, recordID)            stream:recordID
//	Encode(connectionID, stream, recordID)  connection/stream:recordID
//	Encode(connectionID, "", baseID)        connection/:baseID
//
// where connection is connectionID with every '%', '/' and ':' escaped as
// %25, %2F and %3A, so that any connection id that is a name, such as the
// GCP resource name projects/p1/connections/c2, embeds; cin_4f2a is written
// as it is. An empty stream selects the opaque form, whose recordID is any
// opaque base id (a URL, a key with '/' or ".."), and which needs a
// connection: Encode("", "", r) fails on the empty connection. Encode and
// [Parse] are exact inverses: Parse(Encode(c, s, r)) gives back c, s and r,
// and for every id Parse accepts, Encode of its parts is the same bytes.
//
// A part that breaks the grammar yields an [*Error] with Code
// [CodeInvalidID], Segment naming the part (the opaque base id is the
// record), Input holding it and Offset counted within it (-1 when the part
// is empty). Encode allocates once, for the result.
func Encode(connectionID, stream, recordID string) (string, error) {
	if connectionID != "" || stream == "" {
		if f := checkPart(connectionID, SegmentConnection, connectionBytes); f.fault != faultNone {
			return "", f.err(FieldID, connectionID)
		}
	}
	if stream == "" {
		if f := checkPart(recordID, SegmentRecord, opaqueBytes); f.fault != faultNone {
			return "", f.err(FieldID, recordID)
		}
		return join(connectionID, "/:", recordID), nil
	}
	if f := checkPart(stream, SegmentStream, nameNoColonBytes); f.fault != faultNone {
		return "", f.err(FieldID, stream)
	}
	if f := checkPart(recordID, SegmentRecord, nameBytes); f.fault != faultNone {
		return "", f.err(FieldID, recordID)
	}
	if connectionID == "" {
		return stream + ":" + recordID, nil
	}
	return join(connectionID, "/", stream, ":", recordID), nil
}

// join returns the escaped connection followed by rest, in one
// allocation.
func join(connection string, rest ...string) string {
	n := escapedLen(connection)
	escaped := n != len(connection)
	for _, r := range rest {
		n += len(r)
	}
	var b strings.Builder
	b.Grow(n)
	if !escaped {
		b.WriteString(connection)
	} else {
		for i := 0; i < len(connection); i++ {
			switch c := connection[i]; c {
			case '%':
				b.WriteString("%25")
			case '/':
				b.WriteString("%2F")
			case ':':
				b.WriteString("%3A")
			default:
				b.WriteByte(c)
			}
		}
	}
	for _, r := range rest {
		b.WriteString(r)
	}
	return b.String()
}

// escapedLen returns the length of connection once its '%', '/' and ':'
// are escaped.
func escapedLen(connection string) int {
	n := len(connection)
	for i := 0; i < len(connection); i++ {
		if c := connection[i]; c == '%' || c == '/' || c == ':' {
			n += 2
		}
	}
	return n
}

// SelfContainedID gives a hit one id that carries its connection. A search
// tool does it to each hit's id before it shows it, so that the model can
// fetch that hit, and no other, with the id alone. When connectionID is a
// name (see [ResolveFetch]; '/' and ':' allowed) and baseID is non-empty,
// valid UTF-8 without control characters:
//
//   - a legacy handle stream:record becomes connection/stream:record;
//   - any other baseID becomes the opaque connection/:baseID: URLs, keys
//     with '/', '\' or "..", ids that are no handle at all, and ids that
//     look like self-contained handles, of this connection or another (the
//     drive key reports/2024:q3.pdf of the connection reports is
//     reports/:reports/2024:q3.pdf, never reports/2024:q3.pdf, which is
//     the record 2024:q3.pdf).
//
// The connection is escaped as [Encode] escapes it. Then embedded is true,
// and the id resolves, with [ResolveFetch](id, "") and with
// ResolveFetch(id, connectionID), to exactly connectionID and a
// [Handle.BaseID] equal to baseID byte for byte; for a fixed connectionID,
// distinct base ids give distinct ids. Otherwise (connectionID empty or not
// a name, baseID empty or not showable) it returns baseID unchanged and
// false: a hit without a connection keeps its id, which fetches only if it
// is a legacy handle. SelfContainedID never guesses that baseID already is
// a handle; a server whose resource server mints self-contained handles
// parses them and passes base id and connection apart.
func SelfContainedID(baseID, connectionID string) (id string, embedded bool) {
	if f := checkPart(connectionID, "", connectionBytes); f.fault != faultNone {
		return baseID, false
	}
	if _, f := checkChars(baseID, opaqueBytes); f != faultNone || baseID == "" {
		return baseID, false
	}
	if h, f := parse(baseID); f.fault == faultNone && !h.IsSelfContained() {
		return join(connectionID, "/", baseID), true
	}
	return join(connectionID, "/:", baseID), true
}

// IsValid reports whether h is a parsed handle rather than the zero Handle.
func (h Handle) IsValid() bool { return h.id != "" }

// IsSelfContained reports whether h embeds its connection: whether it has
// the form connection/stream:record or connection/:opaque.
func (h Handle) IsSelfContained() bool { return h.stream > 0 }

// ConnectionID returns the embedded connection, decoded. %25, %2F and %3A
// become '%', '/' and ':'; a legacy handle and the zero Handle give "". It
// allocates only when the connection segment holds an escape.
func (h Handle) ConnectionID() string {
	if h.stream == 0 {
		return ""
	}
	return unescape(h.id[:h.stream-1])
}

// embeds reports whether h embeds the connection conn, comparing the
// decoded connection segment with conn without allocating.
func (h Handle) embeds(conn string) bool {
	if h.stream == 0 {
		return false
	}
	seg := h.id[:h.stream-1]
	if strings.IndexByte(seg, '%') < 0 {
		return seg == conn
	}
	j := 0
	for i := 0; i < len(seg); j++ {
		c := seg[i]
		i++
		if c == '%' {
			c = unescapeByte(seg[i:])
			i += 2
		}
		if j >= len(conn) || conn[j] != c {
			return false
		}
	}
	return j == len(conn)
}

// unescape decodes a connection segment that parse accepted.
func unescape(seg string) string {
	if strings.IndexByte(seg, '%') < 0 {
		return seg
	}
	var b strings.Builder
	b.Grow(len(seg))
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c == '%' {
			c = unescapeByte(seg[i+1:])
			i += 2
		}
		b.WriteByte(c)
	}
	return b.String()
}

// unescapeByte returns the byte that the two hex digits at the start of
// hex, those of an escape that parse accepted, stand for.
func unescapeByte(hex string) byte {
	switch hex[:2] {
	case "25":
		return '%'
	case "2F":
		return '/'
	}
	return ':'
}

// isEscapeHex reports whether hex, the two bytes after a '%' of a
// connection segment, make one of its three escapes: %25, %2F or %3A,
// uppercase.
func isEscapeHex(hex string) bool {
	return hex == "25" || hex == "2F" || hex == "3A"
}

// Stream returns the stream segment. It returns "" for an opaque handle and
// for the zero Handle. It does not allocate.
func (h Handle) Stream() string { return h.id[h.stream:h.colon] }

// RecordID returns the record segment, which may itself contain ':'. It is
// the opaque base id of an opaque handle, and "" for the zero Handle. It
// does not allocate.
func (h Handle) RecordID() string {
	if h.id == "" {
		return ""
	}
	return h.id[h.colon+1:]
}

// IsOpaque reports whether h has the opaque form connection/:opaque. A
// server must look an opaque base id up within the handle's connection and
// never build a file system or URL path from it.
func (h Handle) IsOpaque() bool { return h.id != "" && h.stream == h.colon }

// BaseID returns the id without its connection. That is stream:record for a
// plain handle, the opaque base id for an opaque one, "" for the zero
// Handle. It does not allocate.
func (h Handle) BaseID() string {
	if h.IsOpaque() {
		return h.id[h.colon+1:]
	}
	return h.id[h.stream:]
}

// String returns the id h was parsed from, byte for byte. It returns "" for
// the zero Handle.
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

// parse is Parse without the error value. With the vector kernel, an id
// of up to 64 bytes is read once by parseChunk, which accepts it from the
// classes of its bytes or leaves it to parseScan, which finds its fault;
// any other id is read by parseScan.
func parse(id string) (Handle, failure) {
	if id == "" {
		return Handle{}, failure{faultEmpty, "", -1}
	}
	if chunk == vectorChunk && len(id) <= vectorChunk {
		if h, ok := parseChunk(id); ok {
			return h, failure{}
		}
	}
	return parseScan(id)
}

// parseScan is the parser of the grammar that reports faults. It reads
// the id once, from left to right, a chunk a step, and looks only at the
// bytes that the set of the segment it is in stops at: a separator moves
// to the next segment and its set, a fault ends the parse, so the first
// fault of the id is the one reported. The first segment is read as a
// connection segment; when it stops at a fault (a ':' included) and no
// '/' follows, the id is a legacy handle and the segment is its stream: a
// ':' ends it, a '%' that starts no escape is a stream's byte, any other
// fault is the stream's. An empty segment is reported at the separator
// beside it, a missing ':' at the start of the segment that lacks it.
func parseScan(id string) (Handle, failure) {
	set := segmentBytes
	start := 0      // the stream's offset
	colon := 0      // the offset of the ':' that ends the stream
	legacy := false // the stream starts the id: a '/' after colon makes it a connection segment
	c := cursor{i: -chunk}
	for {
		j, f := scan(id, &c, set)
		if f == faultNone {
			return end(id, set, start, colon)
		}
		// The scan stopped at a separator or at the first fault: the
		// same byte means one or the other by the segment it ends.
		var fl failure
		switch {
		case set == segmentBytes && f == faultSecondSlash:
			fl = connectionEnd(id, j)
			start, set = j+1, nameNoColonBytes
			if start < len(id) && id[start] == ':' {
				colon, set = start, opaqueBytes
				c.opaque(start + 1)
			}
		case set == segmentBytes && f == faultColon:
			// A legacy handle's stream, unless a '/' follows: looked
			// for only if the parse fails.
			fl = streamEnd(id, start, j)
			colon, set, legacy = j, nameBytes, true
		case set == segmentBytes && strings.IndexByte(id[j:], '/') >= 0:
			fl = failure{f, SegmentConnection, j}
		case set == segmentBytes && f == faultEscape:
			// A legacy handle's stream, where '%' is any byte.
			set = nameNoColonBytes
		case set == nameNoColonBytes && f == faultColon:
			fl = streamEnd(id, start, j)
			colon, set = j, nameBytes
		case set == segmentBytes || set == nameNoColonBytes:
			fl = failure{f, SegmentStream, j}
		default:
			fl = failure{f, SegmentRecord, j}
		}
		if fl.fault != faultNone {
			if legacy && strings.IndexByte(id[colon:], '/') >= 0 {
				fl = failure{faultColon, SegmentConnection, colon}
			}
			return Handle{}, fl
		}
	}
}

// connectionEnd checks the connection segment that the '/' at slash ends:
// it must not be empty or ".", and an opaque id after it not empty.
func connectionEnd(id string, slash int) failure {
	switch {
	case slash == 0:
		return failure{faultEmptySegment, SegmentConnection, 0}
	case slash == 1 && id[0] == '.':
		return failure{faultDot, SegmentConnection, 0}
	case id[slash+1:] == ":":
		return failure{faultEmptySegment, SegmentRecord, slash + 1}
	}
	return failure{}
}

// streamEnd checks the stream from start that the ':' at colon ends, and
// the record after it: neither may be empty or ".".
func streamEnd(id string, start, colon int) failure {
	switch {
	case colon == start:
		return failure{faultEmptySegment, SegmentStream, start}
	case colon == start+1 && id[start] == '.':
		return failure{faultDot, SegmentStream, start}
	case colon == len(id)-1:
		return failure{faultEmptySegment, SegmentRecord, colon}
	case id[colon+1:] == ".":
		return failure{faultDot, SegmentRecord, colon + 1}
	}
	return failure{}
}

// end finishes the parse of an id whose scan reached its end in the
// segment that set checks.
func end(id string, set *charSet, start, colon int) (Handle, failure) {
	switch set {
	case nameBytes:
		return Handle{id: id, stream: start, colon: colon}, failure{}
	case opaqueBytes:
		return Handle{id: id, stream: colon, colon: colon}, failure{}
	case nameNoColonBytes:
		if start == len(id) {
			return Handle{}, failure{faultEmptySegment, SegmentStream, start - 1}
		}
	}
	// A stream without its ':'.
	if id[start:] == "." {
		return Handle{}, failure{faultDot, SegmentStream, start}
	}
	return Handle{}, failure{faultNoColon, SegmentStream, start}
}

// checkPart checks one part given to Encode against the rule that set
// stands for. Within a part, a '/' is not a second separator but a
// forbidden character.
func checkPart(part, segment string, set *charSet) failure {
	if part == "" {
		return failure{faultEmptySegment, segment, -1}
	}
	if part == "." && set != opaqueBytes {
		return failure{faultDot, segment, 0}
	}
	off, f := checkChars(part, set)
	if f == faultSecondSlash {
		f = faultSlash
	}
	return failure{f, segment, off}
}

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
// grammar's character rules. It reads s a chunk at a time, 64 bytes with
// the vector kernel (vectorStops), 8 with the portable one (the set's
// table), from where c stands (c.i = -chunk to start at 0), and leaves c
// after the byte it stopped at, so that the next call goes on from there,
// with the same set or with one that stops at fewer bytes; no byte is
// read twice. Each stop is judged by its entry in set, and goes straight
// to the next; a non-ASCII character that the chunk's stops still hold is
// checked by its lead and continuation bytes, three-byte ones in runs
// (decode takes the rare ones).
func scan(s string, c *cursor, set *charSet) (int, fault) {
	i, m, o := c.i, c.m, c.o
	for {
		for m == 0 {
			i += chunk
			if i >= len(s) {
				c.i, c.m, c.o = i, 0, 0
				return len(s), faultNone
			}
			switch {
			case chunk == vectorChunk:
				m, o = vectorStops(s[i:])
			case len(s)-i >= 8:
				// The portable kernel: eight stops from the set's table.
				b, t := s[i:i+8], &set.stop
				m = uint64(t[b[0]]) + uint64(t[b[1]])<<1 + uint64(t[b[2]])<<2 + uint64(t[b[3]])<<3 +
					(uint64(t[b[4]])+uint64(t[b[5]])<<1+uint64(t[b[6]])<<2+uint64(t[b[7]])<<3)<<4
				o = m
			default:
				m = set.lastStops(s[i:])
				o = m
			}
		}
		j := i + bits.TrailingZeros64(m)
		m &= m - 1
		switch f := set.fault[s[j]]; f {
		case faultNone:
		case faultDotDot:
			if j+1 < len(s) && s[j+1] == '.' {
				c.i, c.m, c.o = i, m, o
				return j, f
			}
		case faultEscape:
			if j+2 >= len(s) || !isEscapeHex(s[j+1:j+3]) {
				c.i, c.m, c.o = i, m, o
				return j, f
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
					w := load64(s[k:])
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
					c.i, c.m, c.o = i, m, o
					return j, f
				}
			}
			// Past the characters' bytes.
			if d := j + n - i; d < chunk {
				m &= ^uint64(0) << d
			} else {
				i, m, o = j+n-chunk, 0, 0
			}
		default:
			c.i, c.m, c.o = i, m, o
			return j, f
		}
	}
}

// vectorStops returns the stops of the first 64 bytes of s with the
// vector kernel: those of every set (the sets that admit some of them
// judge them by their faults), and those of opaqueBytes.
func vectorStops(s string) (m, opaque uint64) {
	var k chunkClasses
	k.classify(s[:min(len(s), vectorChunk)])
	return k.stops()
}

// portableChunk is the number of bytes the portable kernel reads at once.
const portableChunk = 8

// cursor is where scan is in a string: a chunk and its stops not yet
// looked at, for the set of the scan and for opaqueBytes. The portable
// kernel has no stops apart for opaqueBytes, and gives the set's.
type cursor struct {
	i    int    // the offset of the chunk
	m, o uint64 // its stops: bit k for the byte at i+k
}

// opaque moves the cursor to the opaque id that starts at start, in its
// chunk or the next, where a scan with opaqueBytes goes on.
func (c *cursor) opaque(start int) {
	if d := start - c.i; d < chunk {
		c.m = c.o & (^uint64(0) << d)
	} else {
		c.i, c.m, c.o = start-chunk, 0, 0
	}
}

// lastStops returns the stops of the last one to seven bytes of a string,
// by the set's table.
func (set *charSet) lastStops(s string) uint64 {
	m := uint64(0)
	for k := 0; k < len(s); k++ {
		m |= uint64(set.stop[s[k]]) << k
	}
	return m
}

// load64 reads the first eight bytes of s, little-endian.
func load64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// checkChars returns the offset and kind of the first byte of s that set
// rules out, or faultNone: scan of a single segment.
func checkChars(s string, set *charSet) (int, fault) {
	c := cursor{i: -chunk}
	j, f := scan(s, &c, set)
	if f == faultNone {
		return 0, f
	}
	return j, f
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
