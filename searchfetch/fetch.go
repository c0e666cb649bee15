package searchfetch

import (
	"context"
	"encoding/json"

	"github.com/mcpid/mcpid/internal/weburl"
)

// Fetch runs the fetch tool on args, a call's raw JSON arguments: the
// [Document] as JSON, within [Options.FetchBudget], from [Backend.Fetch]
// once the id resolved and the caller may read it. A failure is a tool error.
func (t *Tools) Fetch(ctx context.Context, args json.RawMessage) (r Result) {
	if t.opts.OnCall != nil {
		ctx = t.startCall(ctx, t.opts.FetchName)
		defer t.endCall(ctx, &r)
	}
	var vals [3]string // id, connection_id, offset
	extra, err := readArgs(args, t.hints.fetchArgs, vals[:])
	if err != nil {
		return t.errorResult(err)
	}
	req, access, sealed, err := t.resolveID(t.opts.FetchName, vals[0], vals[1])
	if err != nil {
		return t.errorResult(err)
	}
	t.noteFetch(ctx, access)
	if err := t.authorize(ctx, access); err != nil {
		return t.passOn(err, err, nil, false)
	}
	doc, err := runBackend(ctx, t, t.opts.FetchName, Backend.Fetch, FetchRequest{FetchRequest: req, Args: extra})
	if err != nil {
		return t.backendError(ctx, err, access, &req, sealed)
	}
	doc.ID = vals[0] // as given, sealed or not
	if t.opts.Mode == ModeChatGPT && !weburl.Valid(doc.URL) {
		doc.URL = ""
	}
	b, err := t.encodeDocument(doc, vals[2])
	if err != nil {
		return t.documentError(ctx, access, err)
	}
	if t.opts.Structured == StructuredNone {
		return okResult(string(b), nil)
	}
	return okResult(string(b), b)
}
