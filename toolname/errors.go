package toolname

import (
	"errors"
	"strconv"

	"github.com/mcpid/mcpid/internal/errcode"
	"github.com/mcpid/mcpid/toolname/internal/chainguard"
)

// Code classifies an [*Error]. Its values are stable strings meant for logs,
// metrics and machine-readable error payloads.
type Code string

// The codes an [Error] can carry.
const (
	// CodeInvalidRoutingKey means that Split was given a string that Join
	// cannot produce: it has no "::" separator, or its server part holds a
	// raw ':' or a '%' that does not start one of the escapes %25 and %3A.
	CodeInvalidRoutingKey Code = "invalid_routing_key"

	// CodeInvalidKey means that Assign was given a [Key] whose server or
	// tool is empty or is not valid UTF-8.
	CodeInvalidKey Code = "invalid_key"

	// CodeInvalidProfile means that Assign was given a [Profile] whose
	// MaxLen is not zero but too small to hold a hashed name, or above
	// the limit of the profile's character rule (see [Profile.MaxLen]).
	CodeInvalidProfile Code = "invalid_profile"

	// CodeInvalidReserved means that a name given to [WithReserved] is
	// not valid under the profile, so it could never be a tool's name.
	CodeInvalidReserved Code = "invalid_reserved"

	// CodeInvalidTable means that [Table.UnmarshalJSON] was given text
	// that is not a table MarshalJSON writes: not JSON of that shape, an
	// unknown version, an invalid key or name, or a name or key listed
	// twice.
	CodeInvalidTable Code = "invalid_table"

	// CodeUnknownTool means that [Table.Route] found no live key by the
	// name called: neither a name the table gives nor, failing that, the
	// own tool name of a live key. A retired name is unknown.
	CodeUnknownTool Code = "unknown_tool"

	// CodeAmbiguousTool means that [Table.Route] was called with a bare
	// tool name that several live keys have, and that is no name of the
	// table; Available lists their names.
	CodeAmbiguousTool Code = "ambiguous_tool"

	// CodeStale means that [Store.Swap] was given a revision that is no
	// longer the chain's latest: another writer stored a table first.
	CodeStale Code = "stale_revision"

	// CodeChainMismatch means that [Update] was given a profile or naming
	// options other than those the stored chain records.
	CodeChainMismatch Code = "chain_mismatch"

	// CodeRollback means that a store returned a table of another chain,
	// or an older table of the chain, than the store value had already
	// seen, or a table that does not continue the one it held
	// ([Table.Continues]): the store lost, restored or was given state.
	CodeRollback Code = "rollback"

	// CodeChainNotEmpty means that [Seed] was given a store whose chain
	// already holds a table: a chain is seeded only when it is empty.
	CodeChainNotEmpty Code = "chain_not_empty"

	// CodeStoreLocked means that [NewFileStore] was given a file that
	// another FileStore, in this process or another, holds.
	CodeStoreLocked Code = "store_locked"
)

// Sentinel errors, one per [Code], for use with [errors.Is]. An [*Error]
// matches the sentinel with the same Code whatever its other fields hold.
var (
	ErrInvalidRoutingKey = errors.New("toolname: " + string(CodeInvalidRoutingKey))
	ErrInvalidKey        = errors.New("toolname: " + string(CodeInvalidKey))
	ErrInvalidProfile    = errors.New("toolname: " + string(CodeInvalidProfile))
	ErrInvalidReserved   = errors.New("toolname: " + string(CodeInvalidReserved))
	ErrInvalidTable      = errors.New("toolname: " + string(CodeInvalidTable))
	ErrUnknownTool       = errors.New("toolname: " + string(CodeUnknownTool))
	ErrAmbiguousTool     = errors.New("toolname: " + string(CodeAmbiguousTool))
	ErrStale             = errors.New("toolname: " + string(CodeStale))
	ErrChainMismatch     = errors.New("toolname: " + string(CodeChainMismatch))
	ErrRollback          = errors.New("toolname: " + string(CodeRollback))
	ErrChainNotEmpty     = errors.New("toolname: " + string(CodeChainNotEmpty))
	ErrStoreLocked       = errors.New("toolname: " + string(CodeStoreLocked))
)

