package searchfetch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// TestForbiddenHintRecovers: a forbidden answer may be to an id the model
// was shown: the server restarted without the alias the id embeds, or the
// model wrote the alias in another case. Its hint says to search again,
// in the tools' names, and doing so shows an id that fetches.
func TestForbiddenHintRecovers(t *testing.T) {
	const drive = "projects/acme/connections/drive-1"
	al, err := mcpid.NewAliases(map[string]string{drive: "drive1"})
	require.NoError(t, err)
	b := scripted{hits: []mcpid.Hit{{ID: "files:f1", ConnectionID: drive, Title: "Q3"}}, doc: searchfetch.Document{Title: "Q3", Text: "text"}}
	onlyDrive := func(_ context.Context, a searchfetch.Access) error {
		if a.ConnectionID == drive {
			return nil
		}
		return errors.New("no grant")
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			opts := searchfetch.Options{Mode: mode, SearchName: "find", FetchName: "get", Authorize: onlyDrive}
			aliased := opts
			aliased.Aliases = al
			before := searchfetch.New(b, &aliased)
			shown := mcpid.ExtractIDs(before.Search(context.Background(), raw(`{"query":"q3"}`)).Text)
			require.Equal(t, []string{"drive1/files:f1"}, shown)

			restarted := searchfetch.New(b, &opts) // without its aliases
			for name, tc := range map[string]struct {
				tools *searchfetch.Tools
				id    string
			}{
				"restarted without aliases": {restarted, shown[0]},
				"alias in another case":     {before, "Drive1/files:f1"},
			} {
				e := requireError(t, tc.tools.Fetch(context.Background(), mustArgs(t, tc.id)), mcpid.CodeForbidden)
				assert.Equal(t, "find again, then get an id that find shows", e.Hint(), name)

				// The step the hint names succeeds.
				again := mcpid.ExtractIDs(tc.tools.Search(context.Background(), raw(`{"query":"q3"}`)).Text)
				require.Len(t, again, 1, name)
				res := tc.tools.Fetch(context.Background(), mustArgs(t, again[0]))
				assert.False(t, res.IsError, "%s: %s", name, res.Text)
			}
		})
	}
}

