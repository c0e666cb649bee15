package searchfetch

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpid/mcpid"
)

// Result is the answer to one tool call, independent of any SDK. An adapter
// turns it into a CallToolResult with one text content item.
type Result struct {
	// Text is the text of the one content item: the preview, the
	// document's JSON, or the error envelope.
	Text string
	// StructuredContent is the structuredContent of the result, as JSON.
	StructuredContent json.RawMessage
	// IsError reports a tool error; Text and StructuredContent are then
	// both the JSON envelope of an *mcpid.Error.
	IsError bool
	// Err is the error behind a tool error, for the server's logs and
	// middleware: it may hold a backend's own message, which the envelope
	// never does. It is nil when IsError is false.
	Err error
}

// ErrorResult returns the tool error for err. It has IsError set, Err set
// to err, and the JSON envelope of err as both Text and StructuredContent.
// An *mcpid.Error anywhere in err's chain gives its own envelope; a
// [context.DeadlineExceeded] gives resource_unavailable saying that the
// source did not answer in time; any other error gives a generic
// resource_unavailable envelope. Neither of the last two holds err's
// message.
func ErrorResult(err error) Result {
	b, merr := json.Marshal(envelope(err))
	if merr != nil {
		// An *mcpid.Error always marshals; this keeps the promise of
		// an envelope should that ever change.
		b, _ = json.Marshal(errUnavailable)
	}
	return Result{Text: string(b), StructuredContent: b, IsError: true, Err: err}
}

// envelope returns the *mcpid.Error whose envelope the model sees for err.
func envelope(err error) *mcpid.Error {
	var me *mcpid.Error
	switch {
	case errors.As(err, &me):
		if me == nil { // a typed nil: nothing to show
			return errUnavailable
		}
		return me
	case errors.Is(err, context.DeadlineExceeded):
		return errTimeout
	default:
		return errUnavailable
	}
}

// okResult returns a result whose text is text and whose structuredContent
// is structured, or none when structured is nil.
func okResult(text string, structured []byte) Result {
	return Result{Text: text, StructuredContent: structured}
}

// errorResult is [ErrorResult] in the tools' words: an error whose hint is
// mcpid's default for its code gets the hint built from the tools' names
// ([hints.worded]); any other hint is kept as written.
func (t *Tools) errorResult(err error) Result {
	e := envelope(err)
	if w := t.hints.worded(e); w != e {
		r := ErrorResult(w)
		r.Err = err
		return r
	}
	return ErrorResult(err)
}
