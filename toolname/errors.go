package toolname

import (
	"errors"
	"fmt"
	"strconv"
)

// Code classifies an [*Error]. Its values are stable strings meant for logs,
// metrics and machine-readable error payloads.
type Code string

const (
	// CodeInvalidRoutingKey means that Split was given a string that Join
	// cannot produce: it has no "::" separator, or its server part holds a
	// raw ':' or a '%' that does not start one of the escapes %25 and %3A.
	CodeInvalidRoutingKey Code = "invalid_routing_key"

	// CodeInvalidKey means that Assign was given a [Key] whose server or
	// tool is empty or is not valid UTF-8.
	CodeInvalidKey Code = "invalid_key"

	// CodeInvalidProfile means that Assign was given a [Profile] whose
	// MaxLen is positive but too small to hold a hashed name, or above
	// the limit of the profile's character rule (see [Profile.MaxLen]).
	CodeInvalidProfile Code = "invalid_profile"

	// CodeInvalidReserved means that a name given to [WithReserved] is
	// not valid under the profile, so it could never be a tool's name.
	CodeInvalidReserved Code = "invalid_reserved"

	// CodeInvalidNames means that [Names.UnmarshalJSON] was given text
	// that is not a table MarshalJSON writes: not JSON of that shape, an
	// unknown version, an invalid key or name, or a name or key listed
	// twice.
	CodeInvalidNames Code = "invalid_names"
)

// Sentinel errors, one per [Code], for use with [errors.Is]. An [*Error]
// matches the sentinel with the same Code whatever its other fields hold.
var (
	ErrInvalidRoutingKey = errors.New("toolname: " + string(CodeInvalidRoutingKey))
	ErrInvalidKey        = errors.New("toolname: " + string(CodeInvalidKey))
	ErrInvalidProfile    = errors.New("toolname: " + string(CodeInvalidProfile))
	ErrInvalidReserved   = errors.New("toolname: " + string(CodeInvalidReserved))
	ErrInvalidNames      = errors.New("toolname: " + string(CodeInvalidNames))
)

// Error is the only error type the package returns. Every error from [Split]
// and [Assign] is an *Error; test its Code with [errors.Is] against the
// sentinels, or read its fields after [errors.As].
//
// The message is built only when Error is called, so callers that merely
// test the code pay for no formatting.
type Error struct {
	// Code says what kind of input was rejected.
	Code Code

	// Input is the rejected text: the whole routing key for
	// CodeInvalidRoutingKey, the offending server or tool for
	// CodeInvalidKey, MaxLen in decimal for CodeInvalidProfile, the
	// reserved name for CodeInvalidReserved, and for CodeInvalidNames the
	// offending server, tool or name, or "" when the text as a whole is
	// at fault.
	Input string

	// Field names the rejected part: "server" or "tool" for
	// CodeInvalidKey, "MaxLen" for CodeInvalidProfile, "reserved" for
	// CodeInvalidReserved, and "" for CodeInvalidRoutingKey. For
	// CodeInvalidNames it is the JSON member at fault: "server", "tool",
	// "name", "reason" or "version", or "" for the text as a whole.
	Field string

	// Index is the position of the culprit in its list: the keys passed
	// to Assign, the names passed to WithReserved, or the "names" or the
	// "retired" entries of a marshalled table (the message says which).
	// It is -1 when no list entry is at fault.
	Index int

	// Offset is the byte offset into Input of the fault, or -1 when the
	// fault has no position: a routing key without a separator, an empty
	// server or tool, or a profile. For CodeInvalidRoutingKey it points at
	// the raw ':' or the bad '%'; for CodeInvalidKey it points at the
	// first byte that is not valid UTF-8.
	Offset int

	limit  int    // CodeInvalidProfile: the rule's own limit
	detail string // CodeInvalidNames: what is wrong
	err    error  // CodeInvalidNames: the JSON error, if any
}

