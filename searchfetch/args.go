package searchfetch

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// MaxArgumentsSize is the most bytes the JSON arguments of one tool call may
// have. It leaves room for ids of several kilobytes (long URLs) while
// keeping a call from handing a backend megabytes of query.
const MaxArgumentsSize = 64 << 10

// argSpec lists the arguments a tool takes, strings but for those that
// ints marks; the first required of them must be present.
type argSpec struct {
	names    []string
	required int
	// ints has bit i set when names[i] is an integer argument: a JSON
	// number without fraction or exponent, not negative. Its value
	// reaches the tool as its digits.
	ints uint64
	hint string
	// intHint is the hint of an error about an integer argument.
	intHint string
}

// The arguments of each tool in each mode. Their hints are templates, in
// which {search} stands for the search tool's name ([newHints]).
var (
	searchArgs        = argSpec{names: []string{"query", FieldCursor}, required: 1, hint: `pass {"query": "…"} with what to look for as a string, and a string cursor only as a {search} result's next_cursor gave it`}
	searchArgsChatGPT = argSpec{names: []string{"query"}, required: 1, hint: `pass {"query": "…"} with what to look for as a string`}
	fetchArgs         = argSpec{names: []string{"id", "connection_id", FieldOffset}, required: 1, ints: 1 << 2, hint: `pass {"id": "…"} with an id exactly as {search} showed it, and a string connection_id only where {search} showed one`}
	fetchArgsChatGPT  = argSpec{names: []string{"id"}, required: 1, hint: `pass {"id": "…"} with an id exactly as {search} showed it`}
)

// FieldOffset is the [mcpid.Error.Field] of an invalid_arguments error
// about the fetch tool's offset argument (see [Options.FetchBudget]).
const FieldOffset = "offset"

// offsetHint is the hint of every error about the offset argument, a
// template in which {fetch} stands for the fetch tool's name ([newHints]).
const offsetHint = `omit offset to read from the start, or pass the next_offset of a cut {fetch} result as a JSON integer`

// The messages of malformed arguments.
const (
	errNotObject      = "the arguments are not a JSON object"
	errArgumentsLarge = "the arguments are larger than the limit"
)

// readArgs reads raw, the JSON object of a tool call's arguments, into vals:
// vals[i] is the value of spec.names[i], "" when absent. Absent arguments
// (nil or null) are an empty object. Keys match exactly, after JSON
// unescaping; a key the tool does not take, a key given twice, a value that
// is not a string (null included) and a missing required argument are each
// an invalid_arguments error. Strings decode as encoding/json decodes them.
//
// It scans the object itself rather than through encoding/json's Decoder,
// whose tokens cost a dozen allocations a call; a value costs one, for its
// string.
func readArgs(raw []byte, spec argSpec, vals []string) error {
	if len(raw) > MaxArgumentsSize {
		return argError(errArgumentsLarge, spec.hint)
	}
	p := argScanner{s: raw}
	p.space()
	if p.i == len(p.s) || p.literal("null") {
		p.s, p.i = []byte("{}"), 0
	}
	if !p.consume('{') {
		return argError(errNotObject, spec.hint)
	}
	var seen uint64 // bit i: names[i] was given; a tool takes few arguments
	if p.space(); !p.consume('}') {
		for {
			p.space()
			key, ok := p.str()
			p.space()
			if !ok || !p.consume(':') {
				return argError(errNotObject, spec.hint)
			}
			i, ok := keyIndex(spec.names, key)
			switch {
			case !ok:
				return argError(errNotObject, spec.hint)
			case i < 0:
				k, _ := unquote(key)
				return argError("unknown argument "+quote(k), spec.hint)
			case seen&(1<<i) != 0:
				return argError("argument "+quote(spec.names[i])+" is given twice", spec.hint)
			}
			seen |= 1 << i
			p.space()
			if spec.ints&(1<<i) != 0 {
				if err := p.integer(spec.names[i], spec.intHint, &vals[i]); err != nil {
					return err
				}
			} else {
				val, ok := p.str()
				if !ok {
					return argError("argument "+quote(spec.names[i])+" is not a string", spec.hint)
				}
				if vals[i], ok = unquote(val); !ok {
					return argError(errNotObject, spec.hint)
				}
			}
			p.space()
			if p.consume(',') {
				continue
			}
			if p.consume('}') {
				break
			}
			return argError(errNotObject, spec.hint)
		}
	}
	if p.space(); p.i != len(p.s) {
		return argError(errNotObject, spec.hint)
	}
	for i := range spec.required {
		if seen&(1<<i) == 0 {
			return argError("missing argument "+quote(spec.names[i]), spec.hint)
		}
	}
	return nil
}

// argScanner reads the JSON of a tool call's arguments.
type argScanner struct {
	s []byte
	i int
}

// space skips JSON whitespace.
func (p *argScanner) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// consume skips c and reports whether it was next.
func (p *argScanner) consume(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// literal skips lit and reports whether it was next.
func (p *argScanner) literal(lit string) bool {
	if bytes.HasPrefix(p.s[p.i:], []byte(lit)) {
		p.i += len(lit)
		return true
	}
	return false
}

// str skips a JSON string and returns it with its quotes; ok is false when
// no well-formed string is next. It checks the string's bytes only as far as
// finding its end needs; unquote decodes it.
func (p *argScanner) str() (lit []byte, ok bool) {
	if !p.consume('"') {
		return nil, false
	}
	start := p.i - 1
	for j := p.i; j < len(p.s); j++ {
		switch c := p.s[j]; {
		case c == '"':
			p.i = j + 1
			return p.s[start:p.i], true
		case c == '\\':
			j++ // the escaped byte cannot end the string
		case c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// integer skips a JSON number and sets *val to its digits when it is a
// whole number that is not negative. Any other value (a fraction, an
// exponent, a negative number, a string, null) is an invalid_arguments
// error whose Field is name.
func (p *argScanner) integer(name, hint string, val *string) error {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("0123456789+-.eE", p.s[p.i]) >= 0 {
		p.i++
	}
	num := p.s[start:p.i]
	digits := bytes.TrimPrefix(num, []byte("-"))
	whole := len(digits) > 0 && (digits[0] != '0' || len(digits) == 1)
	for _, c := range digits {
		whole = whole && '0' <= c && c <= '9'
	}
	switch {
	case whole && len(digits) < len(num):
		return fieldError(name, "argument "+quote(name)+" is negative", hint)
	case !whole:
		return fieldError(name, "argument "+quote(name)+" is not an integer", hint)
	}
	*val = string(digits)
	return nil
}

// unquote returns the value of lit, a string that str found: its bytes when
// it holds no escape and is valid UTF-8, and otherwise what encoding/json
// decodes (invalid UTF-8 becomes U+FFFD). ok is false for a bad escape.
func unquote(lit []byte) (string, bool) {
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	return unescape(lit)
}

// unescape decodes lit with encoding/json. It is a function of its own so
// that the plain path of unquote does not pay for the variable that
// json.Unmarshal makes escape.
func unescape(lit []byte) (string, bool) {
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err == nil
}

// keyIndex returns the position in names of the key whose literal is lit,
// or -1; ok is false for a bad escape. A plain key is compared without
// allocating.
func keyIndex(names []string, lit []byte) (i int, ok bool) {
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body) {
		key, ok := unquote(lit)
		return index(names, key), ok
	}
	for i, n := range names {
		if string(body) == n {
			return i, true
		}
	}
	return -1, true
}

// index returns the position of key in names, or -1.
func index(names []string, key string) int {
	for i, n := range names {
		if n == key {
			return i
		}
	}
	return -1
}
