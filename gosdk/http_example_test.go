package gosdk_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools over streamable HTTP, where Verify names the caller of each
// request; a client without a token is refused before any session opens.
func ExampleNewHTTPHandler() {
	server := mcp.NewServer(&mcp.Implementation{Name: "library", Version: "v1.0.0"}, nil)
	if err := gosdk.Register(server, library{}, nil); err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", gosdk.NewHTTPHandler(server, &gosdk.HTTPOptions{
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
	hc := &http.Client{Transport: withToken{"s3cret"}}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1.0.0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: hc}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "go"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 401 Bearer
	// Showing 1 of 1 hit.
	// 1. id=lib/books:b1 title="The Go Programming Language"
	// To fetch, pass an id exactly as shown; pass connection_id only where its line shows one.
}

// withToken sends a bearer token with every request.
type withToken struct{ token string }

func (t withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}
