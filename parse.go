package mcpid

import "strings"

// Parse parses id as a fetch handle in any of its forms, by the grammar in
// the package doc. A malformed id is an [*Error] with Code [CodeInvalidID],
// naming the segment and byte offset of its first fault.
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

// parse is Parse without the error value: the one parser of the grammar.
// It reads the id once, from left to right, eight bytes a step, and looks
// only at the bytes that the set of the segment it is in stops at: a
// separator moves to the next segment and its set, a fault ends the
// parse, so the first fault of the id is the one reported. The first
// segment is read as a connection segment; when it stops at a fault (a
// ':' included) and no '/' follows, the id is a legacy handle and the
// segment is its stream: a ':' ends it, a '%' that starts no escape is a
// stream's byte, any other fault is the stream's. An empty segment is
// reported at the separator beside it, a missing ':' at the start of the
// segment that lacks it.
func parse(id string) (Handle, failure) {
	if id == "" {
		return Handle{}, failure{faultEmpty, "", -1}
	}
	set := segmentBytes
	start := 0      // the stream's offset
	colon := 0      // the offset of the ':' that ends the stream
	legacy := false // the stream starts the id: a '/' after colon makes it a connection segment
	i, m := -8, uint(0)
	for {
		var j int
		var f fault
		j, f, i, m = scan(id, i, m, set)
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
