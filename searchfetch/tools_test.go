package searchfetch_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
)

// TestToolDefinitions pins the input schemas of both modes: ChatGPT's
// contract checks them exactly.
func TestToolDefinitions(t *testing.T) {
	tests := []struct {
		mode          searchfetch.Mode
		search, fetch string
	}{
		{
			searchfetch.ModeDefault,
			`{"type":"object","properties":{"query":{"type":"string","description":"What to look for across every connected source."},"cursor":{"type":"string","description":"Only for more hits: a next_cursor search gave."}},"required":["query"],"additionalProperties":false}`,
			`{"type":"object","properties":{"id":{"type":"string","description":"An id exactly as search showed it."},"connection_id":{"type":"string"},"offset":{"type":"integer","minimum":0}},"required":["id"],"additionalProperties":false}`,
		},
		{
			searchfetch.ModeChatGPT,
			`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"],"additionalProperties":false}`,
			`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			tools := searchfetch.New(&recorder{}, &searchfetch.Options{Mode: tt.mode})
			for _, c := range []struct {
				tool   searchfetch.Tool
				name   string
				schema string
			}{{tools.SearchTool(), searchfetch.SearchName, tt.search}, {tools.FetchTool(), searchfetch.FetchName, tt.fetch}} {
				assert.Equal(t, c.name, c.tool.Name)
				assert.True(t, c.tool.ReadOnly, "%s is read-only", c.name)
				assert.NotEmpty(t, c.tool.Description)
				if diff := cmp.Diff(c.schema, string(c.tool.InputSchema)); diff != "" {
					t.Errorf("%s schema (-want +got):\n%s", c.name, diff)
				}
			}
		})
	}
}

// TestAnnotations: all four annotations are explicit in both modes, and
// openWorldHint is the server's choice.
func TestAnnotations(t *testing.T) {
	for _, openWorld := range []bool{false, true} {
		tools := searchfetch.New(&recorder{}, &searchfetch.Options{OpenWorld: openWorld})
		for _, tool := range []searchfetch.Tool{tools.SearchTool(), tools.FetchTool()} {
			got := [4]bool{tool.ReadOnly, tool.Destructive, tool.Idempotent, tool.OpenWorld}
			assert.Equal(t, [4]bool{true, false, true, openWorld}, got, tool.Name)
		}
	}
}

// TestNames: the tools are registered under the server's names, and the
// descriptions, the argument descriptions and the error hints name them so.
func TestNames(t *testing.T) {
	opts := &searchfetch.Options{SearchName: "kb_search", FetchName: "kb.fetch"}
	tools := searchfetch.New(&recorder{}, opts)
	search, fetch := tools.SearchTool(), tools.FetchTool()
	assert.Equal(t, "kb_search", search.Name)
	assert.Equal(t, "kb.fetch", fetch.Name)
	assert.Contains(t, search.Description, "kb.fetch")
	assert.Contains(t, fetch.Description, "kb_search")
	assert.Contains(t, string(fetch.InputSchema), "exactly as kb_search showed it")

	res := tools.Fetch(context.Background(), raw(`{"id":"orders"}`))
	e := requireError(t, res, mcpid.CodeInvalidID)
	assert.Equal(t, "pass the id exactly as kb_search returned it, as one value, unedited", e.Hint())
	b := &recorder{err: &mcpid.Error{Code: mcpid.CodeNotFound, Offset: -1}}
	e = requireError(t, searchfetch.New(b, opts).Fetch(context.Background(), raw(`{"id":"s:r"}`)), mcpid.CodeNotFound)
	assert.Equal(t, "kb_search again and kb.fetch an id from the new results", e.Hint(), "mcpid's default hint, in the tools' names")
	assert.Equal(t, "the resource server has no such record", e.Message())

	for _, bad := range []searchfetch.Options{{SearchName: "kb search"}, {FetchName: "search"}, {SearchName: "x", FetchName: "x"}, {FetchName: strings.Repeat("f", 129)}} {
		err := bad.Validate()
		assert.Error(t, err, "%+v", bad)
		assert.PanicsWithError(t, err.Error(), func() { searchfetch.New(&recorder{}, &bad) })
	}
	assert.NoError(t, (*searchfetch.Options)(nil).Validate())
}

// TestOutputSchemas: both tools declare an output schema in both modes,
// which every result and every error envelope validates against (the rest
// is proven result by result in the other tests); StructuredNone declares
// none and answers no structuredContent.
func TestOutputSchemas(t *testing.T) {
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		tools := searchfetch.New(&recorder{}, &searchfetch.Options{Mode: mode})
		for _, tool := range []searchfetch.Tool{tools.SearchTool(), tools.FetchTool()} {
			rs := adaptertest.Resolve(t, tool.OutputSchema)
			require.NotNil(t, rs, "%s/%s", mode, tool.Name)
			env, err := json.Marshal(mcpid.AmbiguousConnection([]string{"c1"}))
			require.NoError(t, err)
			assert.NoError(t, rs.Validate(adaptertest.DecodeText(t, string(env))), "%s/%s: the envelope", mode, tool.Name)
			assert.Error(t, rs.Validate(map[string]any{"results": "x"}), "%s/%s", mode, tool.Name)
		}
	}
	none := searchfetch.New(&recorder{doc: searchfetch.Document{Title: "T"}}, &searchfetch.Options{Structured: searchfetch.StructuredNone})
	assert.Nil(t, none.SearchTool().OutputSchema)
	assert.Nil(t, none.FetchTool().OutputSchema)
	res := none.Fetch(context.Background(), raw(`{"id":"s:r"}`))
	require.False(t, res.IsError, res.Text)
	assert.Nil(t, res.StructuredContent)
}

// TestDescriptions: a server's own descriptions replace the defaults.
func TestDescriptions(t *testing.T) {
	def := searchfetch.New(&recorder{}, nil)
	own := searchfetch.New(&recorder{}, &searchfetch.Options{SearchDescription: "Search Acme's orders."})
	assert.Equal(t, "Search Acme's orders.", own.SearchTool().Description)
	assert.Equal(t, def.FetchTool().Description, own.FetchTool().Description)
	assert.NotEqual(t, def.SearchTool().Description, own.SearchTool().Description)
}

// TestNewNilBackend: a server without a backend is a programming error.
func TestNewNilBackend(t *testing.T) {
	assert.PanicsWithValue(t, "searchfetch: New with a nil Backend", func() { searchfetch.New(nil, nil) })
}

// TestConcurrentCalls: Tools is safe for concurrent use (run with -race).
func TestConcurrentCalls(t *testing.T) {
	b := &adaptertest.Backend{}
	tools := searchfetch.New(b, nil)
	const workers, calls = 8, 20
	var wg sync.WaitGroup
	errs := make(chan string, workers*calls*2)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				if res := tools.Search(context.Background(), []byte(`{"query":"q"}`)); res.IsError {
					errs <- res.Text
				}
				if res := tools.Fetch(context.Background(), []byte(`{"id":"c1/orders:o1"}`)); res.IsError {
					errs <- res.Text
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	assert.Equal(t, int64(workers*calls), b.Searches())
	assert.Equal(t, int64(workers*calls), b.Fetches())
}

// TestRenamedHints: with the tools renamed, every hint mcpid writes names
// them as registered, in both modes, and a hint the backend wrote reaches
// the model exactly as written, though it holds the words search and
// fetch.
func TestRenamedHints(t *testing.T) {
	const backendHint = "the search index may lag; fetch again"
	lagging := mcpid.NewError(mcpid.CodeResourceUnavailable, "the index is behind", backendHint)
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		opts := &searchfetch.Options{Mode: mode, SearchName: "find", FetchName: "get", Sealer: sealer(t)}
		t.Run(mode.String(), func(t *testing.T) {
			for _, call := range []string{"find", "get"} {
				tools := searchfetch.New(&recorder{err: lagging}, opts)
				res := tools.Search(context.Background(), raw(`{"query":"q"}`))
				if call == "get" {
					res = tools.Fetch(context.Background(), mustArgs(t, opts.Sealer.Seal("c1/s:r")))
				}
				e := requireError(t, res, mcpid.CodeResourceUnavailable)
				assert.Equal(t, backendHint, e.Hint(), call)
				assert.Equal(t, "the index is behind", e.Message(), call)
			}

			fetchArgs := `pass {"id": "…"} with an id exactly as find showed it, and a string connection_id only where find showed one`
			if mode == searchfetch.ModeChatGPT {
				fetchArgs = `pass {"id": "…"} with an id exactly as find showed it`
			}
			tests := []struct {
				name string
				b    searchfetch.Backend
				call func(*searchfetch.Tools) searchfetch.Result
				code mcpid.Code
				hint string
			}{
				{"unknown argument", &recorder{}, func(tl *searchfetch.Tools) searchfetch.Result {
					return tl.Fetch(context.Background(), raw(`{"idd":"x"}`))
				}, searchfetch.CodeInvalidArguments, fetchArgs},
				{"unsealed id", &recorder{}, func(tl *searchfetch.Tools) searchfetch.Result {
					return tl.Fetch(context.Background(), raw(`{"id":"c1/s:r"}`))
				}, mcpid.CodeUnknownID, "pass an id exactly as find showed it, or find again"},
				{"malformed id", &recorder{}, func(tl *searchfetch.Tools) searchfetch.Result {
					return tl.Fetch(context.Background(), mustArgs(t, opts.Sealer.Seal("c1/s")))
				}, mcpid.CodeInvalidID, "pass the id exactly as find returned it, as one value, unedited"},
				{"not found, mcpid's words", &recorder{err: &mcpid.Error{Code: mcpid.CodeNotFound, Offset: -1}}, func(tl *searchfetch.Tools) searchfetch.Result {
					return tl.Fetch(context.Background(), mustArgs(t, opts.Sealer.Seal("c1/s:r")))
				}, mcpid.CodeNotFound, "find again and get an id from the new results"},
				{"forbidden, mcpid's words", &recorder{err: &mcpid.Error{Code: mcpid.CodeForbidden, Offset: -1}}, func(tl *searchfetch.Tools) searchfetch.Result {
					return tl.Fetch(context.Background(), mustArgs(t, opts.Sealer.Seal("c1/s:r")))
				}, mcpid.CodeForbidden, "find again, then get an id that find shows"},
				{"no hit fetchable", &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "https://x.example/1"}}}}, func(tl *searchfetch.Tools) searchfetch.Result {
					return tl.Search(context.Background(), raw(`{"query":"q"}`))
				}, mcpid.CodeInvalidResourceResponse, "find again, or report the source as faulty"},
			}
			if mode == searchfetch.ModeDefault {
				tests = append(tests, struct {
					name string
					b    searchfetch.Backend
					call func(*searchfetch.Tools) searchfetch.Result
					code mcpid.Code
					hint string
				}{"negative offset", &recorder{}, func(tl *searchfetch.Tools) searchfetch.Result {
					return tl.Fetch(context.Background(), raw(`{"id":"c1/s:r","offset":-1}`))
				}, searchfetch.CodeInvalidArguments, "omit offset to read from the start, or pass the next_offset of a cut get result as a JSON integer"})
			}
			for _, tt := range tests {
				e := requireError(t, tt.call(searchfetch.New(tt.b, opts)), tt.code)
				assert.Equal(t, tt.hint, e.Hint(), tt.name)
			}
		})
	}
}
