package searchfetch

import (
	"context"
	"encoding/json"

	"github.com/mcpid/mcpid"
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
	doc, err := callBackend(ctx, t, t.opts.FetchName, Backend.Fetch, FetchRequest{FetchRequest: req})
	if err != nil {
		return t.relayedError(ctx, err, access, &req, sealed)
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
