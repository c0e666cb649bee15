package searchfetch

import (
	"encoding/json"
	"errors"

	"github.com/mcpid/mcpid"
)

// Result is the answer to one tool call, independent of any SDK: an
// adapter turns it into a CallToolResult with one text content item.
type Result struct {
	// Text is the text of the one content item: the preview, the
	// document's JSON, or the error envelope.
	Text string
	// StructuredContent is the structuredContent of the result, as JSON.
	StructuredContent json.RawMessage
	// IsError reports a tool error; Text and StructuredContent are then
	// both the JSON envelope of an *mcpid.Error.
	IsError bool
}

// ErrorResult returns the tool error for err: IsError set and the JSON
// envelope of err as both Text and StructuredContent. An *mcpid.Error
// anywhere in err's chain gives its own envelope; any other error gives the
// generic resource_unavailable envelope, which does not hold err's message.
func ErrorResult(err error) Result {
	var me *mcpid.Error
	if !errors.As(err, &me) || me == nil {
		me = errUnavailable
	}
	b, merr := json.Marshal(me)
	if merr != nil {
		// An *mcpid.Error always marshals; this keeps the promise of
		// an envelope should that ever change.
		b, _ = json.Marshal(errUnavailable)
	}
	return Result{Text: string(b), StructuredContent: b, IsError: true}
}

// okResult returns a result whose text is text and whose structuredContent
// is structured.
func okResult(text string, structured []byte) Result {
	return Result{Text: text, StructuredContent: structured}
}
