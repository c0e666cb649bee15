package mcpid

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// Code is the stable, machine-readable kind of an [Error]. Codes are part of
// the API: agents and servers branch on them, so they never change.
type Code string

// The codes an [Error] can carry.
const (
	// CodeInvalidID: the id does not follow the handle grammar.
	CodeInvalidID Code = "invalid_id"
	// CodeInvalidConnectionID: the connection_id argument is not a safe name.
	CodeInvalidConnectionID Code = "invalid_connection_id"
	// CodeConflictingConnectionID: the id embeds one connection and the
	// connection_id argument names another.
	CodeConflictingConnectionID Code = "conflicting_connection_id"
	// CodeAmbiguousConnection: the resource server holds the record in more
	// than one connection and needs connection_id to choose.
	CodeAmbiguousConnection Code = "ambiguous_connection"
	// CodeNotFound: the resource server has no such record.
	CodeNotFound Code = "not_found"
	// CodeResourceUnavailable: the resource server failed (5xx), timed
	// out or could not be reached.
	CodeResourceUnavailable Code = "resource_unavailable"
	// CodeInvalidResourceResponse: the resource server answered with a
	// body the server cannot use.
	CodeInvalidResourceResponse Code = "invalid_resource_response"
)

// Sentinels for [errors.Is]. Each matches every [*Error] with the same [Code]:
//
//	if errors.Is(err, mcpid.ErrInvalidID) { … }
var (
	ErrInvalidID               = errors.New("mcpid: " + string(CodeInvalidID))
	ErrInvalidConnectionID     = errors.New("mcpid: " + string(CodeInvalidConnectionID))
	ErrConflictingConnectionID = errors.New("mcpid: " + string(CodeConflictingConnectionID))
	ErrAmbiguousConnection     = errors.New("mcpid: " + string(CodeAmbiguousConnection))
	ErrNotFound                = errors.New("mcpid: " + string(CodeNotFound))
	ErrResourceUnavailable     = errors.New("mcpid: " + string(CodeResourceUnavailable))
	ErrInvalidResourceResponse = errors.New("mcpid: " + string(CodeInvalidResourceResponse))
)

// NewError returns an error with a server's own code, message and hint, in
// the same envelope as the package's errors. Its message says only what
// it was given.
func NewError(code Code, message, hint string) *Error {
	// Placeholder until the envelope carries a server's message and hint.
	return &Error{Code: code, Offset: -1, Input: message + "; " + hint}
}

// The values of [Error.Field] and [Error.Segment].
const (
	FieldID           = "id"
	FieldConnectionID = "connection_id"

	SegmentConnection = "connection"
	SegmentStream     = "stream"
	SegmentRecord     = "record"
)

// MaxAvailableConnections is how many connections the JSON envelope of an
// ambiguous_connection error lists at most; the rest are counted in
// available_connections_omitted.
const MaxAvailableConnections = 20

// Error is the one error type of this package. Every failure of [Parse],
// [Encode], [ResolveFetch] and [Handle.UnmarshalText] is an *Error, and so
// is the value [AmbiguousConnection] builds. Branch on Code, or use
// [errors.Is] with the sentinels; never on the message text.
//
// The message is built when Error is called, from the fields; building an
// *Error costs one allocation and nothing else.
type Error struct {
	// Code is the kind of failure.
	Code Code
	// Field is the tool argument at fault: FieldID or FieldConnectionID.
	// It is empty for an ambiguous_connection error.
	Field string
	// Segment is the part of the handle at fault: SegmentConnection,
	// SegmentStream, SegmentRecord, or empty when no single part is.
	Segment string
	// Offset is the byte offset of the fault in Input, or -1 where none
	// applies (an empty input, a conflict, an ambiguity). For an empty
	// segment it is the offset of the separator beside it; for a missing
	// ':' it is the offset where the segment that lacks it starts.
	Offset int
	// Input is the value that Offset counts in: the id or connection_id as
	// given, or for Encode the part named by Segment.
	Input string
	// Embedded is, for a conflicting_connection_id error, the connection
	// the id embeds; Input is then the connection_id argument.
	Embedded string
	// Available lists, for an ambiguous_connection error, the connections
	// the resource server offered, in its order.
	Available []string

	fault fault
}

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
	faultUnknown // never expected; keeps a failure closed
)

// Error returns the message: what is wrong, where, the input quoted with
// %q, and what to do instead.
func (e *Error) Error() string {
	return "mcpid: " + string(e.Code) + ": " + e.message() + "; " + e.Hint()
}

// message describes the fault without the code and the hint.
func (e *Error) message() string {
	switch e.Code {
	case CodeConflictingConnectionID:
		return "id embeds connection " + strconv.Quote(e.Embedded) +
			" but connection_id is " + strconv.Quote(e.Input)
	case CodeAmbiguousConnection:
		return "the record exists in " + strconv.Itoa(len(e.Available)) + " connections"
	}
	where := e.Field
	if e.Segment != "" {
		where += " " + e.Segment + " segment"
	}
	what := ""
	switch e.fault {
	case faultEmpty:
		return e.Field + " is empty"
	case faultEmptySegment:
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
		r, _ := utf8.DecodeRuneInString(e.Input[e.Offset:])
		what = "contains control character " + quoteRune(r)
	case faultUTF8:
		what = "is not valid UTF-8"
	default:
		what = "is invalid"
	}
	msg := where + " " + what
	if e.Offset >= 0 {
		msg += " at offset " + strconv.Itoa(e.Offset)
	}
	return msg + " in " + strconv.Quote(e.Input)
}

