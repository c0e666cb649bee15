package searchfetch

import (
	"context"
	"encoding/json"

	"github.com/mcpid/mcpid"
)

// Fetch runs the fetch tool on args, the raw JSON arguments of the call
// ({"id": "…"}, with an optional "connection_id" in ModeDefault), and
// returns its answer. It resolves the arguments with [mcpid.ResolveFetch]
// and calls [Backend.Fetch] only when they resolve. In both modes Text is
// the JSON of the [Document], whose id is set to the id as given, and
// StructuredContent is the same JSON.
//
// A failure is a tool error; see the package documentation.
func (t *Tools) Fetch(ctx context.Context, args json.RawMessage) Result {
	spec := fetchArgs
	if t.opts.Mode == ModeChatGPT {
		spec = fetchArgsChatGPT
	}
	var vals [2]string
	if err := readArgs(args, spec, vals[:]); err != nil {
		return ErrorResult(err)
	}
	req, err := mcpid.ResolveFetch(vals[0], vals[1])
	if err != nil {
		return ErrorResult(err)
	}
	doc, err := callBackend(ctx, t, FetchName, func(ctx context.Context) (Document, error) {
		return t.backend.Fetch(ctx, req)
	})
	if err != nil {
		return ErrorResult(err)
	}
	doc.ID = req.EchoID
	b, err := json.Marshal(doc)
	if err != nil {
		return ErrorResult(err)
	}
	return okResult(string(b), b)
}
