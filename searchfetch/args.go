package searchfetch

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// MaxArgumentsSize is the most bytes the JSON arguments of one tool call may
// have. It leaves room for ids of several kilobytes (long URLs) while
// keeping a call from handing a backend megabytes of query.
const MaxArgumentsSize = 64 << 10

// argSpec lists the arguments a tool takes, all strings; the first required
// of them must be present.
type argSpec struct {
	names    []string
	required int
	hint     string
}

// The arguments of each tool in each mode.
var (
	searchArgs       = argSpec{names: []string{"query"}, required: 1, hint: `pass {"query": "<what to look for>"}`}
	fetchArgs        = argSpec{names: []string{"id", "connection_id"}, required: 1, hint: `pass {"id": "<an id exactly as search showed it>"}, with "connection_id" only where search showed one`}
	fetchArgsChatGPT = argSpec{names: []string{"id"}, required: 1, hint: `pass {"id": "<an id exactly as search showed it>"}`}
)

// The messages of malformed arguments.
const (
	errNotObject      = "the arguments are not a JSON object"
	errArgumentsLarge = "the arguments are larger than the limit"
)

// readArgs reads raw, the JSON object of a tool call's arguments, into vals:
// vals[i] is the value of spec.names[i], "" when absent. Absent arguments
// (nil or null) are an empty object. Keys match exactly; a key the tool does
// not take, a key given twice, a value that is not a string (null included)
// and a missing required argument are each an invalid_arguments error.
func readArgs(raw []byte, spec argSpec, vals []string) error {
	if len(raw) > MaxArgumentsSize {
		return argError(errArgumentsLarge, spec.hint)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return argError(errNotObject, spec.hint)
	}
	var seen uint64 // bit i: names[i] was given; a tool takes few arguments
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return argError(errNotObject, spec.hint)
		}
		key, _ := tok.(string)
		i := index(spec.names, key)
		switch {
		case i < 0:
			return argError("unknown argument "+keyText(key), spec.hint)
		case seen&(1<<i) != 0:
			return argError("argument "+keyText(key)+" is given twice", spec.hint)
		}
		seen |= 1 << i
		tok, err = dec.Token()
		if err != nil {
			return argError(errNotObject, spec.hint)
		}
		s, ok := tok.(string)
		if !ok {
			return argError("argument "+keyText(key)+" is not a string", spec.hint)
		}
		vals[i] = s
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return argError(errNotObject, spec.hint)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return argError(errNotObject, spec.hint)
	}
	for i := range spec.required {
		if seen&(1<<i) == 0 {
			return argError("missing argument "+keyText(spec.names[i]), spec.hint)
		}
	}
	return nil
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