// quoteRune formats r as U+XXXX.
func quoteRune(r rune) string {
	const hex = "0123456789ABCDEF"
	return "U+00" + string([]byte{hex[r>>4&0xf], hex[r&0xf]})
}

// Hint returns what the agent should pass instead; it is part of the
// message and of the JSON envelope.
func (e *Error) Hint() string {
	switch e.Code {
	case CodeInvalidID:
		return "pass the id exactly as search returned it, as one value, unedited"
	case CodeInvalidConnectionID:
		return "pass connection_id exactly as search returned it, or omit it"
	case CodeConflictingConnectionID:
		return "pass the id alone, since it already names its connection, or pass connection_id " + strconv.Quote(e.Embedded)
	case CodeAmbiguousConnection:
		return "retry with connection_id set to one of the available connections"
	}
	return "check the arguments"
}

// Is reports whether target is the sentinel for e's Code, so that
// errors.Is(err, ErrInvalidID) holds for every invalid_id error.
func (e *Error) Is(target error) bool {
	return target != nil && target == sentinel(e.Code)
}

// sentinel returns the exported sentinel for c, or nil.
func sentinel(c Code) error {
	switch c {
	case CodeInvalidID:
		return ErrInvalidID
	case CodeInvalidConnectionID:
		return ErrInvalidConnectionID
	case CodeConflictingConnectionID:
		return ErrConflictingConnectionID
	case CodeAmbiguousConnection:
		return ErrAmbiguousConnection
	case CodeNotFound:
		return ErrNotFound
	case CodeResourceUnavailable:
		return ErrResourceUnavailable
	case CodeInvalidResourceResponse:
		return ErrInvalidResourceResponse
	}
	return nil
}

// AmbiguousConnection returns the ambiguous_connection error a server relays
// when the resource server answers an unscoped fetch with 409: the record
// exists in each of the available connections. The slice is kept, not
// copied; its JSON envelope lists at most [MaxAvailableConnections] of
// them, in the given order, and counts the rest.
func AmbiguousConnection(available []string) *Error {
	return &Error{
		Code:      CodeAmbiguousConnection,
		Offset:    -1,
		Available: available,
	}
}

// envelope is the JSON form of an *Error. Field order is the wire order.
type envelope struct {
	Type      string    `json:"type"`
	Code      Code      `json:"code"`
	Message   string    `json:"message"`
	Hint      string    `json:"hint"`
	Field     string    `json:"field,omitempty"`
	Segment   string    `json:"segment,omitempty"`
	Offset    *int      `json:"offset,omitempty"`
	ID        *string   `json:"id,omitempty"`
	ConnID    *string   `json:"connection_id,omitempty"`
	Embedded  *string   `json:"embedded_connection_id,omitempty"`
	Available *[]string `json:"available_connections,omitempty"`
	Omitted   int       `json:"available_connections_omitted,omitempty"`
	RetryWith string    `json:"retry_with,omitempty"`
}

// MarshalJSON returns the stable envelope an MCP server puts in a tool
// error's structuredContent and content[] text:
//
//	{"type":"adapter_error","code":…,"message":…,"hint":…, …}
//
// followed by the code's own fields: field, segment, offset (when one
// applies) and the offending id or connection_id for invalid_id and
// invalid_connection_id; id's embedded_connection_id and the
// connection_id argument for conflicting_connection_id; and
// available_connections (at most [MaxAvailableConnections]),
// available_connections_omitted (only when some were left out) and
// retry_with "connection_id" for ambiguous_connection.
func (e *Error) MarshalJSON() ([]byte, error) {
	env := envelope{
		Type:    "adapter_error",
		Code:    e.Code,
		Message: e.Error(),
		Hint:    e.Hint(),
		Field:   e.Field,
		Segment: e.Segment,
	}
	if e.Offset >= 0 {
		env.Offset = &e.Offset
	}
	switch e.Code {
	case CodeAmbiguousConnection:
		shown := e.Available
		if shown == nil {
			shown = []string{}
		}
		if n := len(shown); n > MaxAvailableConnections {
			shown = shown[:MaxAvailableConnections]
			env.Omitted = n - MaxAvailableConnections
		}
		env.Available = &shown
		env.RetryWith = FieldConnectionID
	case CodeConflictingConnectionID:
		env.ConnID = &e.Input
		env.Embedded = &e.Embedded
	default:
		if e.Field == FieldConnectionID {
			env.ConnID = &e.Input
		} else {
			env.ID = &e.Input
		}
	}
	return json.Marshal(env)
}
