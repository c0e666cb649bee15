package searchfetch

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpid/mcpid"
)

// Result is the answer to one tool call, independent of any SDK: an
// adapter turns it into a result with one text content item.
type Result struct {
	Text              string          // the preview, document or error envelope
	StructuredContent json.RawMessage // structuredContent, as JSON
	// IsError reports a tool error: both channels hold its envelope.
	IsError bool
	// Err is the error behind a tool error, for logs, never for the model.
	Err error
}

// ErrorResult returns the tool error for err: the envelope of an
// [*mcpid.Error] in err's chain, else a generic one without err's message,
// resource_unavailable (retryable) for a timeout, a cancellation or an error
// that reports Timeout or Temporary true, and resource_error for any other.
// Its JSON keeps '<', '>', '&', U+2028 and U+2029 as they are.
func ErrorResult(err error) Result {
	b, merr := encode(envelope(err))
	if merr != nil {
		// An *mcpid.Error always marshals; this keeps the promise of
		// an envelope should that ever change.
		b, _ = encode(errUnavailable)
	}
	return Result{Text: string(b), StructuredContent: b, IsError: true, Err: err}
}

// envelope returns the *mcpid.Error whose envelope the model sees for err.
func envelope(err error) *mcpid.Error {
	var me *mcpid.Error
	switch {
	case errors.As(err, &me):
		if me == nil { // a typed nil: nothing to show, a bug to fix
			return errFailed
		}
		return me
	case errors.Is(err, context.DeadlineExceeded) || reports(err, timedOut):
		return errTimeout
	case transient(err):
		return errUnavailable
	default:
		return errFailed
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
