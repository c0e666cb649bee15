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
	// MaxLen is positive but too small to hold a hashed name (see
	// [Profile.MaxLen]).
	CodeInvalidProfile Code = "invalid_profile"
)

// Sentinel errors, one per [Code], for use with [errors.Is]. An [*Error]
// matches the sentinel with the same Code whatever its other fields hold.
var (
	ErrInvalidRoutingKey = errors.New("toolname: " + string(CodeInvalidRoutingKey))
	ErrInvalidKey        = errors.New("toolname: " + string(CodeInvalidKey))
	ErrInvalidProfile    = errors.New("toolname: " + string(CodeInvalidProfile))
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
	// CodeInvalidKey, and MaxLen in decimal for CodeInvalidProfile.
	Input string

	// Field names the rejected part: "server" or "tool" for
	// CodeInvalidKey, "MaxLen" for CodeInvalidProfile, and "" for
	// CodeInvalidRoutingKey.
	Field string

	// Index is the position in the keys passed to Assign of the first
	// invalid key, or -1 when no key is at fault.
	Index int

	// Offset is the byte offset into Input of the fault, or -1 when the
	// fault has no position: a routing key without a separator, an empty
	// server or tool, or a profile. For CodeInvalidRoutingKey it points at
	// the raw ':' or the bad '%'; for CodeInvalidKey it points at the
	// first byte that is not valid UTF-8.
	Offset int
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
		return prefix + fmt.Sprintf("%s %s is below %d, the length of the shortest hashed name; use a larger MaxLen, or 0 for the profile's own limit", e.Field, e.Input, minMaxLen)
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
	}
	return false
}

func routingKeyError(key string, offset int) *Error {
	return &Error{Code: CodeInvalidRoutingKey, Input: key, Index: -1, Offset: offset}
}

func keyError(index int, field, value string, offset int) *Error {
	return &Error{Code: CodeInvalidKey, Input: value, Field: field, Index: index, Offset: offset}
}

func profileError(maxLen int) *Error {
	return &Error{Code: CodeInvalidProfile, Input: strconv.Itoa(maxLen), Field: "MaxLen", Index: -1, Offset: -1}
}
