package mcpid

import "unicode/utf8"

// fault is the rule an input broke; it selects the message.
type fault uint8

const (
	faultNone fault = iota
	faultEmpty
	faultEmptySegment
	faultNoColon
	faultSecondSlash
	faultSlash
	faultColon
	faultDot
	faultDotDot
	faultBackslash
	faultControl
	faultUTF8
	faultEscape
	faultUnknown // never expected; keeps a failure closed
)

// faultMessage words the fault of an invalid_id or invalid_connection_id
// error: the part at fault, then what is wrong with it.
func (e *Error) faultMessage() string {
	where := e.Field
	if e.Segment != "" {
		where = e.Segment + " segment"
	}
	if where == "" {
		where = "input"
	}
	var what string
	switch e.fault {
	case faultEmpty, faultEmptySegment:
		what = "is empty"
	case faultNoColon:
		what = "has no ':' before the record"
	case faultSecondSlash:
		what = "has a second '/'"
	case faultSlash:
		what = "contains '/'"
	case faultColon:
		what = "contains ':'"
	case faultDot:
		what = `is "."`
	case faultDotDot:
		what = `contains ".."`
	case faultBackslash:
		what = `contains '\'`
	case faultControl:
		what = "contains a control character"
		// Offset and Input are exported: a caller may have changed them.
		if e.Offset >= 0 && e.Offset < len(e.Input) {
			if r, _ := utf8.DecodeRuneInString(e.Input[e.Offset:]); isControl(r) {
				what = "contains control character " + quoteRune(r)
			}
		}
	case faultUTF8:
		what = "is not valid UTF-8"
	case faultEscape:
		what = "has a '%' that is not %25, %2F or %3A"
	default:
		what = "is invalid"
	}
	return where + " " + what
}

// isControl reports whether r is a C0 or C1 control or DEL, the runes
// the grammar rejects as control characters.
func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) }

// quoteRune formats r, a C0 or C1 control or DEL, as U+00XX.
func quoteRune(r rune) string {
	const hex = "0123456789ABCDEF"
	return "U+00" + string([]byte{hex[r>>4&0xf], hex[r&0xf]})
}
