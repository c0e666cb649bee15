package searchfetch_test

import (
	"cmp"
	"context"
	"encoding/json"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// TestValidateArgs: Validate takes the argument names and schemas a
// server's tools had, and refuses, with an error, those the tools cannot
// take: a schema that is not an object of typed properties, a property
// that gives one of the tool's own arguments more than a description,
// a requirement of what is not declared or optional, and any of them in
// ChatGPT mode; and a BareIDs or DefaultConnection that cannot hold.
func TestValidateArgs(t *testing.T) {
	tests := []struct {
		name string
		opts searchfetch.Options
		ok   bool
	}{
		{"grafana's", searchfetch.Options{QueryArg: "query", IDArg: "uid",
			SearchArgs: raw(`{"type":"object","properties":{"query":{"type":"string","description":"The query"},"limit":{"type":"integer","minimum":1},"page":{"type":"integer"}}}`),
			FetchArgs:  raw(`{"type":"object","properties":{"uid":{"description":"The dashboard's UID"}},"required":["uid"]}`)}, true},
		{"every type, an enum, required", searchfetch.Options{SearchArgs: raw(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false,` +
			`"properties":{"s":{"type":"string","enum":["a","b"]},"i":{"type":"integer","enum":[1,2e0]},"n":{"type":"number"},"b":{"type":"boolean"},"a":{"type":"array","items":{"type":"string"}},"o":{"type":"object"}},"required":["s","query"]}`)}, true},
		{"own arguments described", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"query":{"type":"string","description":"q"},"cursor":{"description":"c"}}}`),
			FetchArgs: raw(`{"type":"object","properties":{"id":{"description":"i"},"connection_id":{"description":"c"},"offset":{"type":"integer","description":"o"}}}`)}, true},
		{"query is free once QueryArg renames it", searchfetch.Options{QueryArg: "q", SearchArgs: raw(`{"type":"object","properties":{"query":{"type":"integer"}}}`)}, true},
		{"bare ids with a default connection", searchfetch.Options{BareIDs: true, DefaultConnection: "prod"}, true},
		{"bare ids in ChatGPT mode with a default", searchfetch.Options{Mode: searchfetch.ModeChatGPT, BareIDs: true, DefaultConnection: "prod"}, true},

		{"not an object", searchfetch.Options{SearchArgs: raw(`[]`)}, false},
		{"not JSON", searchfetch.Options{SearchArgs: raw(`{"type":`)}, false},
		{"type array", searchfetch.Options{SearchArgs: raw(`{"type":"array","properties":{}}`)}, false},
		{"no type", searchfetch.Options{SearchArgs: raw(`{"properties":{}}`)}, false},
		{"no properties", searchfetch.Options{SearchArgs: raw(`{"type":"object"}`)}, false},
		{"another top keyword", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{},"oneOf":[]}`)}, false},
		{"additional properties allowed", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{},"additionalProperties":true}`)}, false},
		{"property without a type", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"limit":{"description":"n"}}}`)}, false},
		{"property of two types", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"limit":{"type":["integer","null"]}}}`)}, false},
		{"property of type null", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"limit":{"type":"null"}}}`)}, false},
		{"property not an object", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"limit":true}}`)}, false},
		{"property declared twice", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"limit":{"type":"integer"},"limit":{"type":"integer"}}}`)}, false},
		{"property name not a name", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"a b":{"type":"integer"}}}`)}, false},
		{"query retyped", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"query":{"type":"integer"}}}`)}, false},
		{"query constrained", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"query":{"type":"string","minLength":1}}}`)}, false},
		{"renamed query retyped", searchfetch.Options{QueryArg: "q", SearchArgs: raw(`{"type":"object","properties":{"q":{"type":"integer"}}}`)}, false},
		{"cursor retyped", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"cursor":{"type":"integer"}}}`)}, false},
		{"connection_id retyped", searchfetch.Options{FetchArgs: raw(`{"type":"object","properties":{"connection_id":{"type":"integer"}}}`)}, false},
		{"offset as a string", searchfetch.Options{FetchArgs: raw(`{"type":"object","properties":{"offset":{"type":"string"}}}`)}, false},
		{"id given a default", searchfetch.Options{IDArg: "uid", FetchArgs: raw(`{"type":"object","properties":{"uid":{"type":"string","default":"x"}}}`)}, false},
		{"requires what it does not declare", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{},"required":["limit"]}`)}, false},
		{"requires the cursor", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{},"required":["cursor"]}`)}, false},
		{"enum of another type", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"limit":{"type":"integer","enum":[1.5]}}}`)}, false},
		{"empty enum", searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{"kind":{"type":"string","enum":[]}}}`)}, false},
		{"QueryArg cursor", searchfetch.Options{QueryArg: "cursor"}, false},
		{"QueryArg not a name", searchfetch.Options{QueryArg: "a query"}, false},
		{"IDArg connection_id", searchfetch.Options{IDArg: "connection_id"}, false},
		{"IDArg offset", searchfetch.Options{IDArg: "offset"}, false},
		{"ChatGPT QueryArg", searchfetch.Options{Mode: searchfetch.ModeChatGPT, QueryArg: "q"}, false},
		{"ChatGPT IDArg", searchfetch.Options{Mode: searchfetch.ModeChatGPT, IDArg: "uid"}, false},
		{"ChatGPT SearchArgs", searchfetch.Options{Mode: searchfetch.ModeChatGPT, SearchArgs: raw(`{"type":"object","properties":{}}`)}, false},
		{"ChatGPT FetchArgs", searchfetch.Options{Mode: searchfetch.ModeChatGPT, FetchArgs: raw(`{"type":"object","properties":{}}`)}, false},
		{"ChatGPT bare ids without a default", searchfetch.Options{Mode: searchfetch.ModeChatGPT, BareIDs: true}, false},
		{"default connection without bare ids", searchfetch.Options{DefaultConnection: "prod"}, false},
		{"default connection not a connection", searchfetch.Options{BareIDs: true, DefaultConnection: "a\x00b"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if tt.ok {
				require.NoError(t, err)
				searchfetch.New(&recorder{}, &tt.opts)
				return
			}
			require.Error(t, err)
			assert.Panics(t, func() { searchfetch.New(&recorder{}, &tt.opts) })
		})
	}
}

// grafanaOptions are the options of a server whose search takes a query,
// a limit and a page, and whose fetch takes a uid, as mcp-grafana's tools
// do.
func grafanaOptions() *searchfetch.Options {
	return &searchfetch.Options{
		QueryArg:   "query",
		IDArg:      "uid",
		SearchArgs: raw(`{"type":"object","properties":{"query":{"type":"string","description":"The query to search for"},"limit":{"type":"integer","description":"Maximum number of results","minimum":1},"page":{"type":"integer"}}}`),
		FetchArgs:  raw(`{"type":"object","properties":{"uid":{"description":"The UID of the dashboard"}}}`),
	}
}

// TestArgsSchema: the server's arguments are merged into the input
// schemas after the tool's own, as written, and its descriptions of the
// tool's own arguments replace the defaults.
func TestArgsSchema(t *testing.T) {
	tools := searchfetch.New(&recorder{}, grafanaOptions())
	want := `{"type":"object","properties":{"query":{"type":"string","description":"The query to search for"},` +
		`"cursor":{"type":"string","description":"Only for more hits: a next_cursor search gave."},` +
		`"limit":{"type":"integer","description":"Maximum number of results","minimum":1},"page":{"type":"integer"}},` +
		`"required":["query"],"additionalProperties":false}`
	if diff := gocmp.Diff(want, string(tools.SearchTool().InputSchema)); diff != "" {
		t.Errorf("search input schema (-want +got):\n%s", diff)
	}
	var fetch struct {
		Properties map[string]json.RawMessage
		Required   []string
	}
	require.NoError(t, json.Unmarshal(tools.FetchTool().InputSchema, &fetch))
	assert.Equal(t, []string{"uid"}, fetch.Required)
	assert.JSONEq(t, `{"type":"string","description":"The UID of the dashboard"}`, string(fetch.Properties["uid"]))
	assert.NotContains(t, fetch.Properties, "id")
}

// TestSearchArgs: each argument the server declared is checked by its
// type, enum and required, integers by the offset's rule (1.0 and 1e1 are
// integers, negative ones too here), and reaches the backend as the
// canonical object: members in the schema's order, integers as plain
// literals. A wrong value is invalid_arguments with Field set; an
// argument no one declared, or one given twice, is refused.
func TestSearchArgs(t *testing.T) {
	opts := &searchfetch.Options{SearchArgs: raw(`{"type":"object","properties":{` +
		`"limit":{"type":"integer"},"kind":{"type":"string","enum":["dash","folder"]},"ratio":{"type":"number"},` +
		`"deep":{"type":"boolean"},"tags":{"type":"array"},"filter":{"type":"object"},"page":{"type":"integer"}},"required":["kind"]}`)}
	tests := []struct {
		name  string
		args  string
		want  string // the Args the backend receives
		field string // else the Field of the invalid_arguments error
	}{
		{"required alone", `{"query":"q","kind":"dash"}`, `{"kind":"dash"}`, ""},
		{"schema order", `{"page":2,"query":"q","limit":10,"kind":"folder"}`, `{"limit":10,"kind":"folder","page":2}`, ""},
		{"integers canonical", `{"query":"q","kind":"dash","limit":1e3,"page":-2.0}`, `{"limit":1000,"kind":"dash","page":-2}`, ""},
		{"minus zero", `{"query":"q","kind":"dash","page":-0}`, `{"kind":"dash","page":0}`, ""},
		{"escaped string in the enum", `{"query":"q","kind":"d\u0061sh"}`, `{"kind":"dash"}`, ""},
		{"every type", ` {"query":"q","kind":"dash","ratio":0.5,"deep":false,"tags":[ "a" , 1 ],"filter":{ "a" : {"b":null} } } `,
			`{"kind":"dash","ratio":0.5,"deep":false,"tags":["a",1],"filter":{"a":{"b":null}}}`, ""},

		{"missing required", `{"query":"q"}`, "", "kind"},
		{"not in the enum", `{"query":"q","kind":"panel"}`, "", "kind"},
		{"fraction for an integer", `{"query":"q","kind":"dash","limit":1.5}`, "", "limit"},
		{"string for an integer", `{"query":"q","kind":"dash","limit":"10"}`, "", "limit"},
		{"null for an integer", `{"query":"q","kind":"dash","limit":null}`, "", "limit"},
		{"exponent beyond 30", `{"query":"q","kind":"dash","limit":1e31}`, "", "limit"},
		{"number beyond a float", `{"query":"q","kind":"dash","ratio":1e400}`, "", "ratio"},
		{"string for a boolean", `{"query":"q","kind":"dash","deep":"true"}`, "", "deep"},
		{"object for an array", `{"query":"q","kind":"dash","tags":{}}`, "", "tags"},
		{"array for an object", `{"query":"q","kind":"dash","filter":[]}`, "", "filter"},
		{"broken array", `{"query":"q","kind":"dash","tags":[1,}`, "", "tags"},
		{"given twice", `{"query":"q","kind":"dash","kind":"dash"}`, "", ""},
		{"undeclared", `{"query":"q","kind":"dash","size":1}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "s:r1", ConnectionID: "c1"}}}}
			res := searchfetch.New(b, opts).Search(context.Background(), raw(tt.args))
			if tt.want == "" {
				e := requireError(t, res, searchfetch.CodeInvalidArguments)
				assert.Equal(t, tt.field, e.Field)
				assert.Zero(t, b.calls())
				return
			}
			require.False(t, res.IsError, res.Text)
			require.Len(t, b.full, 1)
			assert.Equal(t, tt.want, b.full[0].Args.String())
			assert.Equal(t, "q", b.full[0].Text)
		})
	}
}

