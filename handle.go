package mcpid

import (
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

// isEscape reports whether s starts with one of the three escapes of a
// connection segment: %25, %2F or %3A, uppercase.
func isEscape(s string) bool {
	return len(s) >= 3 && s[0] == '%' && (s[1:3] == "25" || s[1:3] == "2F" || s[1:3] == "3A")
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

// parse is Parse without the error value: the one parser of the grammar.
// It reads the id once, segment by segment, each with checkChars and the
// byte set of its rule: a segment's scan stops at the separator that ends
// it or at its first fault, so the first fault of the id is the one
// reported. The first segment is read as a connection segment; when its
// scan stops at a ':' or a fault and no '/' follows, the id is a legacy
// handle, and the segment is its stream. An empty segment is reported at
// the separator beside it, a missing ':' at the start of the segment that
// lacks it.
func parse(id string) (Handle, failure) {
	if id == "" {
		return Handle{}, failure{faultEmpty, "", -1}
	}
	end, f := checkChars(id, segmentBytes)
	switch {
	case f == faultSecondSlash: // the '/' that ends the connection
		switch {
		case end == 0:
			return Handle{}, failure{faultEmptySegment, SegmentConnection, 0}
		case end == 1 && id[0] == '.':
			return Handle{}, failure{faultDot, SegmentConnection, 0}
		}
		start := end + 1
		if start < len(id) && id[start] == ':' {
			return parseOpaque(id, start)
		}
		return parseStream(id, start)
	case f == faultNone:
		return parseStream(id, 0)
	case strings.IndexByte(id[end:], '/') >= 0:
		// The first fault of a connection segment.
		return Handle{}, failure{f, SegmentConnection, end}
	case f == faultColon:
		// A legacy handle whose stream the scan checked: a connection
		// segment's bytes are a stream's, and so are its escapes.
		return parseRecord(id, 0, end)
	}
	return parseStream(id, 0)
}

// parseStream parses the rest of a plain handle from start: the stream,
// its ':' and the record.
func parseStream(id string, start int) (Handle, failure) {
	rest := id[start:]
	colon, f := checkChars(rest, nameNoColonBytes)
	switch {
	case f == faultNone && rest == "":
		return Handle{}, failure{faultEmptySegment, SegmentStream, start - 1}
	case f == faultNone && rest == ".":
		return Handle{}, failure{faultDot, SegmentStream, start}
	case f == faultNone:
		return Handle{}, failure{faultNoColon, SegmentStream, start}
	case f != faultColon:
		return Handle{}, failure{f, SegmentStream, start + colon}
	}
	return parseRecord(id, start, start+colon)
}

// parseRecord parses the record of a plain handle whose stream, from
// start to the ':' at colon, has no fault but may be empty or ".".
func parseRecord(id string, start, colon int) (Handle, failure) {
	switch {
	case colon == start:
		return Handle{}, failure{faultEmptySegment, SegmentStream, start}
	case colon == start+1 && id[start] == '.':
		return Handle{}, failure{faultDot, SegmentStream, start}
	case colon == len(id)-1:
		return Handle{}, failure{faultEmptySegment, SegmentRecord, colon}
	}
	if off, f := checkName(id[colon+1:], nameBytes); f != faultNone {
		return Handle{}, failure{f, SegmentRecord, colon + 1 + off}
	}
	return Handle{id: id, stream: start, colon: colon}, failure{}
}

// parseOpaque parses the rest of an opaque handle, whose ':' is at colon,
// right after the '/' that ends its checked connection. The opaque base id
// is reported as the record segment, which is what [Handle.RecordID]
// returns for it.
func parseOpaque(id string, colon int) (Handle, failure) {
	opaque := id[colon+1:]
	if opaque == "" {
		return Handle{}, failure{faultEmptySegment, SegmentRecord, colon}
	}
	if off, f := checkChars(opaque, opaqueBytes); f != faultNone {
		return Handle{}, failure{f, SegmentRecord, colon + 1 + off}
	}
	return Handle{id: id, stream: colon, colon: colon}, failure{}
}

// checkPart checks one part given to Encode against the rule that set
// stands for. Within a part, a '/' is not a second separator but a
// forbidden character.
func checkPart(part, segment string, set *byteSet) failure {
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

// byteSet classifies each byte for one rule of the grammar, so that
// checkChars decides most bytes with one table lookup. An ASCII byte that
// the rule admits with no further look is asciiOK; a lead byte of a two-
// or three-byte UTF-8 sequence whose value alone rules out a control, an
// overlong form and a surrogate (0xC3 to 0xDF; 0xE1 to 0xEF but 0xED) is
// lead2 or lead3, and needs only its continuation bytes checked; any other
// byte is 0 and takes the slow path. In the set of the connection
// segment, '%' is escape: it must start %25, %2F or %3A. The classes are
// bits, so that checkChars can AND the entries of four bytes and test
// asciiOK without a branch each.
type byteSet [256]uint8

// The classes of a byteSet.
const (
	asciiOK = 1 << iota
	lead2
	lead3
	escape
)

// newByteSet returns the set of the printable ASCII bytes (0x20 to 0x7E)
// other than those in reserved, with the lead bytes of a rule that admits
// every character from U+00A0 up.
func newByteSet(reserved string) *byteSet {
	var s byteSet
	for c := 0x20; c < 0x7f; c++ {
		if !strings.ContainsRune(reserved, rune(c)) {
			s[c] = asciiOK
		}
	}
	for c := 0xC3; c <= 0xDF; c++ {
		s[c] = lead2
	}
	for c := 0xE1; c <= 0xEF; c++ {
		if c != 0xED {
			s[c] = lead3
		}
	}
	return &s
}

// The byte sets of the grammar's rules. A '.' that a set leaves out is a
// fault only as the first of "..".
var (
	nameNoColonBytes = newByteSet(`/\:.`)
	nameBytes        = newByteSet(`/\.`)
	opaqueBytes      = newByteSet("")
	// connectionBytes is a connection id as given: a name that may hold
	// '/' and ':'. segmentBytes is the connection segment it is written
	// as, with '%', '/' and ':' escaped.
	connectionBytes = newByteSet(`\.`)
	segmentBytes    = escapes(newByteSet(`/\:.%`))
)

// escapes returns set with '%' in class escape.
func escapes(set *byteSet) *byteSet {
	set['%'] = escape
	return set
}

// checkName checks a non-empty name against the name rule, with set
// nameNoColonBytes or nameBytes, and returns the offset and kind of its
// first fault, or faultNone. A '/' is reported as faultSecondSlash, its
// meaning inside an id. It is small enough to be inlined: parse calls it
// on every segment but the connection.
func checkName(name string, set *byteSet) (int, fault) {
	if name == "." {
		return 0, faultDot
	}
	return checkChars(name, set)
}

// checkChars returns the offset and kind of the first byte of s that is
// neither in set nor the start of a valid UTF-8 sequence for a character
// from U+00A0 up, or faultNone. It is the one check of the grammar's
// character rules, and it looks at each byte once: eight ASCII bytes of
// the set cost eight table lookups and one branch; a two- or three-byte
// character whose lead byte the set classes costs a look at its
// continuation bytes; a '%' of a connection segment, a look at the two
// bytes after it; any other non-ASCII character is decoded.
func checkChars(s string, set *byteSet) (int, fault) {
	i := 0
	for i < len(s) {
		switch set[s[i]] {
		case asciiOK:
			// A run of ASCII: eight bytes a step, then byte by byte up
			// to the byte that ended it.
			i++
			for len(s)-i >= 8 {
				w := s[i : i+8]
				if set[w[0]]&set[w[1]]&set[w[2]]&set[w[3]]&set[w[4]]&set[w[5]]&set[w[6]]&set[w[7]]&asciiOK == 0 {
					break
				}
				i += 8
			}
			for i < len(s) && set[s[i]] == asciiOK {
				i++
			}
			continue
		case lead3:
			// A run of three-byte characters, as in CJK text: two a
			// step, their leads by the table and their four
			// continuation bytes with one mask, then one.
			for len(s)-i >= 8 {
				w := s[i : i+8]
				v := uint64(w[1]) | uint64(w[2])<<8 | uint64(w[4])<<16 | uint64(w[5])<<24
				if set[w[0]]&set[w[3]] != lead3 || v&0xC0C0C0C0 != 0x80808080 {
					break
				}
				i += 6
			}
			for len(s)-i >= 3 {
				w := s[i : i+3]
				if set[w[0]] != lead3 || (w[1]^0x80)|(w[2]^0x80) >= 0x40 {
					break
				}
				i += 3
			}
			if i == len(s) || set[s[i]] != lead3 {
				continue
			}
		case lead2:
			if i+1 < len(s) && s[i+1]^0x80 < 0x40 {
				i += 2
				continue
			}
		case escape:
			if !isEscape(s[i:]) {
				return i, faultEscape
			}
			i += 3
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '.' && (i+1 == len(s) || s[i+1] != '.') {
				i++
				continue
			}
			if c == '.' {
				return i, faultDotDot
			}
			return i, asciiFault(c)
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i, faultUTF8
		}
		if r <= 0x9f {
			return i, faultControl
		}
		i += size
	}
	return 0, faultNone
}

// asciiFault returns the fault of an ASCII byte that a set left out.
func asciiFault(c byte) fault {
	switch c {
	case ':':
		return faultColon
	case '/':
		return faultSecondSlash
	case '\\':
		return faultBackslash
	}
	return faultControl
}
