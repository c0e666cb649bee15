package searchfetch

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"

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

// errorResult is [ErrorResult] with the hint naming the tools as t
// registers them: where they are not called search and fetch, those words
// of the hint are replaced by their names.
func (t *Tools) errorResult(err error) Result {
	if t.opts.SearchName == SearchName && t.opts.FetchName == FetchName {
		return ErrorResult(err)
	}
	e := envelope(err)
	hint := toolWords.ReplaceAllStringFunc(e.Hint(), func(w string) string {
		if w == SearchName {
			return t.opts.SearchName
		}
		return t.opts.FetchName
	})
	r := ErrorResult(e.WithHint(hint))
	r.Err = err
	return r
}

// toolWords matches the default tool names as words of a hint.
var toolWords = regexp.MustCompile(`\b(search|fetch)\b`)