// TestArgsDecode: a backend decodes the arguments into its own struct,
// integers given as 1e3 into an int.
func TestArgsDecode(t *testing.T) {
	b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "s:r1", ConnectionID: "c1"}}}}
	res := searchfetch.New(b, grafanaOptions()).Search(context.Background(), raw(`{"query":"cpu","limit":1e1,"page":2.0}`))
	require.False(t, res.IsError, res.Text)
	require.Len(t, b.full, 1)
	var got struct{ Limit, Page int }
	require.NoError(t, b.full[0].Args.Decode(&got))
	assert.Equal(t, struct{ Limit, Page int }{10, 2}, got)
}

// TestIDArg: fetch takes its id under the server's name, reports errors
// about it with that Field, hints with that name, refuses "id", and hands
// the backend the fetch's own declared arguments.
func TestIDArg(t *testing.T) {
	opts := grafanaOptions()
	opts.FetchArgs = raw(`{"type":"object","properties":{"uid":{"description":"The UID"},"version":{"type":"integer"}}}`)
	b := &recorder{doc: searchfetch.Document{Title: "d", Text: "t"}}
	tools := searchfetch.New(b, opts)

	res := tools.Fetch(context.Background(), raw(`{"uid":"c1/:x","version":3.0}`))
	require.False(t, res.IsError, res.Text)
	require.Len(t, b.fetches, 1)
	assert.Equal(t, `{"version":3}`, b.fetches[0].Args.String())
	assert.Equal(t, "c1", b.fetches[0].ConnectionID)
	var doc searchfetch.Document
	require.NoError(t, json.Unmarshal([]byte(res.Text), &doc))
	assert.Equal(t, "c1/:x", doc.ID)

	e := requireError(t, tools.Fetch(context.Background(), raw(`{"id":"c1/:x"}`)), searchfetch.CodeInvalidArguments)
	assert.Equal(t, `unknown argument "id"`, e.Message())
	assert.Contains(t, e.Hint(), `{"uid": "…"}`)
	e = requireError(t, tools.Fetch(context.Background(), raw(`{}`)), searchfetch.CodeInvalidArguments)
	assert.Equal(t, `missing argument "uid"`, e.Message())
	e = requireError(t, tools.Fetch(context.Background(), raw(`{"uid":"s:r\u0000"}`)), mcpid.CodeInvalidID)
	assert.Equal(t, "uid", e.Field)
	e = requireError(t, tools.Fetch(context.Background(), raw(`{"uid":"c1/:x","version":"3"}`)), searchfetch.CodeInvalidArguments)
	assert.Equal(t, "version", e.Field)
	assert.Len(t, b.fetches, 1)
}

