package searchfetch

import "context"

// Pager is implemented by a [Backend] that pages its own results: the
// search tool then calls SearchPage, with "" and then each page's
// [SearchResult.NextCursor]. The cursor is caller input, never a grant:
// validate it, and check the caller again.
type Pager interface {
	// SearchPage returns the hits for query on the page cursor names.
	SearchPage(ctx context.Context, query, cursor string) (SearchResult, error)
}

// pageQuery is the argument of a Pager call, in the form callBackend runs.
type pageQuery struct{ query, cursor string }

// searchPage calls the Pager b is, with the signature of a backend
// method, so that callBackend bounds it as it bounds Search.
func searchPage(b Backend, ctx context.Context, q pageQuery) (SearchResult, error) {
	return b.(Pager).SearchPage(ctx, q.query, q.cursor)
}

// searchBackend runs the backend's search for query on the backend page
// cursor names: SearchPage when the backend is a Pager, else Search,
// which has no page but the first.
func (t *Tools) searchBackend(ctx context.Context, query, cursor string) (SearchResult, error) {
	if _, ok := t.backend.(Pager); ok {
		return callBackend(ctx, t, t.opts.SearchName, searchPage, pageQuery{query, cursor})
	}
	return callBackend(ctx, t, t.opts.SearchName, Backend.Search, query)
}
