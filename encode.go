package mcpid

import "strings"

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
