package mcpid

import (
	"errors"
	"math"
	"strconv"

	"github.com/mcpid/mcpid/internal/errcode"
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
	// out or could not be reached. It is the one retryable code: the same
	// call may succeed later.
	CodeResourceUnavailable Code = "resource_unavailable"
	// CodeResourceError: the resource server failed in a way that
	// retrying will not fix (a refused credential, a bug). Not retryable.
	CodeResourceError Code = "resource_error"
	// CodeInvalidResourceResponse: the resource server answered with a
	// body the server cannot use.
	CodeInvalidResourceResponse Code = "invalid_resource_response"
	// CodeUnknownID: no search issued this id. Its seal is missing or
	// does not match (see [Sealer]): the id was mangled, cut short or made
	// up.
	CodeUnknownID Code = "unknown_id"
	// CodeForbidden: the caller may not read the connection the request
	// names. The answer is the same whether or not the record exists.
	CodeForbidden Code = "forbidden"
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
	ErrResourceError           = errors.New("mcpid: " + string(CodeResourceError))
	ErrInvalidResourceResponse = errors.New("mcpid: " + string(CodeInvalidResourceResponse))
	ErrUnknownID               = errors.New("mcpid: " + string(CodeUnknownID))
	ErrForbidden               = errors.New("mcpid: " + string(CodeForbidden))
)

// codes is the table of the package's codes, from which [Error.Message],
// [Error.Hint] and [Error.Is] read: adding a code is adding a row.
var codes = errcode.Table[Code, *Error]{
	CodeInvalidID: {Sentinel: ErrInvalidID, Explain: func(e *Error) (string, string) {
		return e.faultMessage(), "pass the id exactly as search returned it, as one value, unedited"
	}},
	CodeInvalidConnectionID: {Sentinel: ErrInvalidConnectionID, Explain: func(e *Error) (string, string) {
		return e.faultMessage(), "pass connection_id exactly as search returned it, or omit it"
	}},
	CodeConflictingConnectionID: {Sentinel: ErrConflictingConnectionID,
		Message: "the id names a different connection than connection_id",
		Hint:    "pass the id alone, without connection_id"},
	CodeAmbiguousConnection: {Sentinel: ErrAmbiguousConnection, Explain: (*Error).explainAmbiguous},
	CodeNotFound: {Sentinel: ErrNotFound,
		Message: "the resource server has no such record",
		Hint:    "search again and fetch an id from the new results"},
	CodeResourceUnavailable: {Sentinel: ErrResourceUnavailable,
		Message: "the resource server is unavailable",
		Hint:    "retry later"},
	CodeResourceError: {Sentinel: ErrResourceError,
		Message: "the resource server failed the request",
		Hint:    "the same call fails again: try another request, or report the failure"},
	CodeInvalidResourceResponse: {Sentinel: ErrInvalidResourceResponse,
		Message: "the resource server's answer cannot be used",
		Hint:    "retry later, or fetch another result"},
	CodeUnknownID: {Sentinel: ErrUnknownID,
		Message: "no search issued this id: its seal is missing or does not match",
		Hint:    "pass an id exactly as search showed it, or search again"},
	CodeForbidden: {Sentinel: ErrForbidden,
		Message: "the caller may not read that connection",
		Hint:    "search again, then fetch an id that search shows"},
}

// NewError returns an error with a server's own code, message and hint, for
// a failure the package cannot see, such as a resource server's answer. Its
// message and hint are exactly those given; Offset is -1.
func NewError(code Code, message, hint string) *Error {
	return &Error{Code: code, Offset: -1, text: errorText{message, hint, true}}
}

// The values of [Error.Field] and [Error.Segment].
const (
	FieldID           = "id"
	FieldConnectionID = "connection_id"

	SegmentConnection = "connection"
	SegmentStream     = "stream"
	SegmentRecord     = "record"
)

// MaxAvailableConnections caps the connections an error envelope lists. The
// envelope of an ambiguous_connection error lists at most this many; the
// rest are counted in available_connections_omitted.
const MaxAvailableConnections = 20

// Error is the one error type of this package. Branch on Code with
// [errors.Is] and the sentinels, never on the message; [Error.Message] states
// the fault and [Error.Hint] the remedy.
type Error struct {
	Code    Code
	Field   string // the tool argument at fault: FieldID, FieldConnectionID, or ""
	Segment string // the part of the handle at fault, or ""
	Offset  int    // the byte offset of the fault in Input, or -1
	Input   string // the value Offset counts in, as given

	Embedded     string   // conflicting_connection_id: the connection the id embeds
	Available    []string // ambiguous_connection: the connections offered
	AvailableIDs []string // ambiguous_connection: the record's id in each, listed instead

	fault   fault     // the rule Input broke, which words the message
	omitted int       // connections counted beyond the list (decoded)
	text    errorText // a given message and hint (NewError, decoded)
}

// errorText is a message and a hint given rather than built from the
// fault.
type errorText struct {
	message, hint string
	given         bool
}

