package searchfetch_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// shelf is a Backend over three books of the connection "lib".
type shelf struct{ library }

func (shelf) Search(context.Context, searchfetch.Query) (searchfetch.SearchResult, error) {
	return searchfetch.SearchResult{Hits: []mcpid.Hit{
		{ID: "books:b1", ConnectionID: "lib", Title: "The Go Programming Language"},
		{ID: "books:b2", ConnectionID: "lib", Title: "Concurrency in Go"},
		{ID: "books:b3", ConnectionID: "lib", Title: "Learning Go"},
	}}, nil
}

// A page ends with the cursor of the next one, which the model passes
// back with the same query; the next page shows the hits that follow.
func ExampleTools_Search_pages() {
	ctx := context.Background()
	tools := searchfetch.New(shelf{}, &searchfetch.Options{Preview: mcpid.PreviewOptions{MaxHits: 2}})

	res := tools.Search(ctx, json.RawMessage(`{"query":"go"}`))
	fmt.Println(res.Text)

	var out struct {
		NextCursor string `json:"next_cursor"`
	}
	_ = json.Unmarshal(res.StructuredContent, &out)
	args, _ := json.Marshal(map[string]string{"query": "go", "cursor": out.NextCursor})
	fmt.Println(tools.Search(ctx, args).Text)
	// Output:
	// Showing 2 of 3 hits.
	// 1. id=lib/books:b1 title="The Go Programming Language"
	// 2. id=lib/books:b2 title="Concurrency in Go"
	// To fetch, pass an id exactly as shown; pass connection_id only where its line shows one.
	// 1 hit not shown; none of them in structuredContent.results.
	// For more hits, call search with the same query and cursor="2~8fnb70j".
	// Showing 1 of 1 hit.
	// 1. id=lib/books:b3 title="Learning Go"
	// To fetch, pass an id exactly as shown; pass connection_id only where its line shows one.
}
