package idcases

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// RefParse is the handle grammar read straight off the design, as plainly
// as possible: the slow reference that the parser is checked against. It
// splits at the first '/'; an empty stream after it marks the opaque form,
// whose record is the opaque base id.
func RefParse(id string) (conn, stream, record string, ok bool) {
	rest := id
	if c, r, found := strings.Cut(id, "/"); found {
		if !RefName(c, false) {
			return "", "", "", false
		}
		if opaque, isOpaque := strings.CutPrefix(r, ":"); isOpaque {
			if !RefOpaque(opaque) {
				return "", "", "", false
			}
			return c, "", opaque, true
		}
		conn, rest = c, r
	}
	stream, record, found := strings.Cut(rest, ":")
	if !found || !RefName(stream, false) || !RefName(record, true) {
		return "", "", "", false
	}
	return conn, stream, record, true
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
// SelfContainedID(base, conn), or nil: it is embedded exactly when conn
// can be embedded and base can be shown, unchanged when not embedded,
// resolved to conn when embedded, and gives base back when wrapped.
func CheckSelfContainedID(base, conn, id string, embedded bool, resolve Resolved) error {
	if want := RefName(conn, false) && RefOpaque(base); embedded != want {
		return fmt.Errorf("SelfContainedID(%q, %q) = %q, %v; want embedded %v", base, conn, id, embedded, want)
	}
	if !embedded {
		if id != base {
			return fmt.Errorf("SelfContainedID(%q, %q) = %q, not embedded but changed", base, conn, id)
		}
		return nil
	}
	gotConn, gotBase, err := resolve(id)
	if err != nil || gotConn != conn {
		return fmt.Errorf("SelfContainedID(%q, %q) = %q, which resolves to connection %q, %v", base, conn, id, gotConn, err)
	}
	if id != base && gotBase != base {
		return fmt.Errorf("SelfContainedID(%q, %q) = %q, whose base id is %q", base, conn, id, gotBase)
	}
	return nil
}
