package searchfetch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// library is a Backend over one book, held by the connection "lib".
type library struct{}

func (library) Search(_ context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	return searchfetch.SearchResult{Hits: []mcpid.Hit{
		{ID: "books:b1", ConnectionID: "lib", Title: "The Go Programming Language"},
	}}, nil
}

func (library) Fetch(_ context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	if req.Handle.BaseID() != "books:b1" || (req.ConnectionID != "" && req.ConnectionID != "lib") {
		return searchfetch.Document{}, mcpid.NewError(mcpid.CodeNotFound, "no such book", "search again")
	}
	return searchfetch.Document{Title: "The Go Programming Language", Text: "Chapter 1: Tutorial"}, nil
}

// A model searches, takes an id from the text and fetches it by that id
// alone. An SDK adapter makes the same two calls.
func Example() {
	ctx := context.Background()
	tools := searchfetch.New(library{}, nil)

	res := tools.Search(ctx, json.RawMessage(`{"query":"go"}`))
	fmt.Println(res.Text)

	id := mcpid.ExtractIDs(res.Text)[0]
	args, _ := json.Marshal(map[string]string{"id": id})
	res = tools.Fetch(ctx, args)
	fmt.Println(res.Text)
	// Output:
	// Showing 1 of 1 hit.
	// 1. id=lib/books:b1 title="The Go Programming Language"
	// To fetch, pass an id exactly as shown; pass connection_id only where its line shows one.
	// {"id":"lib/books:b1","title":"The Go Programming Language","text":"Chapter 1: Tutorial","url":""}
}

// A fetch whose connection_id conflicts with the id's own connection fails
// before any backend call, with the envelope as text and structuredContent.
func ExampleTools_Fetch_conflict() {
	tools := searchfetch.New(library{}, nil)
	res := tools.Fetch(context.Background(), json.RawMessage(`{"id":"lib/books:b1","connection_id":"other"}`))
	var e mcpid.Error
	_ = json.Unmarshal(res.StructuredContent, &e)
	fmt.Println(res.IsError, e.Code)
	// Output:
	// true conflicting_connection_id
}

// In ChatGPT mode search takes exactly {"query"}, fetch exactly {"id"}.
func ExampleNew_chatGPT() {
	tools := searchfetch.New(library{}, &searchfetch.Options{Mode: searchfetch.ModeChatGPT})
	fmt.Println(string(tools.SearchTool().InputSchema))
	fmt.Println(string(tools.FetchTool().InputSchema))
	// Output:
	// {"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}
	// {"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}
}

// A server's own tool fails the way search and fetch do; the backend's
// words stay in Err.
func ExampleErrorResult() {
	res := searchfetch.ErrorResult(fmt.Errorf("query orders: %w", context.DeadlineExceeded))
	var e mcpid.Error
	_ = json.Unmarshal([]byte(res.Text), &e)
	fmt.Println(res.IsError, e.Code)
	fmt.Println(res.Err)
	// Output:
	// true resource_unavailable
	// query orders: context deadline exceeded
}

// An authorizer checks the verified caller against the connection on every
// call: a caller without a grant is shown nothing of "lib" and cannot fetch
// from it, whether or not the record exists. The adapters put the caller
// into the context; here WithCaller does.
func ExampleOptions_authorize() {
	grants := map[string][]string{"ana": {"lib"}}
	tools := searchfetch.New(library{}, &searchfetch.Options{
		Authorize: func(ctx context.Context, a searchfetch.Access) error {
			c, _ := searchfetch.CallerFrom(ctx)
			if slices.Contains(grants[c.UserID], a.ConnectionID) {
				return nil
			}
			return errors.New("no grant")
		},
	})
	for _, user := range []string{"ana", "bob"} {
		ctx := searchfetch.WithCaller(context.Background(), searchfetch.Caller{UserID: user})
		res := tools.Search(ctx, json.RawMessage(`{"query":"go"}`))
		fmt.Println(user, mcpid.ExtractIDs(res.Text))
		res = tools.Fetch(ctx, json.RawMessage(`{"id":"lib/books:b1"}`))
		outcome := "read"
		if res.IsError {
			var e mcpid.Error
			_ = json.Unmarshal([]byte(res.Text), &e)
			outcome = string(e.Code)
		}
		fmt.Println(user, outcome)
	}
	// Output:
	// ana [lib/books:b1]
	// ana read
	// bob []
	// bob forbidden
}

// manual is a Backend over one long manual.
type manual struct{ library }

func (manual) Fetch(context.Context, searchfetch.FetchRequest) (searchfetch.Document, error) {
	return searchfetch.Document{Title: "Manual", Text: strings.Repeat("All work and no play. ", 100)}, nil
}

// A text longer than the fetch budget comes back cut, with where to read
// on; the model passes next_offset back as offset until a part is not cut.
func ExampleOptions_fetchBudget() {
	tools := searchfetch.New(manual{}, &searchfetch.Options{FetchBudget: searchfetch.MinFetchBudget})
	var part struct {
		Text       string `json:"text"`
		Truncated  bool   `json:"truncated"`
		Total      int    `json:"total_length"`
		NextOffset int    `json:"next_offset"`
	}
	for offset := 0; ; offset = part.NextOffset {
		args := fmt.Sprintf(`{"id":"lib/books:b2","offset":%d}`, offset)
		res := tools.Fetch(context.Background(), json.RawMessage(args))
		part.Truncated = false
		_ = json.Unmarshal(res.StructuredContent, &part)
		if !part.Truncated {
			fmt.Printf("text[%d:] in %d bytes of JSON\n", offset, len(res.Text))
			break
		}
		fmt.Printf("text[%d:%d] of %d in %d bytes of JSON\n", offset, part.NextOffset, part.Total, len(res.Text))
	}
	// Output:
	// text[0:911] of 2200 in 1023 bytes of JSON
	// text[911:1822] of 2200 in 1024 bytes of JSON
	// text[1822:] in 435 bytes of JSON
}

// A server's own tool that takes an id (update_book, say) resolves it as
// fetch does, and asks the authorizer under its own name, which tells a
// write from a read.
func ExampleTools_Resolve() {
	tools := searchfetch.New(library{}, &searchfetch.Options{
		IDArg:   "uid",
		BareIDs: true, DefaultConnection: "lib",
		Authorize: func(ctx context.Context, a searchfetch.Access) error {
			c, _ := searchfetch.CallerFrom(ctx)
			if a.Tool == "update_book" && !slices.Contains(c.Scopes, "write") {
				return errors.New("read-only caller")
			}
			return nil
		},
	})
	ctx := searchfetch.WithCaller(context.Background(), searchfetch.Caller{UserID: "ana", Scopes: []string{"read"}})

	req, err := tools.Resolve(ctx, "get_book_summary", "lib/books:b1", "")
	fmt.Println(req.ConnectionID, req.Handle.BaseID(), req.Scope, err)
	req, err = tools.Resolve(ctx, "get_book_summary", "b1", "")
	fmt.Println(req.ConnectionID, req.Handle.BaseID(), req.Scope, err)
	_, err = tools.Resolve(ctx, "update_book", "lib/books:b1", "")
	fmt.Println(errors.Is(err, mcpid.ErrForbidden))
	_, err = tools.Resolve(ctx, "get_book_summary", "b\x001", "")
	var e *mcpid.Error
	fmt.Println(errors.As(err, &e), e.Code, e.Field)
	// Output:
	// lib books:b1 embedded <nil>
	// lib b1 default <nil>
	// true
	// true invalid_id uid
}
