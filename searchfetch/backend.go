package searchfetch

import (
	"context"

	"github.com/mcpid/mcpid"
)

// Backend is what a server implements. It searches its sources and reads
// one record. Both methods get the tool call's context, bounded by
// [Options.Timeout]; both may be called concurrently. A call that outlives
// the timeout is answered without it, and what it returns later is
// dropped.
//
// A handle is a name, not a capability: the caller's right to read the
// connection a request names is checked on every call. With
// [Options.Authorize] the tools ask it before the backend runs; a backend
// without an authorizer checks the caller itself ([CallerFrom]), on every
// path. With an authorizer, the backend of an unscoped fetch still checks
// the connection it picks, and a search's own counts
// ([SearchResult.Total], HasMore) reach the model only when the backend
// counted them for the caller ([SearchResult.CountsForCaller]).
//
// An error that is an [*mcpid.Error] (for example [mcpid.AmbiguousConnection]
// when the resource server answers 409, or [mcpid.NewError] with
// [mcpid.CodeNotFound]) reaches the model as its envelope. Any other error
// reaches it as a generic resource_unavailable envelope, without its message.
type Backend interface {
	// Search returns the hits for query. Each hit carries its own id as
	// the source knows it (the base id) and the connection it came from;
	// the search tool turns them into self-contained ids.
	Search(ctx context.Context, query string) (SearchResult, error)
	// Fetch returns the record that req names. req is resolved: its
	// ConnectionID is the connection to read from, or "" when the model
	// named none and the source must find the record itself (and may
	// answer with [mcpid.AmbiguousConnection]); req.Handle.BaseID() is
	// the hit's own id within it. With [Options.Aliases], req.Handle is
	// the id as shown, whose connection may be an alias: read the
	// connection from req.ConnectionID, always the real one, never from
	// req.Handle.ConnectionID(). A handle is a name, not a capability:
	// without an authorizer, Fetch must check that the caller may read
	// the connection req names (see above).
	Fetch(ctx context.Context, req mcpid.FetchRequest) (Document, error)
}

// SearchResult is what [Backend.Search] returns.
type SearchResult struct {
	// Hits are the hits to return, in order, with their base ids and
	// connections, never ids already made self-contained. ConnectionID
	// is empty for a hit with no connection, whose ID must then be a
	// legacy stream:record handle.
	Hits []mcpid.Hit
	// Total is the number of hits in the whole result when it is more
	// than len(Hits); a smaller value is ignored. With an authorizer it is
	// ignored unless CountsForCaller is set: the tools count the hits the
	// caller may read among Hits themselves.
	Total int
	// HasMore reports that the result has more hits than Total (or than
	// len(Hits)). With an authorizer it is ignored unless CountsForCaller
	// is set.
	HasMore bool
	// CountsForCaller reports that Total and HasMore count only records
	// the caller may read, so that the tools show them with an
	// authorizer too. Leave it unset when they count records of every
	// connection: a count of records the caller may not read tells that
	// they exist.
	CountsForCaller bool
	// NextCursor is, for a [Pager], its cursor of the page after this
	// one; "" when this page is the last. The tools carry it in their own
	// cursor once the caller passed every hit of this page. One of more
	// than 256 bytes, or with a byte that is not printable ASCII, ends
	// paging (the result says to narrow the query). With an authorizer it
	// is ignored unless CountsForCaller is set.
	NextCursor string
}

// Document is a fetched record, the fetch tool's answer. Its JSON is the
// shape of OpenAI's fetch contract.
type Document struct {
	// ID is the id the model passed; the fetch tool sets it, whatever the
	// backend put there.
	ID string `json:"id"`
	// Title is the record's title.
	Title string `json:"title"`
	// Text is the record's content, whole: the fetch tool cuts what does
	// not fit [Options.FetchBudget] and lets the model read on.
	Text string `json:"text"`
	// URL is where a person can open the record, or "". It is passed on
	// as the backend gives it.
	URL string `json:"url"`
	// Metadata holds any further fields; it is left out of the JSON when
	// empty.
	Metadata map[string]string `json:"metadata,omitempty"`
}
