package mcpgo_test

import (
	"context"
	"fmt"
	"log"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/mcpgo"
	"github.com/mcpid/mcpid/searchfetch"
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
// mcp-go's in-process transport.
func ExampleRegister() {
	ctx := context.Background()
	s := server.NewMCPServer("library", "v1.0.0")
	if err := mcpgo.Register(s, library{}, nil); err != nil {
		log.Fatal(err)
	}

	c, err := client.NewInProcessClient(s)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "client", Version: "v1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		log.Fatal(err)
	}

	call := func(name string, args map[string]any) string {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			log.Fatal(err)
		}
		return res.Content[0].(mcp.TextContent).Text
	}
	text := call("search", map[string]any{"query": "go"})
	fmt.Println(text)
	fmt.Println(call("fetch", map[string]any{"id": mcpid.ExtractIDs(text)[0]}))
	// Output:
	// Showing 1 of 1 hit.
	// 1. id=lib/books:b1 title="The Go Programming Language"
	// To fetch, pass an id exactly as shown; pass connection_id only where its line shows one.
	// {"id":"lib/books:b1","title":"The Go Programming Language","text":"Chapter 1: Tutorial","url":""}
}

// A server's own tool fails the way search and fetch do.
func ExampleToolError() {
	res := mcpgo.ToolError(mcpid.NewError(mcpid.CodeNotFound, "no such order", "list the orders first"))
	fmt.Println(res.IsError, len(res.Content))
	// Output:
	// true 1
}

// A server holds the Tools it added, so that a tool of its own that takes
// an id reads the record the fetch tool would, for the same caller.
func ExampleAddTools() {
	ctx := context.Background()
	s := server.NewMCPServer("library", "v1.0.0")
	tools := searchfetch.New(library{}, &searchfetch.Options{BareIDs: true, DefaultConnection: "lib"})
	if err := mcpgo.AddTools(s, tools); err != nil {
		log.Fatal(err)
	}
	s.AddTool(mcp.NewTool("get_summary", mcp.WithDescription("Summarize one book."),
		mcp.WithString("id", mcp.Required()), mcp.WithString("connection_id")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r, err := tools.Resolve(mcpgo.CallerContext(ctx), "get_summary", req.GetString("id", ""), req.GetString("connection_id", ""))
			if err != nil {
				return mcpgo.ToolError(err), nil
			}
			return mcp.NewToolResultText(fmt.Sprintf("summary of %s in %s (%s)", r.Handle.BaseID(), r.ConnectionID, r.Scope)), nil
		})

	c, err := client.NewInProcessClient(s)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		log.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "client", Version: "v1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		log.Fatal(err)
	}
	for _, args := range []map[string]any{{"id": "lib/books:b1"}, {"id": "b1"}, {"id": "b1", "connection_id": "archive"}} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "get_summary", args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// summary of books:b1 in lib (embedded)
	// summary of b1 in lib (default)
	// summary of b1 in archive (explicit)
}
