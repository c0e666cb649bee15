package searchfetch

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpid/mcpid/internal/jsonlit"
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
	// number whose value is a whole number, not negative. Its value
	// reaches the tool as its digits.
	ints uint64
	hint string
	// intHint is the hint of an error about an integer argument.
	intHint string
	// extra are the arguments the server declared beside these, or nil.
	extra *extraArgs
}

// The arguments of each tool in each mode, the first named by
// [Options.QueryArg] or [Options.IDArg]. Their hints are templates, in
// which {search} stands for the search tool's name, {query} and {id} for
// those arguments' names ([newHints]).
var (
	searchArgs        = argSpec{names: []string{"query", FieldCursor}, required: 1, hint: `pass {"{query}": "…"} with what to look for as a string, and a string cursor only as a {search} result's next_cursor gave it`}
	searchArgsChatGPT = argSpec{names: []string{"query"}, required: 1, hint: `pass {"{query}": "…"} with what to look for as a string`}
	fetchArgs         = argSpec{names: []string{"id", "connection_id", FieldOffset}, required: 1, ints: 1 << 2, hint: `pass {"{id}": "…"} with an id exactly as {search} showed it, and a string connection_id only where {search} showed one`}
	fetchArgsChatGPT  = argSpec{names: []string{"id"}, required: 1, hint: `pass {"{id}": "…"} with an id exactly as {search} showed it`}
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
// The arguments the server declared (spec.extra) are checked by their
// type and enum ([argScanner.readExtra]) and returned as the canonical
// object a backend receives, members in the order of the server's schema;
// without any, the Args are zero.
//
// It scans the object itself rather than through encoding/json, for a rule
// encoding/json cannot give: a key given twice, or in another case
// ("ID" for "id"), is refused, where encoding/json keeps the last and
// matches keys without regard to case, so that a call means one thing to
// every reader of it. The scan also costs one allocation a value, for its
// string, where encoding/json's Decoder costs a dozen a call.
func readArgs(raw []byte, spec argSpec, vals []string) (Args, error) {
	if len(raw) > MaxArgumentsSize {
		return Args{}, argError(errArgumentsLarge, spec.hint)
	}
	p := argScanner{s: raw}
	p.space()
	if p.i == len(p.s) || p.literal("null") {
		p.s, p.i = []byte("{}"), 0
	}
	if !p.consume('{') {
		return Args{}, argError(errNotObject, spec.hint)
	}
	var seen uint64    // bit i: names[i] was given; a tool takes few arguments
	var extra []string // the declared arguments' canonical values
	if spec.extra != nil {
		extra = make([]string, len(spec.extra.args))
	}
	if p.space(); !p.consume('}') {
		for {
			p.space()
			key, ok := p.str()
			p.space()
			if !ok || !p.consume(':') {
				return Args{}, argError(errNotObject, spec.hint)
			}
			i, ok := keyIndex(spec.names, key)
			switch {
			case !ok:
				return Args{}, argError(errNotObject, spec.hint)
			case i < 0:
				if err := p.extraArg(spec, key, extra); err != nil {
					return Args{}, err
				}
			case seen&(1<<i) != 0:
				return Args{}, argError("argument "+quote(spec.names[i])+" is given twice", spec.hint)
			default:
				seen |= 1 << i
				if err := p.ownArg(spec, i, vals); err != nil {
					return Args{}, err
				}
			}
			p.space()
			if p.consume(',') {
				continue
			}
			if p.consume('}') {
				break
			}
			return Args{}, argError(errNotObject, spec.hint)
		}
	}
	if p.space(); p.i != len(p.s) {
		return Args{}, argError(errNotObject, spec.hint)
	}
	for i := range spec.required {
		if seen&(1<<i) == 0 {
			return Args{}, argError("missing argument "+quote(spec.names[i]), spec.hint)
		}
	}
	if spec.extra == nil {
		return Args{}, nil
	}
	for i, a := range spec.extra.args {
		if a.required && extra[i] == "" {
			return Args{}, fieldError(a.name, "missing argument "+quote(a.name), a.hint)
		}
	}
	return spec.extra.canonical(extra), nil
}

// ownArg reads the value of the tool's own argument spec.names[i] into
// vals[i].
func (p *argScanner) ownArg(spec argSpec, i int, vals []string) error {
	p.space()
	if spec.ints&(1<<i) != 0 {
		return p.integer(spec.names[i], spec.intHint, false, &vals[i])
	}
	val, ok := p.str()
	if !ok {
		return argError("argument "+quote(spec.names[i])+" is not a string", spec.hint)
	}
	if vals[i], ok = jsonlit.Unquote(val); !ok {
		return argError(errNotObject, spec.hint)
	}
	return nil
}

// extraArg reads the value of the argument whose key literal is key,
// which is none of the tool's own: one the server declared, whose
// canonical value goes into extra, or else an unknown argument.
func (p *argScanner) extraArg(spec argSpec, key []byte, extra []string) error {
	k, _ := jsonlit.Unquote(key)
	j := -1
	if spec.extra != nil {
		j = spec.extra.index(k)
	}
	switch {
	case j < 0:
		return argError("unknown argument "+quote(k), spec.hint)
	case extra[j] != "":
		return argError("argument "+quote(k)+" is given twice", spec.hint)
	}
	p.space()
	v, err := p.readExtra(&spec.extra.args[j])
	extra[j] = v
	return err
}

// argScanner reads the JSON of a tool call's arguments.
type argScanner struct {
	s []byte
	i int
}

// space skips JSON whitespace.
func (p *argScanner) space() { p.i = jsonlit.SkipSpace(p.s, p.i) }

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
// finding its end needs; [jsonlit.Unquote] decodes it.
func (p *argScanner) str() (lit []byte, ok bool) {
	end, _, ok := jsonlit.End(p.s, p.i)
	if !ok {
		return nil, false
	}
	lit, p.i = p.s[p.i:end], end
	return lit, true
}

// integer skips a JSON number and sets *val to its digits when its exact
// decimal value is a whole number that is not negative: 3, 3.0, 30e-1 and
// -0 are all integers, as JSON Schema's "integer" has it (clients that
// print every number as a float send 3.0), and 3.0000000000000001 is not.
// An exponent beyond ±maxExponent is refused rather than computed with,
// so that 1e999999999 costs no more than 1e3. Any other value (a
// fraction, a negative number, a string, null) is an invalid_arguments
// error whose Field is name.
//
// With signed, a negative value is an integer too, its digits after a
// '-' (-0 is 0): the rule of the integer arguments a server declares.
func (p *argScanner) integer(name, hint string, signed bool, val *string) error {
	start := p.i
	p.numberEnd()
	n, ok := parseNumber(p.s[start:p.i])
	switch {
	case !ok:
		return fieldError(name, "argument "+quote(name)+" is not an integer", hint)
	case n.exp < -maxExponent || n.exp > maxExponent:
		return fieldError(name, "argument "+quote(name)+" has an exponent beyond ±"+strconv.Itoa(maxExponent), hint)
	}
	digits, whole := n.integer()
	switch {
	case !whole:
		return fieldError(name, "argument "+quote(name)+" is not an integer", hint)
	case n.neg && digits != "0" && !signed:
		return fieldError(name, "argument "+quote(name)+" is negative", hint)
	case n.neg && digits != "0":
		digits = "-" + digits
	}
	*val = digits
	return nil
}

// numberEnd skips the bytes a JSON number may hold, which parseNumber
// then checks.
func (p *argScanner) numberEnd() {
	for p.i < len(p.s) && strings.IndexByte("0123456789+-.eE", p.s[p.i]) >= 0 {
		p.i++
	}
}

// maxExponent bounds the exponent of an integer argument: an offset is a
// byte count, which 31 digits exceed many times over.
const maxExponent = 30

// number is a JSON number, split as the grammar writes it: the digits of
// its integer and fraction parts and its exponent.
type number struct {
	neg           bool
	intPart, frac []byte
	exp           int // within ±(maxExponent+1): further is ±(maxExponent+1)
}

// parseNumber splits num, which must be the whole of a JSON number
// (RFC 8259, section 6), and reports whether it is one.
func parseNumber(num []byte) (n number, ok bool) {
	i := 0
	if i < len(num) && num[i] == '-' {
		n.neg, i = true, i+1
	}
	j := digitsEnd(num, i)
	if j == i || (num[i] == '0' && j > i+1) {
		return n, false // no digits, or a leading zero
	}
	n.intPart, i = num[i:j], j
	if i < len(num) && num[i] == '.' {
		j = digitsEnd(num, i+1)
		if j == i+1 {
			return n, false
		}
		n.frac, i = num[i+1:j], j
	}
	if i < len(num) && (num[i] == 'e' || num[i] == 'E') {
		i++
		neg := false
		if i < len(num) && (num[i] == '+' || num[i] == '-') {
			neg, i = num[i] == '-', i+1
		}
		j = digitsEnd(num, i)
		if j == i {
			return n, false
		}
		for _, c := range num[i:j] {
			if n.exp = n.exp*10 + int(c-'0'); n.exp > maxExponent {
				n.exp = maxExponent + 1
				break
			}
		}
		if neg {
			n.exp = -n.exp
		}
		i = j
	}
	return n, i == len(num)
}

// digitsEnd returns the index of the first byte at or after i in s that is
// not an ASCII digit.
func digitsEnd(s []byte, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// integer returns the decimal digits of n's absolute value, without
// leading zeros, and reports whether that value is a whole number. n's
// exponent must be within ±maxExponent, so the digits are at most that
// many longer than n's own.
func (n number) integer() (digits string, whole bool) {
	if len(n.frac) == 0 && n.exp == 0 {
		return string(n.intPart), true // the grammar allows no leading zero
	}
	all := make([]byte, 0, len(n.intPart)+len(n.frac)+max(n.exp, 0))
	all = append(append(all, n.intPart...), n.frac...)
	point := len(n.intPart) + n.exp // the decimal point's place in all
	for len(all) > max(point, 0) && all[len(all)-1] == '0' {
		all = all[:len(all)-1] // zeros after the point
	}
	if len(all) > max(point, 0) {
		return "", false
	}
	for len(all) < point {
		all = append(all, '0')
	}
	all = bytes.TrimLeft(all, "0")
	if len(all) == 0 {
		return "0", true
	}
	return string(all), true
}

// keyIndex returns the position in names of the key whose literal is lit,
// or -1; ok is false for a bad escape. A plain key is compared without
// allocating.
func keyIndex(names []string, lit []byte) (i int, ok bool) {
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body) {
		key, ok := jsonlit.Unquote(lit)
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
