package searchfetch

import (
	"fmt"

	"github.com/mcpid/mcpid"
)

// CodeInvalidArguments is the code of a tool call whose arguments do not
// follow the tool's input schema: not a JSON object, a required argument
// missing, an argument that is not a string, an argument the tool does not
// take or given twice, or more than MaxArgumentsSize bytes.
const CodeInvalidArguments mcpid.Code = "invalid_arguments"

// The generic errors of a backend that failed without an *mcpid.Error, and
// of one that returned what no model can use. Their messages never hold the
// backend's own words.
var (
	errUnavailable = mcpid.NewError(mcpid.CodeResourceUnavailable,
		"the source failed to answer", "try again later")
	errTimeout = mcpid.NewError(mcpid.CodeResourceUnavailable,
		"the source did not answer in time", "try again later")
	errBadHit = mcpid.NewError(mcpid.CodeInvalidResourceResponse,
		"the source returned a hit without a usable id", "search again, or report the source as faulty")
)

// maxQuotedKey bounds the bytes of an unknown argument name that an error
// message repeats, so that a huge key is not echoed back to the model.
const maxQuotedKey = 64

// argError returns the invalid_arguments error for a tool call.
func argError(message, hint string) *mcpid.Error {
	return mcpid.NewError(CodeInvalidArguments, message, hint)
}

// keyText returns key quoted for an error message, or a placeholder when it
// is too long to repeat.
func keyText(key string) string {
	if len(key) > maxQuotedKey {
		return "(a name of " + fmt.Sprint(len(key)) + " bytes)"
	}
	return fmt.Sprintf("%q", key)
}
