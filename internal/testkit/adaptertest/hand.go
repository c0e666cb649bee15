package adaptertest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// handResult is one hit of the hand-written search tool's structuredContent.
type handResult struct {
	ID           string `json:"id"`
	ConnectionID string `json:"connection_id,omitempty"`
	ConnectorKey string `json:"connector_key,omitempty"`
	Stream       string `json:"stream,omitempty"`
	DisplayName  string `json:"display_name,omitempty"`
	Title        string `json:"title,omitempty"`
	Snippet      string `json:"snippet,omitempty"`
	URL          string `json:"url,omitempty"`
}

// HandSearch is the SDK-independent part of a search tool written by hand,
// the baseline the adapters' round-trip benchmarks measure against: it
// calls the backend, makes the ids of the hits the preview can show
// self-contained, renders the preview, and puts the hits it shows in the
// structured results, as searchfetch does, without the argument checks and
// the duplicate and fetchability checks. It bounds the backend call as
// searchfetch does by default (see [Bounded]). [HandTool.Call] decodes
// its arguments, and HandFetch's.
func HandSearch(ctx context.Context, b searchfetch.Backend, query string) (text string, structured json.RawMessage, err error) {
	res, err := Bounded(ctx, func(ctx context.Context) (searchfetch.SearchResult, error) {
		return b.Search(ctx, searchfetch.Query{Text: query, Limit: mcpid.DefaultMaxHits})
	})
	if err != nil {
		return "", nil, err
	}
	hits := res.Hits[:min(len(res.Hits), mcpid.DefaultMaxHits)]
	for i, h := range hits {
		hits[i].ID, _ = mcpid.SelfContainedID(h.ID, h.ConnectionID)
	}
	text = mcpid.RenderPreview(hits, mcpid.PreviewOptions{Total: max(res.Total, len(res.Hits)), HasMore: res.HasMore})
	shown := mcpid.ExtractHits(text)
	results := make([]handResult, len(shown))
	for i, h := range shown {
		results[i] = handResult{h.ID, h.ConnectionID, h.ConnectorKey, h.Stream, h.DisplayName, h.Title, h.Snippet, h.URL}
	}
	out, err := json.Marshal(map[string]any{"results": results, "total": max(res.Total, len(res.Hits))})
	if err != nil {
		return "", nil, err
	}
	return text, out, nil
}

// HandFetch is the SDK-independent part of a fetch tool written by hand,
// as HandSearch is of search: it resolves the arguments, calls the backend
// (bounded as HandSearch does) and returns the document's JSON, which is
// both the text and the structured content.
func HandFetch(ctx context.Context, b searchfetch.Backend, id, connectionID string) (json.RawMessage, error) {
	req, err := mcpid.ResolveFetch(id, connectionID)
	if err != nil {
		return nil, err
	}
	doc, err := Bounded(ctx, func(ctx context.Context) (searchfetch.Document, error) {
		return b.Fetch(ctx, searchfetch.FetchRequest{FetchRequest: req})
	})
	if err != nil {
		return nil, err
	}
	doc.ID = req.EchoID
	return json.Marshal(doc)
}

// A HandTool is search or fetch written by hand over a backend,
// SDK-independent: an adapter's benchmark wraps Call in its own SDK's tool
// handler and result.
type HandTool struct {
	Name string
	b    searchfetch.Backend
}

// HandTools returns search and fetch written by hand over b, in that
// order.
func HandTools(b searchfetch.Backend) []HandTool {
	return []HandTool{{"search", b}, {"fetch", b}}
}

// Call decodes the call's arguments with bind, the SDK's own decoder, and
// returns what HandSearch or HandFetch returns: the result's text and
// structuredContent, or the error the tool fails with. Call is a method,
// not a func field, so that a bind made for the call stays on the
// caller's stack: the baseline allocates what a tool written by hand
// allocates, no more.
func (t HandTool) Call(ctx context.Context, bind func(any) error) (text string, structured json.RawMessage, err error) {
	if t.Name == "search" {
		var in struct {
			Query string `json:"query"`
		}
		if err := bind(&in); err != nil {
			return "", nil, err
		}
		return HandSearch(ctx, t.b, in.Query)
	}
	var in struct {
		ID           string `json:"id"`
		ConnectionID string `json:"connection_id"`
	}
	if err := bind(&in); err != nil {
		return "", nil, err
	}
	doc, err := HandFetch(ctx, t.b, in.ID, in.ConnectionID)
	return string(doc), doc, err
}

// Bounded is how a tool written by hand bounds a backend call that may
// ignore its context, with the guarantees of searchfetch's default: it
// runs call on a goroutine of its own with ctx bounded by
// searchfetch.DefaultTimeout, recovers a panic as an error, and returns
// call's answer, or ctx's error as soon as ctx is done.
func Bounded[T any](ctx context.Context, call func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, searchfetch.DefaultTimeout)
	defer cancel()
	type answer struct {
		val T
		err error
	}
	done := make(chan answer, 1) // buffered: a late answer never blocks
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- answer{err: fmt.Errorf("backend panicked: %v", p)}
			}
		}()
		v, err := call(ctx)
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		return a.val, a.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
