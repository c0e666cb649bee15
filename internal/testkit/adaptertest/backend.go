// Package adaptertest holds what the tests of searchfetch and of its SDK
// adapters share: a fake backend over a fixed set of records, and the
// journeys every adapter must pass through its SDK's own client.
package adaptertest

import (
	"context"
	"slices"
	"sync/atomic"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// Record is one record of the fake source: its base id, the connection that
// holds it, and what search and fetch show of it.
type Record struct {
	ID, ConnectionID, Title, Text, URL string
}

// Records is the fake source. tickets:t1 is held by two connections, so an
// unscoped fetch of it is ambiguous; the connection eu:wiki holds a ':',
// which its id escapes; notes:n1 has no connection; the wiki page's id is a
// URL, which only the opaque form can carry.
var Records = []Record{
	{ID: "orders:o1", ConnectionID: "c1", Title: "Order o1", Text: "3 items, shipped to Berlin.", URL: "https://shop.example.com/o/1"},
	{ID: "tickets:t1", ConnectionID: "c1", Title: "Refund for o1", Text: "The customer asks for a refund."},
	{ID: "tickets:t1", ConnectionID: "c2", Title: "Refund for o1 (EU)", Text: "Second copy of the ticket."},
	{ID: "https://wiki.example.com/p/7", ConnectionID: "wiki", Title: "Refund runbook", Text: "Step 1: check the order.", URL: "https://wiki.example.com/p/7"},
	{ID: "pages:p1", ConnectionID: "eu:wiki", Title: "Returns policy", Text: "30 days."},
	{ID: "notes:n1", Title: "A note", Text: "No connection at all."},
}

// Backend is a searchfetch.Backend over Records that counts its calls. Its
// documents carry the connection they were read from in their metadata.
type Backend struct {
	searches, fetches atomic.Int64
}

// Search returns every record as a hit, whatever the query.
func (b *Backend) Search(_ context.Context, _ searchfetch.Query) (searchfetch.SearchResult, error) {
	b.searches.Add(1)
	hits := make([]mcpid.Hit, len(Records))
	for i, r := range Records {
		hits[i] = mcpid.Hit{ID: r.ID, ConnectionID: r.ConnectionID, Title: r.Title, Snippet: r.Text, URL: r.URL}
	}
	return searchfetch.SearchResult{Hits: hits}, nil
}

// Fetch returns the record req names: in req.ConnectionID when it is set,
// and otherwise the one record with that base id, not_found when there is
// none and ambiguous_connection when several connections hold it.
func (b *Backend) Fetch(_ context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	b.fetches.Add(1)
	base := req.Handle.BaseID()
	var found []Record
	for _, r := range Records {
		if r.ID == base && (req.ConnectionID == "" || r.ConnectionID == req.ConnectionID) {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 0:
		return searchfetch.Document{}, mcpid.NewError(mcpid.CodeNotFound, "no such record", "search again and pass an id it shows")
	case 1:
		r := found[0]
		return searchfetch.Document{
			ID:       "ignored: the tool sets the id",
			Title:    r.Title,
			Text:     r.Text,
			URL:      r.URL,
			Metadata: map[string]string{"connection_id": r.ConnectionID},
		}, nil
	default:
		conns := make([]string, len(found))
		for i, r := range found {
			conns[i] = r.ConnectionID
		}
		return searchfetch.Document{}, mcpid.AmbiguousConnection(slices.Clip(conns))
	}
}

// Searches returns how many times Search was called.
func (b *Backend) Searches() int64 { return b.searches.Load() }

// Fetches returns how many times Fetch was called.
func (b *Backend) Fetches() int64 { return b.fetches.Load() }
