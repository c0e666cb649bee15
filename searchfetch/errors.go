package searchfetch

import (
	"context"
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
	// errFailed answers an error that does not say it is transient (see
	// [transient]): an upstream 401 or a bug fails again when retried, so
	// the model is not told to retry.
	errFailed = mcpid.NewError(mcpid.CodeResourceError,
		"the source failed the request", "the same call fails again: try another request, or report the failure")
	errTimeout = mcpid.NewError(mcpid.CodeResourceUnavailable,
		"the source did not answer in time", "try again later")
	// errHung answers the calls made while MaxHungCalls hang.
	errHung = mcpid.NewError(mcpid.CodeResourceUnavailable,
		"the source is not answering", "try again later")
)

// transient reports whether err, an error of a backend that is no
// *mcpid.Error, says that the same call may succeed later: a deadline or a
// cancellation (context.DeadlineExceeded, context.Canceled) in its chain,
// or an error in its chain whose Timeout or Temporary method (as
// [net.Error] has) reports true. Any other error is a failure that retrying
// does not fix.
func transient(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		reports(err, timedOut) || reports(err, temporary)
}

// reports reports whether says is true of err or of an error in its chain,
// walked as [errors.Is] walks it.
func reports(err error, says func(error) bool) bool {
	for err != nil {
		if says(err) {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if reports(e, says) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// timedOut reports whether err has a Timeout method that reports true.
func timedOut(err error) bool {
	e, ok := err.(interface{ Timeout() bool })
	return ok && e.Timeout()
}

// temporary reports whether err has a Temporary method that reports true.
func temporary(err error) bool {
	e, ok := err.(interface{ Temporary() bool })
	return ok && e.Temporary()
}

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