// TestQueryArg: search takes its query under the server's name.
func TestQueryArg(t *testing.T) {
	b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "s:r1", ConnectionID: "c1"}}}}
	tools := searchfetch.New(b, &searchfetch.Options{QueryArg: "q"})
	res := tools.Search(context.Background(), raw(`{"q":"cpu"}`))
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, []string{"cpu"}, b.queries)
	e := requireError(t, tools.Search(context.Background(), raw(`{"query":"cpu"}`)), searchfetch.CodeInvalidArguments)
	assert.Equal(t, `unknown argument "query"`, e.Message())
	assert.Contains(t, e.Hint(), `{"q": "…"}`)
}

// TestCursorBoundToArgs: with declared arguments, a page's cursor is
// bound to them too: the next page takes it with the same arguments, and
// refuses it with others; the footer says to repeat the arguments.
func TestCursorBoundToArgs(t *testing.T) {
	opts := grafanaOptions()
	opts.Preview.MaxHits = 2
	b := &recorder{result: searchfetch.SearchResult{Hits: numbered(5, "c1")}}
	tools := searchfetch.New(b, opts)
	ctx := context.Background()
	res := tools.Search(ctx, raw(`{"query":"q","limit":2}`))
	require.False(t, res.IsError, res.Text)
	var out struct {
		NextCursor string `json:"next_cursor"`
	}
	require.NoError(t, json.Unmarshal(res.StructuredContent, &out))
	require.NotEmpty(t, out.NextCursor, res.Text)
	assert.Contains(t, res.Text, "call search with the same arguments and cursor=")

	next := func(args string) searchfetch.Result {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(args), &m))
		m["cursor"] = out.NextCursor
		return tools.Search(ctx, mustJSON(t, m))
	}
	res = next(`{"query":"q","limit":2e0}`)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, []string{"c1/s:2", "c1/s:3"}, mcpid.ExtractIDs(res.Text))
	for _, args := range []string{`{"query":"q","limit":3}`, `{"query":"q"}`, `{"query":"q","limit":2,"page":1}`} {
		e := requireError(t, next(args), searchfetch.CodeInvalidArguments)
		assert.Equal(t, searchfetch.FieldCursor, e.Field, args)
	}
}

