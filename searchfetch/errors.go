package searchfetch

import (
	"errors"
	"fmt"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/errcode"
)

// CodeInvalidArguments is the code of arguments that break the tool's input
// schema, or exceed [MaxArgumentsSize] bytes.
const CodeInvalidArguments mcpid.Code = "invalid_arguments"

// ErrInvalidArguments matches, with [errors.Is], every [*mcpid.Error] with
// the code [CodeInvalidArguments], as mcpid's sentinels match theirs.
var ErrInvalidArguments = errcode.Register(string(CodeInvalidArguments),
	errors.New("searchfetch: "+string(CodeInvalidArguments)))

// The generic errors of a backend that failed without an *mcpid.Error, and
// of one that returned what no model can use. Their messages never hold the
// backend's own words.
var (
	errUnavailable = mcpid.NewError(mcpid.CodeResourceUnavailable,
		"the source failed to answer", "try again later")
	errTimeout = mcpid.NewError(mcpid.CodeResourceUnavailable,
		"the source did not answer in time", "try again later")
	// errHung answers the calls made while MaxHungCalls hang.
	errHung = mcpid.NewError(mcpid.CodeResourceUnavailable,
		"the source is not answering", "try again later")
)

// badHit returns the invalid_resource_response error of a search whose
// backend returned a hit that no id can fetch; message names the hit, and
// hint is the tools' own ([hints]).
func badHit(message, hint string) *mcpid.Error {
	return mcpid.NewError(mcpid.CodeInvalidResourceResponse, message, hint)
}

// maxQuoted bounds the bytes of a value (an unknown argument name, a
// hit's id) that an error message repeats, so that a huge one is not echoed
// back to the model.
const maxQuoted = 64

// argError returns the invalid_arguments error for a tool call.
func argError(message, hint string) *mcpid.Error {
	return mcpid.NewError(CodeInvalidArguments, message, hint)
}

// fieldError returns the invalid_arguments error about the argument
// field.
func fieldError(field, message, hint string) *mcpid.Error {
	e := argError(message, hint)
	e.Field = field
	return e
}

// quote returns s quoted for an error message, or a placeholder when it is
// too long to repeat.
func quote(s string) string {
	if len(s) > maxQuoted {
		return "(a value of " + fmt.Sprint(len(s)) + " bytes)"
	}
	return fmt.Sprintf("%q", s)
}