// codes is the table of the package's codes, from which [Error.Message],
// [Error.Hint] and [Error.Is] read: adding a code is adding a row.
var codes = errcode.Table[Code, *Error]{
	CodeInvalidRoutingKey: {Sentinel: ErrInvalidRoutingKey, Explain: (*Error).explainRoutingKey},
	CodeInvalidKey:        {Sentinel: ErrInvalidKey, Explain: (*Error).explainKey},
	CodeInvalidProfile:    {Sentinel: ErrInvalidProfile, Explain: (*Error).explainProfile},
	CodeInvalidReserved: {Sentinel: ErrInvalidReserved,
		Message: "reserved name is not valid under the profile",
		Hint:    "reserve only names the profile allows"},
	CodeInvalidTable: {Sentinel: ErrInvalidTable, Explain: (*Error).explainTable},
	CodeUnknownTool: {Sentinel: ErrUnknownTool,
		Message: "no tool has this name",
		Hint:    "call a tool by a name the tool list gives"},
	CodeAmbiguousTool: {Sentinel: ErrAmbiguousTool, Explain: func(e *Error) (string, string) {
		return strconv.Itoa(len(e.Available)) + " tools have this own name", "call one of the available names"
	}},
	CodeStale: {Sentinel: ErrStale,
		Message: "another writer stored a newer table of the chain",
		Hint:    "load the chain again and retry"},
	CodeChainMismatch: {Sentinel: ErrChainMismatch, Explain: func(e *Error) (string, string) {
		message := "the chain was stored with another profile or other naming options"
		if e.detail != "" {
			message = "the chain records other naming options: " + e.detail
		}
		return message, "use the chain's options, or seed a new chain with tables assigned under the new ones"
	}},
	CodeChainNotEmpty: {Sentinel: ErrChainNotEmpty,
		Message: "the chain already holds a table",
		Hint:    "seed an empty chain, or continue this one with Update"},
	CodeStoreLocked: {Sentinel: ErrStoreLocked,
		Message: "another file store holds the file's lock",
		Hint:    "stop the other gateway, or give each its own file; replicas share a chain through a shared store"},
	CodeRollback: {Sentinel: ErrRollback, Explain: (*Error).explainRollback},
}

// Error is the only error type the package's rules return; test its Code
// with [errors.Is] and the sentinels, never the message. [Error.Message]
// states the fault, [Error.Hint] the remedy, and the fields the input.
type Error struct {
	Code      Code     // what kind of input was rejected
	Field     string   // the rejected part ("server", "tool", a JSON member…), or ""
	Index     int      // the culprit's position in its list, or -1
	Offset    int      // the byte offset of the fault in Input, or -1
	Input     string   // the rejected text, as given
	Available []string // ambiguous_tool: the names to call instead, sorted

	maxLen int    // CodeInvalidProfile: the MaxLen given
	limit  int    // CodeInvalidProfile: the rule's own limit
	detail string // CodeInvalidTable: what is wrong
	err    error  // CodeInvalidTable: the JSON error, if any
}

// Error returns the text for logs: "toolname: <code>: <message>", the
// positions and the input quoted with %q in parentheses, then the hint.
func (e *Error) Error() string {
	if e == nil {
		return "toolname: <nil>"
	}
	var inputs []string
	if e.Index >= 0 {
		inputs = append(inputs, "index="+strconv.Itoa(e.Index))
	}
	if e.Offset >= 0 {
		inputs = append(inputs, "offset="+strconv.Itoa(e.Offset))
	}
	if key := e.inputKey(); key != "" {
		inputs = append(inputs, key+"="+strconv.Quote(e.Input))
	}
	message, hint := e.words()
	return errcode.Line("toolname", string(e.Code), message, hint, inputs)
}

// inputKey returns the name Error gives Input, or "" when it leaves the
// input out.
func (e *Error) inputKey() string {
	switch {
	case e.Field != "":
		return e.Field
	case e.Code == CodeInvalidRoutingKey:
		return "routing_key"
	case e.Input != "":
		return "input"
	}
	return ""
}

// Message states the fault, and nothing else. It says what is wrong with
// which part, for example "raw ':' in the server part", but neither the
// input, nor its index and offset, nor the remedy. For a code the package
// does not define it is "".
func (e *Error) Message() string {
	message, _ := e.words()
	return message
}

// Hint returns what the caller should do instead. It is "" for a code the
// package does not define.
func (e *Error) Hint() string {
	_, hint := e.words()
	return hint
}

// words returns the message and the hint the table of codes has for e,
// or "" for a code it does not have.
func (e *Error) words() (message, hint string) {
	if e == nil {
		return "", ""
	}
	return codes.Words(e.Code, e)
}

// explainRoutingKey words an invalid routing key: no separator, a raw
// ':' or a bad escape, told apart by Offset and the byte it points at.
func (e *Error) explainRoutingKey() (message, hint string) {
	switch {
	case e.Offset < 0:
		return `no "::" separator between server and tool`, "build routing keys with Join"
	case e.Offset < len(e.Input) && e.Input[e.Offset] == ':':
		return "raw ':' in the server part", "escape ':' in a server as %3A, as Join does"
	}
	return "non-canonical escape in the server part", "use only the escapes %25 and %3A, as Join does"
}

