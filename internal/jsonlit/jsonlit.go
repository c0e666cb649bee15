// Package jsonlit reads the pieces of JSON that the module's own scanners
// share: where a string literal ends, what it decodes to, and where white
// space stops, in a string or a []byte alike.
//
// It is no JSON parser: a scanner keeps its own grammar where it has a
// rule encoding/json cannot give or a cost it was measured to save (each
// says which in its doc), and every value with an escape is decoded by
// encoding/json, so that it reads as encoding/json reads it.
package jsonlit

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Text is JSON text as a string or a []byte.
type Text interface{ string | []byte }

// End returns the index just past the closing quote of the JSON string
// literal that starts at s[i], whether the literal holds an escape, and
// true. It returns false, with the index of the fault, when s[i] is not
// '"' or when s ends, or holds a control byte, before the closing quote.
// It checks only what finding the end needs: a bad escape such as \x is
// left to [Unquote].
func End[T Text](s T, i int) (end int, escaped, ok bool) {
	if i < 0 || i >= len(s) || s[i] != '"' {
		return i, false, false
	}
	for i++; i < len(s); i++ {
		c := s[i]
		if !stops[c] {
			continue
		}
		switch {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			i++ // the escaped byte cannot end the literal
			escaped = true
		default:
			return i, escaped, false
		}
	}
	return len(s), escaped, false
}

// stops marks the bytes at which End looks closer: the quote, the
// backslash, and the control bytes, which a literal may not hold raw. One
// look-up a byte keeps End as fast as the loop the table scanner of
// package toolname had of its own (its BenchmarkTableScan).
var stops = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// Unquote returns the value of lit, a whole JSON string literal as [End]
// delimits it, as encoding/json decodes it (invalid UTF-8 and lone
// surrogate escapes become U+FFFD), and false for a bad escape or a lit
// without a quote at each end. It is the second half of a scan and
// trusts End for the rest: a lit End would not delimit gets no reliable
// answer. A literal without escapes that is valid UTF-8 costs no more
// than the string of its bytes (nothing, for a string).
func Unquote[T Text](lit T) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	if body := lit[1 : len(lit)-1]; plain(body) {
		return string(body), true
	}
	return unescape([]byte(lit))
}

// plain reports whether body holds no backslash and is valid UTF-8: the
// body of a literal whose value is its own bytes.
func plain[T Text](body T) bool {
	switch b := any(body).(type) {
	case string:
		return strings.IndexByte(b, '\\') < 0 && utf8.ValidString(b)
	case []byte:
		return bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b)
	}
	return false
}

// unescape decodes lit with encoding/json. It is a function of its own so
// that the plain path of Unquote does not pay for the variable that
// json.Unmarshal makes escape.
func unescape(lit []byte) (string, bool) {
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err == nil
}

// IsSpace reports whether c is JSON white space: space, tab, line feed or
// carriage return.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte at or after i in s that
// is not JSON white space, or len(s) when there is none; i itself when i
// is outside s.
func SkipSpace[T Text](s T, i int) int {
	for 0 <= i && i < len(s) && IsSpace(s[i]) {
		i++
	}
	return i
}