// Error returns a one-line message of the form
// "toolname: <code>: <what is wrong>; <what to do instead>", with the
// input quoted by %q.
func (e *Error) Error() string {
	if e == nil {
		return "toolname: <nil>"
	}
	prefix := "toolname: " + string(e.Code) + ": "
	switch e.Code {
	case CodeInvalidRoutingKey:
		switch {
		case e.Offset < 0:
			return prefix + fmt.Sprintf("%q has no \"::\" separator; build routing keys with Join", e.Input)
		case e.Offset < len(e.Input) && e.Input[e.Offset] == ':':
			return prefix + fmt.Sprintf("%q has a raw ':' at byte %d of its server part; Join escapes ':' in a server as %%3A", e.Input, e.Offset)
		default:
			return prefix + fmt.Sprintf("%q has a non-canonical escape at byte %d of its server part; only %%25 and %%3A are valid", e.Input, e.Offset)
		}
	case CodeInvalidKey:
		if e.Offset < 0 {
			return prefix + fmt.Sprintf("key %d has an empty %s; every key needs a non-empty server and tool", e.Index, e.Field)
		}
		return prefix + fmt.Sprintf("key %d has a %s %q that is not valid UTF-8 at byte %d; pass names as UTF-8 text", e.Index, e.Field, e.Input, e.Offset)
	case CodeInvalidProfile:
		if n, err := strconv.Atoi(e.Input); err == nil && n >= minMaxLen {
			return prefix + fmt.Sprintf("%s %s is above %d, the profile's own limit; use a lower MaxLen, or 0 for the profile's own limit", e.Field, e.Input, e.limit)
		}
		return prefix + fmt.Sprintf("%s %s is below %d, the length of the shortest hashed name; use a larger MaxLen, or 0 for the profile's own limit", e.Field, e.Input, minMaxLen)
	case CodeInvalidReserved:
		return prefix + fmt.Sprintf("reserved name %d, %q, is not valid under the profile; reserve only names the profile allows", e.Index, e.Input)
	case CodeInvalidNames:
		msg := prefix + "not a table that Names.MarshalJSON writes: " + e.detail
		switch {
		case e.Index >= 0:
			msg += fmt.Sprintf(" (entry %d, %s %q)", e.Index, e.Field, e.Input)
		case e.Field != "":
			msg += fmt.Sprintf(" (%s %q)", e.Field, e.Input)
		}
		if e.err != nil {
			msg += ": " + e.err.Error()
		}
		return msg + "; restore a table saved by MarshalJSON, or start a new chain"
	}
	return prefix + fmt.Sprintf("input %q (field %q, index %d, offset %d)", e.Input, e.Field, e.Index, e.Offset)
}

// Is reports whether target is the sentinel for e's Code, so that
// errors.Is(err, ErrInvalidKey) holds for every invalid-key error.
func (e *Error) Is(target error) bool {
	if e == nil || target == nil {
		return false
	}
	switch e.Code {
	case CodeInvalidRoutingKey:
		return target == ErrInvalidRoutingKey
	case CodeInvalidKey:
		return target == ErrInvalidKey
	case CodeInvalidProfile:
		return target == ErrInvalidProfile
	case CodeInvalidReserved:
		return target == ErrInvalidReserved
	case CodeInvalidNames:
		return target == ErrInvalidNames
	}
	return false
}

// Unwrap returns the JSON error behind a CodeInvalidNames error, if any.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.err
}

func routingKeyError(key string, offset int) *Error {
	return &Error{Code: CodeInvalidRoutingKey, Input: key, Index: -1, Offset: offset}
}

func keyError(index int, field, value string, offset int) *Error {
	return &Error{Code: CodeInvalidKey, Input: value, Field: field, Index: index, Offset: offset}
}

func profileError(maxLen, limit int) *Error {
	return &Error{Code: CodeInvalidProfile, Input: strconv.Itoa(maxLen), Field: "MaxLen", Index: -1, Offset: -1, limit: limit}
}

func reservedError(index int, name string) *Error {
	return &Error{Code: CodeInvalidReserved, Input: name, Field: "reserved", Index: index, Offset: -1}
}

// namesError is a CodeInvalidNames error; field and input name the culprit
// of entry index, if there is one.
func namesError(detail string, index int, field, input string, err error) *Error {
	return &Error{Code: CodeInvalidNames, Input: input, Field: field, Index: index, Offset: -1, detail: detail, err: err}
}