// TestHints: the hint of every error the tools answer with in mcpid's own
// words, in both modes, with the tools renamed: each names a step that
// can succeed, and names the tools as registered, never search or fetch.
// A search takes only a query: a search backend's error about fetch's
// arguments gets the search's hint and lists nothing to retry with.
func TestHints(t *testing.T) {
	hang := scripted{do: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }}
	fail := func(err error) scripted { return scripted{do: func(context.Context) error { return err }} }
	deny := func(context.Context, searchfetch.Access) error { return errors.New("no grant") }
	sealed := func(t *testing.T) searchfetch.Options { return searchfetch.Options{Sealer: sealer(t)} }
	type row struct {
		name     string
		b        searchfetch.Backend
		opts     func(*testing.T) searchfetch.Options
		tool     string
		args     string
		code     mcpid.Code
		hint     string
		chatGPT  string // the hint in ModeChatGPT, when it differs
		onlyMode *searchfetch.Mode
	}
	def := searchfetch.ModeDefault
	searchArgsHint := `pass {"query": "…"} with what to look for as a string`
	tests := []row{
		{name: "search arguments", tool: "find", args: `{}`, code: searchfetch.CodeInvalidArguments,
			hint: searchArgsHint + ", and a string cursor only as a find result's next_cursor gave it", chatGPT: searchArgsHint},
		{name: "fetch arguments", tool: "get", args: `{"id":1}`, code: searchfetch.CodeInvalidArguments,
			hint:    `pass {"id": "…"} with an id exactly as find showed it, and a string connection_id only where find showed one`,
			chatGPT: `pass {"id": "…"} with an id exactly as find showed it`},
		{name: "offset", tool: "get", args: `{"id":"c1/orders:o1","offset":-1}`, code: searchfetch.CodeInvalidArguments,
			hint: "omit offset to read from the start, or pass the next_offset of a cut get result as a JSON integer", onlyMode: &def},
		{name: "offset past the end", b: scripted{doc: searchfetch.Document{Text: "abc"}}, tool: "get", args: `{"id":"c1/orders:o1","offset":9}`, code: searchfetch.CodeInvalidArguments,
			hint: "omit offset to read from the start, or pass the next_offset of a cut get result as a JSON integer", onlyMode: &def},
		{name: "invalid_id", tool: "get", args: `{"id":"c1/orders"}`, code: mcpid.CodeInvalidID,
			hint: "pass the id exactly as find returned it, as one value, unedited"},
		{name: "invalid_connection_id", tool: "get", args: `{"id":"orders:o1","connection_id":"c\u0001"}`, code: mcpid.CodeInvalidConnectionID,
			hint: "pass connection_id exactly as find returned it, or omit it", onlyMode: &def},
		{name: "conflicting_connection_id", tool: "get", args: `{"id":"c1/orders:o1","connection_id":"c2"}`, code: mcpid.CodeConflictingConnectionID,
			hint: "pass the id alone, without connection_id", onlyMode: &def},
		{name: "unknown_id", opts: sealed, tool: "get", args: `{"id":"c1/orders:o1"}`, code: mcpid.CodeUnknownID,
			hint: "pass an id exactly as find showed it, or find again"},
		{name: "forbidden", opts: func(*testing.T) searchfetch.Options { return searchfetch.Options{Authorize: deny} }, tool: "get", args: `{"id":"c1/orders:o1"}`,
			code: mcpid.CodeForbidden, hint: "find again, then get an id that find shows"},
		{name: "not_found", b: fail(&mcpid.Error{Code: mcpid.CodeNotFound, Offset: -1}), tool: "get", args: `{"id":"c1/orders:o1"}`,
			code: mcpid.CodeNotFound, hint: "find again and get an id from the new results"},
		{name: "ambiguous_connection", b: fail(mcpid.AmbiguousConnection([]string{"c1", "c2"})), tool: "get", args: `{"id":"orders:o1"}`,
			code: mcpid.CodeAmbiguousConnection, hint: "retry with connection_id set to one of available_connections",
			chatGPT: "retry with id set to one of available_ids"},
		{name: "ambiguous_connection listing nothing", b: fail(mcpid.AmbiguousConnection(nil)), tool: "get", args: `{"id":"orders:o1"}`,
			code: mcpid.CodeAmbiguousConnection, hint: "find again and get an id from the new results"},
		{name: "resource_error", b: fail(errors.New(secret)), tool: "get", args: `{"id":"c1/orders:o1"}`,
			code: mcpid.CodeResourceError, hint: "the same call fails again: try another request, or report the failure"},
		{name: "timeout", b: hang, opts: func(*testing.T) searchfetch.Options { return searchfetch.Options{Timeout: time.Millisecond} }, tool: "find", args: `{"query":"q"}`,
			code: mcpid.CodeResourceUnavailable, hint: "try again later"},
		{name: "invalid_resource_response", b: fail(&mcpid.Error{Code: mcpid.CodeInvalidResourceResponse, Offset: -1}), tool: "get", args: `{"id":"c1/orders:o1"}`,
			code: mcpid.CodeInvalidResourceResponse, hint: "retry later, or get another result"},
		{name: "no room for the text", b: scripted{doc: searchfetch.Document{Title: strings.Repeat("t", 2<<10), Text: "text"}},
			opts: func(*testing.T) searchfetch.Options { return searchfetch.Options{FetchBudget: 1 << 10} }, tool: "get", args: `{"id":"c1/orders:o1"}`,
			code: mcpid.CodeInvalidResourceResponse, hint: "report the source as faulty"},
		{name: "no hit fetchable", b: scripted{hits: []mcpid.Hit{{ID: "https://x.example/1"}}}, tool: "find", args: `{"query":"q"}`,
			code: mcpid.CodeInvalidResourceResponse, hint: "find again, or report the source as faulty"},
	}
	// A search backend's errors about fetch's arguments, in mcpid's words.
	for _, e := range []*mcpid.Error{
		{Code: mcpid.CodeInvalidID, Offset: -1},
		{Code: mcpid.CodeInvalidConnectionID, Offset: -1},
		{Code: mcpid.CodeConflictingConnectionID, Offset: -1},
		{Code: mcpid.CodeUnknownID, Offset: -1},
		mcpid.AmbiguousConnection([]string{"c1", "c2"}),
	} {
		tests = append(tests, row{name: "search " + string(e.Code), b: fail(e), tool: "find", args: `{"query":"q"}`,
			code: e.Code, hint: "find again with other words"})
	}
	for _, mode := range modes {
		for _, tt := range tests {
			if tt.onlyMode != nil && *tt.onlyMode != mode {
				continue
			}
			t.Run(mode.String()+"/"+tt.name, func(t *testing.T) {
				var opts searchfetch.Options
				if tt.opts != nil {
					opts = tt.opts(t)
				}
				opts.Mode, opts.SearchName, opts.FetchName = mode, "find", "get"
				b := tt.b
				if b == nil {
					b = scripted{doc: searchfetch.Document{Title: "T"}}
				}
				tools := searchfetch.New(b, &opts)
				call := tools.Search
				if tt.tool == "get" {
					call = tools.Fetch
				}
				res := call(context.Background(), raw(tt.args))
				e := requireError(t, res, tt.code)
				want := tt.hint
				if mode == searchfetch.ModeChatGPT && tt.chatGPT != "" {
					want = tt.chatGPT
				}
				assert.Equal(t, want, e.Hint())
				for _, word := range strings.FieldsFunc(e.Hint(), func(r rune) bool { return r == ' ' || r == ',' }) {
					assert.NotContains(t, []string{"search", "fetch"}, word, "a hint names the tools as registered")
				}
				if tt.tool == "find" {
					var env map[string]any
					require.NoError(t, json.Unmarshal([]byte(res.Text), &env))
					assert.Empty(t, env["available_connections"], "a search lists no connection to retry with")
					assert.Empty(t, env["available_ids"], "a search lists no id to retry with")
				}
			})
		}
	}
}
