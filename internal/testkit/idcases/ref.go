package idcases

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// RefParse is the handle grammar read straight off the ABNF of the
// package doc, as plainly as possible: the slow reference that the parser
// is checked against. It splits at the first '/'; an empty stream after
// it marks the opaque form, whose record is the opaque base id. conn is
// the decoded connection.
func RefParse(id string) (conn, stream, record string, ok bool) {
	rest := id
	if c, r, found := strings.Cut(id, "/"); found {
		decoded, ok := RefSegment(c)
		if !ok {
			return "", "", "", false
		}
		if opaque, isOpaque := strings.CutPrefix(r, ":"); isOpaque {
			if !RefOpaque(opaque) {
				return "", "", "", false
			}
			return decoded, "", opaque, true
		}
		conn, rest = decoded, r
	}
	stream, record, found := strings.Cut(rest, ":")
	if !found || !RefName(stream, false) || !RefName(record, true) {
		return "", "", "", false
	}
	return conn, stream, record, true
}

// refUnescape decodes the three escapes of a connection segment.
var refUnescape = strings.NewReplacer("%25", "%", "%2F", "/", "%3A", ":")

// RefSegment decodes a connection segment: every '%' must start %25, %2F
// or %3A, there is no raw ':', and the decoded connection must be a
// connection id (RefConnection).
func RefSegment(seg string) (conn string, ok bool) {
	if strings.Contains(seg, ":") {
		return "", false
	}
	for i := 0; i < len(seg); i++ {
		if seg[i] == '%' {
			if e := seg[i:min(i+3, len(seg))]; e != "%25" && e != "%2F" && e != "%3A" {
				return "", false
			}
		}
	}
	conn = refUnescape.Replace(seg)
	return conn, RefConnection(conn)
}

// RefConnection reports whether s may be a connection id: a name that may
// hold '/' and ':'.
func RefConnection(s string) bool {
	return s != "." && !strings.Contains(s, "..") && !strings.Contains(s, `\`) && RefOpaque(s)
}

// RefEscape writes a connection id as its connection segment.
func RefEscape(conn string) string {
	return strings.NewReplacer("%", "%25", "/", "%2F", ":", "%3A").Replace(conn)
}

// RefName reports whether s follows the name rule, or name-nocolon unless
// colonOK.
func RefName(s string, colonOK bool) bool {
	if s == "." || strings.Contains(s, "..") || strings.ContainsAny(s, `/\`) {
		return false
	}
	if !colonOK && strings.Contains(s, ":") {
		return false
	}
	return RefOpaque(s)
}

// RefOpaque reports whether s follows the opaque rule: not empty, valid
// UTF-8, and no C0 control, DEL or C1 control.
func RefOpaque(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return false
		}
	}
	return true
}

// Resolved is what a fetch of an id alone resolves to: its connection and
// its base id, or an error.
type Resolved func(id string) (connectionID, baseID string, err error)

// CheckSelfContainedID returns what is wrong with id, embedded =
// SelfContainedID(base, conn), or nil: it is embedded exactly when conn is
// a connection id and base can be shown, unchanged when not embedded, and
// when embedded it resolves to exactly conn and base.
func CheckSelfContainedID(base, conn, id string, embedded bool, resolve Resolved) error {
	if want := RefConnection(conn) && RefOpaque(base); embedded != want {
		return fmt.Errorf("SelfContainedID(%q, %q) = %q, %v; want embedded %v", base, conn, id, embedded, want)
	}
	if !embedded {
		if id != base {
			return fmt.Errorf("SelfContainedID(%q, %q) = %q, not embedded but changed", base, conn, id)
		}
		return nil
	}
	gotConn, gotBase, err := resolve(id)
	if err != nil || gotConn != conn || gotBase != base {
		return fmt.Errorf("SelfContainedID(%q, %q) = %q, which resolves to connection %q and base %q, %v", base, conn, id, gotConn, gotBase, err)
	}
	return nil
}

// RefFault returns where the first fault of an id that RefParse rejects
// is: its segment ("connection", "stream" or "record") and its byte
// offset, or "" and -1 for the empty id. Segments are checked left to
// right and, within one, the first offending byte wins; an empty or "."
// segment is reported after its bytes are checked. The first '/' ends the
// connection segment, so a ':' before it is a fault of the connection. An
// empty record, and a missing stream after a final '/', are reported at
// the separator before them; an empty or "." stream, a "." record and a
// missing ':' at the segment's start.
func RefFault(id string) (segment string, offset int) {
	if id == "" {
		return "", -1
	}
	start := 0 // the stream's offset
	if slash := strings.IndexByte(id, '/'); slash >= 0 {
		conn := id[:slash]
		if off := refFirstFault(conn, `:\`, true, true); off >= 0 {
			return "connection", off
		}
		if conn == "" || conn == "." {
			return "connection", 0
		}
		start = slash + 1
		if opaque, ok := strings.CutPrefix(id[start:], ":"); ok {
			if opaque == "" {
				return "record", start
			}
			if off := refFirstFault(opaque, "", false, false); off >= 0 {
				return "record", start + 1 + off
			}
			return "", 0
		}
	}
	stream, record, found := strings.Cut(id[start:], ":")
	if off := refFirstFault(stream, `/\`, true, false); off >= 0 {
		return "stream", start + off
	}
	colon := start + len(stream)
	switch {
	case !found && stream == "" && start > 0:
		return "stream", start - 1 // nothing after the '/'
	case stream == "" || stream == ".":
		return "stream", start
	case !found:
		return "stream", start // no ':'
	case record == "":
		return "record", colon
	case record == ".":
		return "record", colon + 1
	}
	if off := refFirstFault(record, `/\`, true, false); off >= 0 {
		return "record", colon + 1 + off
	}
	return "", 0
}

// refFirstFault returns the offset of the first byte of seg that breaks
// its rule, or -1: a byte of forbidden, a control (C0, DEL, C1), invalid
// UTF-8, with plain the first '.' of "..", and with escapes a '%' that
// does not start %25, %2F or %3A.
func refFirstFault(seg, forbidden string, plain, escapes bool) int {
	for i := 0; i < len(seg); {
		r, size := utf8.DecodeRuneInString(seg[i:])
		switch {
		case r == utf8.RuneError && size == 1,
			r < 0x20 || (r >= 0x7f && r <= 0x9f),
			strings.ContainsRune(forbidden, r),
			plain && strings.HasPrefix(seg[i:], ".."),
			escapes && r == '%' && !refIsEscape(seg[i:]):
			return i
		}
		i += size
	}
	return -1
}

// refIsEscape reports whether s starts with one of the three escapes.
func refIsEscape(s string) bool {
	return strings.HasPrefix(s, "%25") || strings.HasPrefix(s, "%2F") || strings.HasPrefix(s, "%3A")
}
