package main

import (
	"context"
	"maps"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// backend is the example's [searchfetch.Backend]: the resource server,
// through a resource client. It is all a server writes; the tools, their
// ids, previews and error envelopes come from searchfetch.
type backend struct {
	rc *resourceClient
}

var _ searchfetch.Backend = backend{}

// Search returns the resource server's hits for query, each with its id
// within its connection and the connection beside it.
func (b backend) Search(ctx context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	res, err := b.rc.search(ctx, q.Text)
	if err != nil {
		return searchfetch.SearchResult{}, err
	}
	hits := make([]mcpid.Hit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = mcpid.Hit(h)
	}
	return searchfetch.SearchResult{Hits: hits, Total: res.Total, HasMore: res.HasMore}, nil
}

// Fetch reads the record that req names. Its metadata adds, to the
// record's own, the connection the record came from (for an unscoped read,
// the one the resource server chose), its stream, and where the scope of
// the read came from.
func (b backend) Fetch(ctx context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	doc, err := b.rc.record(ctx, req.FetchRequest)
	if err != nil {
		return searchfetch.Document{}, err
	}
	meta := maps.Clone(doc.Metadata)
	if meta == nil {
		meta = map[string]string{}
	}
	meta["connection_id"] = doc.ConnectionID
	meta["stream"] = doc.Stream
	meta["scope"] = req.Scope.String()
	return searchfetch.Document{Title: doc.Title, Text: doc.Text, URL: doc.URL, Metadata: meta}, nil
}