// TestIDArgCountsInLength: a hit is shown only when its fetch arguments
// fit MaxArgumentsSize under the id argument's own name: an id that fits
// as {"id": …} but not as {"dashboard_uid": …} is left out and reported,
// since fetch would refuse it.
func TestIDArgCountsInLength(t *testing.T) {
	shown := "c/s:" + strings.Repeat("a", searchfetch.MaxArgumentsSize-len(`{"id": "c/s:"}`))
	hits := []mcpid.Hit{{ID: "s:" + shown[len("c/s:"):], ConnectionID: "c"}}
	for _, tt := range []struct {
		idArg   string
		dropped int
	}{{"", 0}, {"dashboard_uid", 1}} {
		t.Run(tt.idArg, func(t *testing.T) {
			dropped := 0
			opts := &searchfetch.Options{IDArg: tt.idArg, OnDropped: func(int, mcpid.Hit, error) { dropped++ }}
			tools := searchfetch.New(&recorder{result: searchfetch.SearchResult{Hits: hits}}, opts)
			tools.Search(context.Background(), raw(`{"query":"q"}`))
			assert.Equal(t, tt.dropped, dropped)
			args := mustJSON(t, map[string]string{cmp.Or(tt.idArg, "id"): shown})
			fits := len(args) <= searchfetch.MaxArgumentsSize
			assert.Equal(t, tt.dropped == 0, fits, "fetch takes the shown id")
		})
	}
}
