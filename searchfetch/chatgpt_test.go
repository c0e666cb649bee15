package searchfetch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// backendCodes are every code a backend can return: mcpid's, searchfetch's
// own, and one of the server's.
var backendCodes = []mcpid.Code{
	mcpid.CodeInvalidID, mcpid.CodeInvalidConnectionID, mcpid.CodeConflictingConnectionID,
	mcpid.CodeAmbiguousConnection, mcpid.CodeNotFound, mcpid.CodeResourceUnavailable,
	mcpid.CodeInvalidResourceResponse, mcpid.CodeUnknownID, mcpid.CodeForbidden,
	searchfetch.CodeInvalidArguments, "quota_exceeded",
}

// backendErrors returns the errors a backend may return with code: in
// mcpid's words, with a hint of its own that asks for connection_id, and
// listing connections.
func backendErrors(code mcpid.Code) map[string]error {
	listing := &mcpid.Error{Code: code, Offset: -1, Available: []string{"c1", "c2"}}
	if code == mcpid.CodeAmbiguousConnection {
		listing = mcpid.AmbiguousConnection([]string{"c1", "c2"})
	}
	return map[string]error{
		"mcpid's words":      &mcpid.Error{Code: code, Offset: -1, Field: mcpid.FieldConnectionID, Input: "c1"},
		"own hint":           mcpid.NewError(code, "the source refused", "retry with connection_id set to c1"),
		"own hint, in caps":  mcpid.NewError(code, "the source refused", "pass a Connection ID"),
		"listing":            listing,
		"listing, own hint":  listing.WithHint("pass connection_id c2"),
		"wrapped":            fmt.Errorf("source: %w", mcpid.NewError(code, "the source refused", "set connection_id")),
		"ids, as the source": &mcpid.Error{Code: code, Offset: -1, AvailableIDs: []string{"c1/orders:o9"}},
	}
}

// TestChatGPTNeverAsksForConnectionID: in ModeChatGPT, whatever code and
// hint a backend returns from Search or Fetch, the answer keeps its code
// and asks for no connection_id: no hint names it, no retry_with is it,
// and no connections are listed to choose from. In ModeDefault, the
// backend's own hint is passed on as written.
func TestChatGPTNeverAsksForConnectionID(t *testing.T) {
	for _, code := range backendCodes {
		for form, err := range backendErrors(code) {
			t.Run(string(code)+"/"+form, func(t *testing.T) {
				b := &recorder{err: err}
				chatGPT := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT})
				answers := map[string]searchfetch.Result{
					"search":       chatGPT.Search(context.Background(), raw(`{"query":"q"}`)),
					"fetch legacy": chatGPT.Fetch(context.Background(), raw(`{"id":"orders:o9"}`)),
					"fetch scoped": chatGPT.Fetch(context.Background(), raw(`{"id":"c1/orders:o9"}`)),
					"fetch opaque": chatGPT.Fetch(context.Background(), raw(`{"id":"c1/:https://x.example/9"}`)),
				}
				// The same errors from an authorizer.
				authorizing := searchfetch.New(&recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "orders:o9", ConnectionID: "c1"}}}},
					&searchfetch.Options{Mode: searchfetch.ModeChatGPT, Authorize: func(context.Context, searchfetch.Access) error { return err }})
				answers["authorizer, fetch"] = authorizing.Fetch(context.Background(), raw(`{"id":"c1/orders:o9"}`))
				if res := authorizing.Search(context.Background(), raw(`{"query":"q"}`)); res.IsError {
					answers["authorizer, search"] = res
				} else {
					assert.Equal(t, mcpid.CodeForbidden, code, "only a denial leaves the hits out: %s", res.Text)
				}
				for name, res := range answers {
					e := requireError(t, res, code)
					var env map[string]any
					require.NoError(t, json.Unmarshal([]byte(res.Text), &env))
					assert.NotContains(t, strings.ToLower(e.Hint()), "connection_id", "%s: %s", name, res.Text)
					assert.NotContains(t, strings.ToLower(e.Hint()), "connection id", "%s: %s", name, res.Text)
					assert.NotEqual(t, "connection_id", env["retry_with"], "%s: %s", name, res.Text)
					assert.NotContains(t, env, "available_connections", "%s: %s", name, res.Text)
				}

				var want *mcpid.Error
				require.ErrorAs(t, err, &want)
				res := searchfetch.New(b, nil).Fetch(context.Background(), raw(`{"id":"orders:o9"}`))
				e := requireError(t, res, code)
				if strings.Contains(form, "own hint") {
					assert.Equal(t, want.Hint(), e.Hint(), "ModeDefault passes the backend's hint on")
				}
			})
		}
	}
}