// explainKey words an invalid key: an empty part, or one that is not
// valid UTF-8 (the only fault with an offset).
func (e *Error) explainKey() (message, hint string) {
	if e.Offset < 0 {
		return "key has an empty " + e.part("server or tool"), "give every key a non-empty server and tool"
	}
	return "key has a " + e.part("server or tool") + " that is not valid UTF-8", "pass names as UTF-8 text"
}

// explainProfile words an invalid profile: a MaxLen above the rule's own
// limit, or below the shortest hashed name.
func (e *Error) explainProfile() (message, hint string) {
	if e.maxLen >= minMaxLen {
		return e.part("MaxLen") + " is above " + strconv.Itoa(e.limit) + ", the profile's own limit",
			"use a lower MaxLen, or 0 for the profile's own limit"
	}
	return e.part("MaxLen") + " is below " + strconv.Itoa(minMaxLen) + ", the length of the shortest hashed name",
		"use a larger MaxLen, or 0 for the profile's own limit"
}

// explainTable words an invalid table: what is wrong, and the JSON error
// behind it, if any.
func (e *Error) explainTable() (message, hint string) {
	message = "not a table that Table.MarshalJSON writes: " + e.detail
	if e.err != nil {
		message += ": " + e.err.Error()
	}
	return message, "restore a table saved by MarshalJSON, or start a new chain"
}

// explainRollback words a store that went backwards or sideways: the
// detail says how, when the error came from a store or [Table.Continues].
func (e *Error) explainRollback() (message, hint string) {
	message = "the store holds another chain, an older table of it, or a table that does not continue the one held"
	if e.detail != "" {
		message = e.detail
	}
	return message, "find out what emptied, restored or edited the store, then empty the chain and seed it again from the right table with Seed"
}

// part returns Field, the part the message names, or def for an Error
// built without one.
func (e *Error) part(def string) string {
	if e.Field == "" {
		return def
	}
	return e.Field
}

// Is reports whether target is the sentinel for e's Code.
// So errors.Is(err, ErrInvalidKey) holds for every invalid_key error.
func (e *Error) Is(target error) bool {
	return e != nil && target != nil && target == sentinel(e.Code)
}

// sentinel returns the exported sentinel for c, or nil.
func sentinel(c Code) error { return codes.Sentinel(c) }

// Unwrap returns the JSON error behind a CodeInvalidTable error, if any.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.err
}

func routingKeyError(key string, offset int) *Error {
	return &Error{Code: CodeInvalidRoutingKey, Index: -1, Offset: offset, Input: key}
}

func keyError(index int, field, value string, offset int) *Error {
	return &Error{Code: CodeInvalidKey, Field: field, Index: index, Offset: offset, Input: value}
}

func profileError(maxLen, limit int) *Error {
	return &Error{Code: CodeInvalidProfile, Field: "MaxLen", Index: -1, Offset: -1, Input: strconv.Itoa(maxLen), maxLen: maxLen, limit: limit}
}

func reservedError(index int, name string) *Error {
	return &Error{Code: CodeInvalidReserved, Field: "reserved", Index: index, Offset: -1, Input: name}
}

// rollbackError is the error of a store whose load went backwards: have
// is what the store value had seen, got what the load returned (the zero
// Position for an empty chain).
func rollbackError(have, got chainguard.Position) error {
	e := &Error{Code: CodeRollback, Field: "chain", Index: -1, Offset: -1, Input: got.ID}
	held := ", where it held generation " + strconv.FormatUint(have.Generation, 10) + " of chain " + have.ID
	switch {
	case got.ID == "":
		e.detail = "the store holds no table" + held
	case got.ID != have.ID:
		e.detail = "the store holds another chain" + held
	default:
		e.Field, e.Input = "generation", strconv.FormatUint(got.Generation, 10)
		e.detail = "the store holds an older table" + held
	}
	return e
}

// chainMismatchError is the error of an Update whose options, given,
// differ from those the chain records, stored.
func chainMismatchError(stored, given *naming) error {
	return &Error{Code: CodeChainMismatch, Field: "options", Index: -1, Offset: -1, Input: given.String(), detail: stored.String()}
}

// namesError is a CodeInvalidTable error; field and input name the culprit
// of entry index, if there is one.
func namesError(detail string, index int, field, input string, err error) *Error {
	return &Error{Code: CodeInvalidTable, Field: field, Index: index, Offset: -1, Input: input, detail: detail, err: err}
}