// Error returns the one-line text for logs: code, message, the inputs quoted
// with %q, and the hint.
func (e *Error) Error() string {
	if e == nil {
		return "mcpid: <nil>"
	}
	var inputs []string
	if e.Offset >= 0 {
		inputs = append(inputs, "offset="+strconv.Itoa(e.Offset))
	}
	if key := e.inputKey(); key != "" {
		inputs = append(inputs, key+"="+strconv.Quote(e.Input))
	}
	if e.Code == CodeConflictingConnectionID {
		inputs = append(inputs, "embedded_connection_id="+strconv.Quote(e.Embedded))
	}
	message, hint := e.words()
	return errcode.Line("mcpid", string(e.Code), message, hint, inputs)
}

// inputKey returns the envelope key that holds Input: the argument's own
// name for id and connection_id, "input" for any other, or "" when the
// envelope does not carry it.
func (e *Error) inputKey() string {
	switch {
	case e.Code == CodeConflictingConnectionID, e.Field == FieldConnectionID:
		return FieldConnectionID
	case e.Field == FieldID:
		return FieldID
	case e.Input != "":
		return inputKey
	}
	return ""
}

// inputKey is the envelope key of an Input that is neither an id nor a
// connection_id, such as the argument of a server's own tool.
const inputKey = "input"

// Message states the fault, and nothing else: neither the input nor the
// remedy. For an error from [NewError] it is the message given.
func (e *Error) Message() string {
	message, _ := e.words()
	return message
}

// words returns the message and the hint of e: the ones given, or the
// ones the table of codes has for its code, or "" for a code it does
// not have.
func (e *Error) words() (message, hint string) {
	switch {
	case e == nil:
		return "", ""
	case e.text.given:
		return e.text.message, e.text.hint
	}
	return codes.Words(e.Code, e)
}

// explainAmbiguous words an ambiguous_connection error: how many
// connections hold the record, and which list to retry with.
func (e *Error) explainAmbiguous() (message, hint string) {
	message = "the record exists in 1 connection"
	if n := addSat(len(e.listed()), e.omitted); n != 1 {
		message = "the record exists in " + strconv.Itoa(n) + " connections"
	}
	switch {
	case len(e.listed()) == 0:
		// Nothing to retry with: a new search gives ids that fetch alone.
		return message, "search again and fetch an id from the new results"
	case e.AvailableIDs != nil:
		return message, "retry with id set to one of available_ids"
	}
	return message, "retry with connection_id set to one of available_connections"
}

// Hint returns what the agent should do instead. It is "" when there is
// nothing to say. For an error from [NewError] or [Error.UnmarshalJSON] it
// is the hint given.
func (e *Error) Hint() string {
	_, hint := e.words()
	return hint
}

// Is reports whether target is the sentinel for e's Code.
// So errors.Is(err, ErrInvalidID) holds for every invalid_id error.
func (e *Error) Is(target error) bool {
	return e != nil && target != nil && target == sentinel(e.Code)
}

// sentinel returns the exported sentinel for c, or nil.
func sentinel(c Code) error {
	if s := codes.Sentinel(c); s != nil {
		return s
	}
	return errcode.Other(string(c))
}

// AmbiguousConnection returns the ambiguous_connection error a server relays
// when the resource server answers an unscoped fetch with 409. The slice is
// kept, not copied; the envelope lists at most [MaxAvailableConnections].
func AmbiguousConnection(available []string) *Error {
	return &Error{
		Code:      CodeAmbiguousConnection,
		Offset:    -1,
		Available: available,
	}
}

// WithHint returns a copy of e with another hint. Its message is e's. It is
// for a server that words the remedy its own way: one that registers its
// tools under other names, say. A nil e gives nil.
func (e *Error) WithHint(hint string) *Error {
	if e == nil {
		return nil
	}
	c := *e
	c.text = errorText{e.Message(), hint, true}
	return &c
}

// AmbiguousConnectionIDs is [AmbiguousConnection] for a fetch tool without
// connection_id (OpenAI's): it lists AvailableIDs, the self-contained id of
// baseID in each connection, and its envelope says retry_with "id".
func AmbiguousConnectionIDs(baseID string, available []string) *Error {
	e := &Error{Code: CodeAmbiguousConnection, Offset: -1, AvailableIDs: make([]string, 0, len(available))}
	for _, c := range available {
		if id, ok := SelfContainedID(baseID, c); ok {
			e.AvailableIDs = append(e.AvailableIDs, id)
		} else {
			e.omitted++
		}
	}
	return e
}

// listed returns what an ambiguous_connection error lists: AvailableIDs
// when set, Available otherwise.
func (e *Error) listed() []string {
	if e.AvailableIDs != nil {
		return e.AvailableIDs
	}
	return e.Available
}

// addSat returns a+b for counts a, b >= 0, or math.MaxInt when the sum
// would overflow: a count saturates instead of turning negative.
func addSat(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}
