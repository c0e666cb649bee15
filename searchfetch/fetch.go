package searchfetch

import (
	"context"
	"encoding/json"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/weburl"
)

// Fetch runs the fetch tool and returns its answer. args are the raw JSON
// arguments of the call ({"id": "…"}, with an optional "connection_id" and
// an optional integer "offset" in ModeDefault). With a Sealer it opens the
// id first; it resolves the arguments with [mcpid.ResolveFetch], maps an
// alias ([Options.Aliases]) to its connection, asks [Options.Authorize]
// whether the caller may read the connection they name, and calls
// [Backend.Fetch] only when they resolve and the caller may. In both modes Text is the JSON of the [Document], whose id is set to
// the id as given, and StructuredContent is the same JSON (nil with
// StructuredNone). In ModeChatGPT the document's url follows the rule of
// the search results ([mcpid.FormatJSON]): an absolute http or https URL,
// or "".
//
// The JSON fits [Options.FetchBudget]: a longer text is cut, and the
// result says where and how to read on. In ModeDefault it is
//
//	{"id":…,"title":…,"text":…,"url":…,"metadata":{…},
//	  "truncated":true,"total_length":…,"next_offset":…}
//
// where text is the part from offset (0 without one) to next_offset, in
// bytes of the whole text, whose length is total_length; the members of
// the cut are there only when the text was cut. An offset past the end or
// inside a character is an invalid_arguments error whose Field is
// [FieldOffset]. In ModeChatGPT the text is cut from its start, with a
// note at its end, and metadata holds "truncated":"true" and
// "total_length".
//
// A failure is a tool error; see the package documentation.
func (t *Tools) Fetch(ctx context.Context, args json.RawMessage) (r Result) {
	if t.opts.OnCall != nil {
		ctx = t.startCall(ctx, t.opts.FetchName)
		defer t.endCall(ctx, &r)
	}
	var vals [3]string // id, connection_id, offset
	if err := readArgs(args, t.hints.fetchArgs, vals[:]); err != nil {
		return t.errorResult(err)
	}
	id, sealed, err := t.open(vals[0])
	if err != nil {
		return t.errorResult(err)
	}
	req, err := mcpid.ResolveFetch(id, t.explicitFor(id, vals[1]))
	if err != nil {
		return t.errorResult(err)
	}
	// The id stays as shown (req.Handle, req.EchoID); the connection it
	// or the argument names is the real one from here on.
	req.ConnectionID = t.realConnection(req.ConnectionID)
	access := Access{Tool: t.opts.FetchName, ConnectionID: req.ConnectionID, ID: vals[0], Handle: req.Handle}
	t.noteFetch(ctx, access)
	if err := t.authorize(ctx, access); err != nil {
		return t.relay(err, err, nil, false)
	}
	doc, err := callBackend(ctx, t, t.opts.FetchName, Backend.Fetch, req)
	if err != nil {
		return t.relayedError(ctx, err, access, &req, sealed)
	}
	doc.ID = vals[0] // as given, sealed or not
	if t.opts.Mode == ModeChatGPT && !weburl.Valid(doc.URL) {
		doc.URL = ""
	}
	b, err := t.encodeDocument(doc, vals[2])
	if err != nil {
		return t.errorResult(err)
	}
	if t.opts.Structured == StructuredNone {
		return okResult(string(b), nil)
	}
	return okResult(string(b), b)
}

// open returns the id that the fetch tool's id argument carries: the
// argument itself without a Sealer, and otherwise the id its seal opens
// to, or, with AcceptUnsealed, the argument itself when it does not open.
// sealed reports whether the id was opened from a seal.
func (t *Tools) open(arg string) (id string, sealed bool, err error) {
	if t.opts.Sealer == nil {
		return arg, false, nil
	}
	id, err = t.opts.Sealer.Open(arg)
	switch {
	case err == nil:
		return id, true, nil
	case t.opts.AcceptUnsealed:
		return arg, false, nil
	}
	return "", false, err
}
