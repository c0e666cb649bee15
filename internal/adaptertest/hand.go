package adaptertest

import (
	"context"
	"encoding/json"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// handResult is one hit of the hand-written search tool's structuredContent.
type handResult struct {
	ID           string `json:"id"`
	ConnectionID string `json:"connection_id,omitempty"`
	Title        string `json:"title,omitempty"`
	Snippet      string `json:"snippet,omitempty"`
	URL          string `json:"url,omitempty"`
}

// HandSearch is the SDK-independent part of a search tool written by hand,
// the baseline the adapters' round-trip benchmarks measure against: it
// calls the backend, makes each id self-contained and renders the preview
// and the structured results, without the argument checks, timeout and
// panic recovery of searchfetch. Each adapter's benchmark wraps it, and
// HandFetch, in its own SDK's tool handler and result.
func HandSearch(ctx context.Context, b searchfetch.Backend, query string) (text string, structured json.RawMessage, err error) {
	res, err := b.Search(ctx, query)
	if err != nil {
		return "", nil, err
	}
	results := make([]handResult, len(res.Hits))
	for i, h := range res.Hits {
		res.Hits[i].ID, _ = mcpid.SelfContainedID(h.ID, h.ConnectionID)
		results[i] = handResult{ID: res.Hits[i].ID, ConnectionID: h.ConnectionID, Title: h.Title, Snippet: h.Snippet, URL: h.URL}
	}
	out, err := json.Marshal(map[string]any{"results": results, "total": len(results)})
	if err != nil {
		return "", nil, err
	}
	return mcpid.RenderPreview(res.Hits, mcpid.PreviewOptions{Total: res.Total, HasMore: res.HasMore}), out, nil
}

// HandFetch is the SDK-independent part of a fetch tool written by hand,
// as HandSearch is of search: it resolves the arguments, calls the backend
// and returns the document's JSON, which is both the text and the
// structured content.
func HandFetch(ctx context.Context, b searchfetch.Backend, id, connectionID string) (json.RawMessage, error) {
	req, err := mcpid.ResolveFetch(id, connectionID)
	if err != nil {
		return nil, err
	}
	doc, err := b.Fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	doc.ID = req.EchoID
	return json.Marshal(doc)
}
