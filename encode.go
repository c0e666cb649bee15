package mcpid

import "strings"

// Encode returns the id of the handle with the given parts: stream:record
// with no connection, connection/stream:record, or with an empty stream the
// opaque connection/:recordID. The connection is escaped (%25, %2F, %3A);
// Encode and [Parse] are exact inverses. A part that breaks the grammar is
// an [*Error] with Code [CodeInvalidID]. Encode allocates once.
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
