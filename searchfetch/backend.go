package searchfetch

import (
	"context"

	"github.com/mcpid/mcpid"
)

// Backend is what a server implements. Its methods may be called
// concurrently, within [Options.Timeout]; without [Options.Authorize] they
// check the caller ([CallerFrom]) themselves. An [*mcpid.Error] they return
// reaches the model as it is, any other error generically.
type Backend interface {
	// Search returns the hits for query, with their base ids and connections.
	Search(ctx context.Context, query string) (SearchResult, error)
	// Fetch returns the record req names. Read the connection from
	// req.ConnectionID ("" when the model named none), never req.Handle.
	Fetch(ctx context.Context, req mcpid.FetchRequest) (Document, error)
}

// SearchResult is what [Backend.Search] returns. With an authorizer, its
// counts and cursor are used only when CountsForCaller is set.
type SearchResult struct {
	// Hits are the hits, in order, with their base ids and connections.
	Hits []mcpid.Hit
	// Total counts the hits of the whole result, when more than len(Hits).
	Total int
	// HasMore reports more hits than Total (or len(Hits)).
	HasMore bool
	// CountsForCaller reports that the counts cover only readable records.
	CountsForCaller bool
	// NextCursor is a [Pager]'s cursor of the next page; "" for the last.
	NextCursor string
}

// Document is a fetched record, the fetch tool's answer, in the JSON shape
// of OpenAI's fetch contract. The tool sets ID to the id the model passed
// and cuts a Text that does not fit [Options.FetchBudget].
type Document struct {
	ID       string            `json:"id"`
	Title    string            `json:"title"`
	Text     string            `json:"text"` // the whole content
	URL      string            `json:"url"`  // where a person opens it, or ""
	Metadata map[string]string `json:"metadata,omitempty"`
}
