package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpid/mcpid/mcpgo"
	"github.com/mcpid/mcpid/searchfetch"
)

// The tools over streamable HTTP, where Verify names the caller of each
// request; a client without a token is refused before any session opens.
func ExampleNewHTTPHandler() {
	s := server.NewMCPServer("library", "v1.0.0")
	if err := mcpgo.Register(s, library{}, nil); err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpgo.NewHTTPHandler(s, &mcpgo.HTTPOptions{
		Verify: func(r *http.Request) (searchfetch.Caller, error) {
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				return searchfetch.Caller{}, errors.New("unknown token")
			}
			return searchfetch.Caller{UserID: "ada"}, nil
		},
	}))
	hs := httptest.NewServer(mux) // in production: an http.Server with the timeouts above
	defer hs.Close()

	resp, err := http.Post(hs.URL+"/mcp", "application/json", nil)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("WWW-Authenticate"))

	ctx := context.Background()
	c, err := client.NewStreamableHttpClient(hs.URL+"/mcp",
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer s3cret"}))
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
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "search", map[string]any{"query": "go"}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(mcp.TextContent).Text)
	// Output:
	// 401 Bearer
	// Showing 1 of 1 hit.
	// 1. id=lib/books:b1 title="The Go Programming Language"
	// To fetch, pass an id exactly as shown; pass connection_id only where its line shows one.
}
