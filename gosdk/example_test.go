package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// library is a searchfetch.Backend over one book, held by the connection
// "lib".
type library struct{}

func (library) Search(_ context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	return searchfetch.SearchResult{Hits: []mcpid.Hit{
		{ID: "books:b1", ConnectionID: "lib", Title: "The Go Programming Language"},
	}}, nil
}

func (library) Fetch(_ context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	if req.Handle.BaseID() != "books:b1" {
		return searchfetch.Document{}, mcpid.NewError(mcpid.CodeNotFound, "no such book", "search again")
	}
	return searchfetch.Document{Title: "The Go Programming Language", Text: "Chapter 1: Tutorial"}, nil
}

// A server with the two tools, and a client that searches and fetches over
// the SDK's in-memory transport.
func ExampleRegister() {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "library", Version: "v1.0.0"}, nil)
	if err := gosdk.Register(server, library{}, nil); err != nil {
		log.Fatal(err)
	}

	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "go"}})
	if err != nil {
		log.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	fmt.Println(text)

	id := mcpid.ExtractIDs(text)[0]
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": id}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Showing 1 of 1 hit.
	// 1. id=lib/books:b1 title="The Go Programming Language"
	// To fetch, pass an id exactly as shown; pass connection_id only where its line shows one.
	// {"id":"lib/books:b1","title":"The Go Programming Language","text":"Chapter 1: Tutorial","url":""}
}

// A server's own tool fails the way search and fetch do: the envelope as
// text and structuredContent, and the internal error kept for middleware.
func ExampleToolError() {
	internal := errors.New("dial tcp 10.0.0.7:5432: connection refused")
	res := gosdk.ToolError(internal)
	fmt.Println(res.IsError, res.GetError() == internal)
	// Output:
	// true true
}

// A server holds the Tools it added, so that a tool of its own that takes
// an id reads the record the fetch tool would, for the same caller.
func ExampleAddTools() {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "library", Version: "v1.0.0"}, nil)
	tools := searchfetch.New(library{}, &searchfetch.Options{BareIDs: true, DefaultConnection: "lib"})
	if err := gosdk.AddTools(server, tools); err != nil {
		log.Fatal(err)
	}
	server.AddTool(&mcp.Tool{
		Name:        "get_summary",
		Description: "Summarize one book.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"connection_id":{"type":"string"}},"required":["id"]}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			ID           string `json:"id"`
			ConnectionID string `json:"connection_id"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
			return gosdk.ToolError(mcpid.NewError("invalid_arguments", "the arguments are not an object", "pass an id")), nil
		}
		r, err := tools.Resolve(gosdk.CallerContext(ctx, req), "get_summary", args.ID, args.ConnectionID)
		if err != nil {
			return gosdk.ToolError(err), nil
		}
		text := fmt.Sprintf("summary of %s in %s (%s)", r.Handle.BaseID(), r.ConnectionID, r.Scope)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})

	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	for _, args := range []map[string]any{{"id": "lib/books:b1"}, {"id": "b1"}, {"id": "b1", "connection_id": "archive"}} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_summary", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// summary of books:b1 in lib (embedded)
	// summary of b1 in lib (default)
	// summary of b1 in archive (explicit)
}
