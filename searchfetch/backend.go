package searchfetch

import (
	"context"
	"encoding/json"

	"github.com/mcpid/mcpid"
)

// Backend is what a server implements. Its methods may be called
// concurrently, within [Options.Timeout]; without [Options.Authorize] they
// check the caller ([CallerFrom]) themselves. An [*mcpid.Error] they return
// reaches the model as it is; any other error generically ([ErrorResult]).
type Backend interface {
	// Search returns the hits for q, with their base ids and connections.
	Search(ctx context.Context, q Query) (SearchResult, error)
	// Fetch returns the record req names. Read the connection from
	// req.ConnectionID ("" when the model named none), never req.Handle.
	Fetch(ctx context.Context, req FetchRequest) (Document, error)
}

// Query is one call of [Backend.Search]: a query and the page of its
// results to return. A backend that does not page ignores Cursor.
type Query struct {
	// Text is the query as the model gave it.
	Text string
	// Cursor is "" for a first page, else a [SearchResult.NextCursor] of
	// this backend, as caller input: validate it, and check the caller again.
	Cursor string
	// Limit is the most hits one page of the tools shows, the same for
	// every page of a query: the page size for an API paged by number.
	Limit int
	// Args are the search's extra arguments.
	Args Args
}

// FetchRequest is one call of [Backend.Fetch]: the resolved and
// authorized request, and the fetch's extra arguments.
type FetchRequest struct {
	mcpid.FetchRequest
	// Args are the fetch's extra arguments.
	Args Args
}

// Args are the extra arguments of a tool call, those a server declares
// beside the tool's own, as a canonical JSON object; the zero Args is
// the empty object. Args is comparable.
type Args struct{ raw string }

// Decode unmarshals the arguments into v, as [json.Unmarshal] does.
func (a Args) Decode(v any) error { return json.Unmarshal([]byte(a.String()), v) }

// String returns the arguments' JSON object, "{}" when there are none.
func (a Args) String() string {
	if a.raw == "" {
		return "{}"
	}
	return a.raw
}

// SearchResult is what [Backend.Search] returns. With an authorizer, its
// counts are used only when CountsForCaller is set.
type SearchResult struct {
	// Hits are the hits, in order, with their base ids and connections.
	Hits []mcpid.Hit
	// Total counts the hits of the whole result, all pages, when more
	// than len(Hits).
	Total int
	// HasMore reports more hits than Total (or len(Hits)).
	HasMore bool
	// CountsForCaller reports that the counts cover only readable records.
	CountsForCaller bool
	// NextCursor is the backend's cursor of its next page, "" for the last,
	// followed whatever CountsForCaller says. The model sees it: put nothing
	// in it the caller may not read (an offset, not a record's sort values).
	NextCursor string
}

// Document is a fetched record, the fetch tool's answer, in the JSON shape
// of OpenAI's fetch contract. The tool sets ID to the id the model passed
// and cuts a Text that does not fit [Options.FetchBudget].
type Document struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"` // the whole content
	// Data is the content of a record that is a JSON object or array, set
	// instead of Text, never with it: the result's data member. One that
	// does not fit the fetch budget is given as text, its compact JSON.
	Data     json.RawMessage   `json:"data,omitempty"`
	URL      string            `json:"url"` // where a person opens it, or ""
	Metadata map[string]string `json:"metadata,omitempty"`
}
