package searchfetch

import "context"

// Pager is implemented by a [Backend] that pages its own results. The
// search tool then calls SearchPage instead of Search: with "" for a first
// page, and with the [SearchResult.NextCursor] of a page it returned for
// the page after it, once the tools have shown every hit of that page
// the caller may read. A model reaches page after page through the
// tools' own cursor (the search tool's next_cursor), which carries the
// backend's.
//
// cursor is caller input: the tools give back only cursors SearchPage
// returned (with a Sealer, for this caller and query), but without a
// Sealer anyone can write one. Validate it as any argument, and check the
// caller again (CallerFrom): a cursor is no grant. A hit shown on an
// earlier backend page may come again on a later one.
//
// With an authorizer, a backend's NextCursor is used only when the
// backend counts for the caller ([SearchResult.CountsForCaller]), since a
// further page tells that more records exist.
type Pager interface {
	// SearchPage returns the hits for query on the page that cursor
	// names: the first page for "".
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
