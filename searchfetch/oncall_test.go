package searchfetch_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
)

// scripted is a Backend that answers with hits and doc, or with the error
// of do when do is set.
type scripted struct {
	hits []mcpid.Hit
	doc  searchfetch.Document
	do   func(ctx context.Context) error
}

func (s scripted) Search(ctx context.Context, _ searchfetch.Query) (searchfetch.SearchResult, error) {
	if s.do != nil {
		if err := s.do(ctx); err != nil {
			return searchfetch.SearchResult{}, err
		}
	}
	return searchfetch.SearchResult{Hits: s.hits}, nil
}

func (s scripted) Fetch(ctx context.Context, _ searchfetch.FetchRequest) (searchfetch.Document, error) {
	if s.do != nil {
		if err := s.do(ctx); err != nil {
			return searchfetch.Document{}, err
		}
	}
	return s.doc, nil
}

// calls collects what OnCall hears.
type calls struct {
	mu   sync.Mutex
	seen []searchfetch.Call
	ctxs []context.Context
}

func (c *calls) onCall(ctx context.Context, call searchfetch.Call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen, c.ctxs = append(c.seen, call), append(c.ctxs, ctx)
}

// only returns the one call heard, failing unless there was exactly one.
func (c *calls) only(t *testing.T) searchfetch.Call {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	require.Len(t, c.seen, 1, "OnCall is called once per call")
	return c.seen[0]
}

// TestOnCall: OnCall hears of every call once, before it returns, with its
// outcome: the code the model sees ("" for a success), the caller, the
// connections read, the hits shown, dropped and denied, the time spent in
// the backend and the authorizer, and the bytes of the answer; for every
// code the tools answer with, timeouts, denials and panics included.
func TestOnCall(t *testing.T) {
	s := sealer(t)
	al, err := mcpid.NewAliases(map[string]string{"projects/acme/connections/drive-1": "drive1"})
	require.NoError(t, err)
	hits := []mcpid.Hit{
		{ID: "orders:o1", ConnectionID: "c1", Title: "Order o1"},
		{ID: "orders:o2", ConnectionID: "c3", Title: "Hidden"},
		{ID: "orders:o3", ConnectionID: "c2", Title: "Order o3"},
		{ID: "bad:b1", ConnectionID: `CORP\drive`, Title: "Unfetchable"},
		{ID: "tickets:t1", ConnectionID: "c1", Title: "Ticket t1"},
		{ID: "orders:o4", ConnectionID: "c3", Title: "Hidden too"},
		{ID: "notes:n1", Title: "A note"},
	}
	grants := func(ctx context.Context, a searchfetch.Access) error {
		c, _ := searchfetch.CallerFrom(ctx)
		if c.UserID == "ana" && a.ConnectionID != "c3" {
			return nil
		}
		return errors.New("no grant")
	}
	answers := scripted{hits: hits, doc: searchfetch.Document{Title: "T", Text: "text"}}
	failWith := func(err error) scripted {
		return scripted{do: func(context.Context) error { return err }}
	}
	hang := scripted{do: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }}
	const timeout = 5 * time.Millisecond

	tests := []struct {
		name    string
		b       searchfetch.Backend
		opts    searchfetch.Options
		tool    string
		args    string
		want    searchfetch.Call // the fields of the outcome; the timings are checked apart
		backend bool             // the backend was called
		authz   bool             // the authorizer was called
	}{
		{name: "search", b: answers, opts: searchfetch.Options{Authorize: grants}, tool: "search", args: `{"query":"q"}`,
			want:    searchfetch.Call{Connections: []string{"c1", "c2", ""}, Shown: 4, Dropped: 1, Denied: 2},
			backend: true, authz: true},
		{name: "search chatgpt", b: answers, opts: searchfetch.Options{Mode: searchfetch.ModeChatGPT, Authorize: grants}, tool: "search", args: `{"query":"q"}`,
			want:    searchfetch.Call{Connections: []string{"c1", "c2", ""}, Shown: 4, Dropped: 1, Denied: 2},
			backend: true, authz: true},
		{name: "search sealed, few hits shown", b: answers, opts: searchfetch.Options{Sealer: s, Preview: mcpid.PreviewOptions{MaxHits: 2}}, tool: "search", args: `{"query":"q"}`,
			want:    searchfetch.Call{Connections: []string{"c1", "c3"}, Shown: 2, Dropped: 1}, // the unfetchable hit past the window counts too
			backend: true},
		{name: "search aliased", b: scripted{hits: []mcpid.Hit{{ID: "files:f1", ConnectionID: "projects/acme/connections/drive-1"}}},
			opts: searchfetch.Options{Aliases: al}, tool: "search", args: `{"query":"q"}`,
			want:    searchfetch.Call{Connections: []string{"projects/acme/connections/drive-1"}, Shown: 1},
			backend: true},
		{name: "search all denied", b: answers, opts: searchfetch.Options{Authorize: grants}, tool: "search", args: `{"query":"q"}`,
			want:    searchfetch.Call{Denied: len(hits)}, // no caller: everything denied
			backend: true, authz: true},
		{name: "search invalid_arguments", b: answers, tool: "search", args: `{"q":"x"}`,
			want: searchfetch.Call{Code: searchfetch.CodeInvalidArguments}},
		{name: "search invalid_resource_response", b: scripted{hits: hits[3:4]}, tool: "search", args: `{"query":"q"}`,
			want:    searchfetch.Call{Code: mcpid.CodeInvalidResourceResponse, Dropped: 1},
			backend: true},
		{name: "search not_found", b: failWith(mcpid.NewError(mcpid.CodeNotFound, "gone", "")), tool: "search", args: `{"query":"q"}`,
			want: searchfetch.Call{Code: mcpid.CodeNotFound}, backend: true},
		{name: "search panic", b: scripted{do: func(context.Context) error { panic("boom") }}, tool: "search", args: `{"query":"q"}`,
			want: searchfetch.Call{Code: mcpid.CodeResourceError}, backend: true},
		{name: "search timeout", b: hang, opts: searchfetch.Options{Timeout: timeout}, tool: "search", args: `{"query":"q"}`,
			want: searchfetch.Call{Code: mcpid.CodeResourceUnavailable}, backend: true},

		{name: "fetch", b: answers, opts: searchfetch.Options{Authorize: grants}, tool: "fetch", args: `{"id":"c1/orders:o1"}`,
			want:    searchfetch.Call{Connections: []string{"c1"}, ID: "c1/orders:o1"},
			backend: true, authz: true},
		{name: "fetch unscoped", b: answers, tool: "fetch", args: `{"id":"orders:o1"}`,
			want: searchfetch.Call{Connections: []string{""}, ID: "orders:o1"}, backend: true},
		{name: "fetch aliased", b: answers, opts: searchfetch.Options{Aliases: al, Mode: searchfetch.ModeChatGPT}, tool: "fetch", args: `{"id":"drive1/files:f1"}`,
			want: searchfetch.Call{Connections: []string{"projects/acme/connections/drive-1"}, ID: "drive1/files:f1"}, backend: true},
		{name: "fetch forbidden", b: answers, opts: searchfetch.Options{Authorize: grants}, tool: "fetch", args: `{"id":"c3/orders:o2"}`,
			want:  searchfetch.Call{Code: mcpid.CodeForbidden, Connections: []string{"c3"}, ID: "c3/orders:o2"},
			authz: true},
		{name: "fetch invalid_arguments", b: answers, tool: "fetch", args: `{"id":1}`,
			want: searchfetch.Call{Code: searchfetch.CodeInvalidArguments}},
		{name: "fetch invalid_arguments offset", b: answers, tool: "fetch", args: `{"id":"c1/orders:o1","offset":99}`,
			want: searchfetch.Call{Code: searchfetch.CodeInvalidArguments, Connections: []string{"c1"}, ID: "c1/orders:o1"}, backend: true},
		{name: "fetch invalid_id", b: answers, tool: "fetch", args: `{"id":"c1/orders"}`,
			want: searchfetch.Call{Code: mcpid.CodeInvalidID}},
		{name: "fetch invalid_connection_id", b: answers, tool: "fetch", args: `{"id":"orders:o1","connection_id":"c\u0001"}`,
			want: searchfetch.Call{Code: mcpid.CodeInvalidConnectionID}},
		{name: "fetch conflicting_connection_id", b: answers, tool: "fetch", args: `{"id":"c1/orders:o1","connection_id":"c2"}`,
			want: searchfetch.Call{Code: mcpid.CodeConflictingConnectionID}},
		{name: "fetch unknown_id", b: answers, opts: searchfetch.Options{Sealer: s}, tool: "fetch", args: `{"id":"c1/orders:o1"}`,
			want: searchfetch.Call{Code: mcpid.CodeUnknownID}},
		{name: "fetch ambiguous_connection", b: failWith(mcpid.AmbiguousConnection([]string{"c1", "c2"})), tool: "fetch", args: `{"id":"orders:o1"}`,
			want: searchfetch.Call{Code: mcpid.CodeAmbiguousConnection, Connections: []string{""}, ID: "orders:o1"}, backend: true},
		{name: "fetch not_found", b: failWith(mcpid.NewError(mcpid.CodeNotFound, "gone", "")), tool: "fetch", args: `{"id":"c1/orders:o1"}`,
			want: searchfetch.Call{Code: mcpid.CodeNotFound, Connections: []string{"c1"}, ID: "c1/orders:o1"}, backend: true},
		{name: "fetch invalid_resource_response", b: scripted{doc: searchfetch.Document{Title: strings.Repeat("t", 2<<10), Text: "text"}},
			opts: searchfetch.Options{FetchBudget: 1 << 10}, tool: "fetch", args: `{"id":"c1/orders:o1"}`,
			want: searchfetch.Call{Code: mcpid.CodeInvalidResourceResponse, Connections: []string{"c1"}, ID: "c1/orders:o1"}, backend: true},
		{name: "fetch own code", b: failWith(mcpid.NewError("quota_exceeded", "spent", "retry tomorrow")), tool: "fetch", args: `{"id":"c1/orders:o1"}`,
			want: searchfetch.Call{Code: "quota_exceeded", Connections: []string{"c1"}, ID: "c1/orders:o1"}, backend: true},
		{name: "fetch internal error", b: failWith(errors.New(secret)), tool: "fetch", args: `{"id":"c1/orders:o1"}`,
			want: searchfetch.Call{Code: mcpid.CodeResourceError, Connections: []string{"c1"}, ID: "c1/orders:o1"}, backend: true},
		{name: "fetch timeout inline", b: hang, opts: searchfetch.Options{Timeout: timeout, Inline: true}, tool: "fetch", args: `{"id":"c1/orders:o1"}`,
			want: searchfetch.Call{Code: mcpid.CodeResourceUnavailable, Connections: []string{"c1"}, ID: "c1/orders:o1"}, backend: true},
		{name: "fetch authorizer panic", b: answers, opts: searchfetch.Options{Authorize: func(context.Context, searchfetch.Access) error { panic("boom") }},
			tool: "fetch", args: `{"id":"c1/orders:o1"}`,
			want:  searchfetch.Call{Code: mcpid.CodeForbidden, Connections: []string{"c1"}, ID: "c1/orders:o1"},
			authz: true},
		{name: "fetch authorizer timeout", b: answers, opts: searchfetch.Options{Timeout: timeout, Authorize: func(ctx context.Context, _ searchfetch.Access) error {
			<-ctx.Done()
			return ctx.Err()
		}}, tool: "fetch", args: `{"id":"c1/orders:o1"}`,
			want:  searchfetch.Call{Code: mcpid.CodeResourceUnavailable, Connections: []string{"c1"}, ID: "c1/orders:o1"},
			authz: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var heard calls
			opts := tt.opts
			opts.OnCall = heard.onCall
			tools := searchfetch.New(tt.b, &opts)
			call := tools.Search
			if tt.tool == "fetch" {
				call = tools.Fetch
			}
			ctx := context.WithValue(context.Background(), ctxKey{}, "request")
			if tt.name != "search all denied" {
				ctx = searchfetch.WithCaller(ctx, searchfetch.Caller{UserID: "ana"})
			}
			before := time.Now()
			res := call(ctx, raw(tt.args))
			after := time.Now()
			got := heard.only(t)

			want := tt.want
			want.Tool = tt.tool
			want.Caller, _ = searchfetch.CallerFrom(ctx)
			want.Err = res.Err
			want.Bytes = len(res.Text) + len(res.StructuredContent)
			if res.IsError {
				assert.Equal(t, decodeCode(t, res), got.Code, "the code the model sees")
			} else {
				assert.Equal(t, len(mcpid.ExtractIDs(res.Text)), got.Shown, "the hits the text shows")
			}
			timings := got
			got.Start, got.Duration, got.BackendStart, got.Backend, got.Authorize = time.Time{}, 0, time.Time{}, 0, 0
			assert.Equal(t, want, got)

			assert.Equal(t, "request", heard.ctxs[0].Value(ctxKey{}), "OnCall gets the call's context")
			assert.False(t, timings.Start.Before(before), "Start")
			assert.Positive(t, timings.Duration)
			assert.False(t, timings.Start.Add(timings.Duration).After(after), "the call ended by the answer")
			if tt.backend {
				assert.Positive(t, timings.Backend)
				assert.False(t, timings.BackendStart.Before(timings.Start), "BackendStart")
				assert.False(t, timings.BackendStart.Add(timings.Backend).After(timings.Start.Add(timings.Duration)), "the backend's time is within the call's")
			} else {
				assert.Zero(t, timings.Backend)
				assert.True(t, timings.BackendStart.IsZero(), "no backend call, no BackendStart")
			}
			if tt.authz {
				assert.Positive(t, timings.Authorize)
				// Authorize adds up every authorizer call, and a search runs
				// at most 8 of them at once within its own time.
				assert.LessOrEqual(t, timings.Authorize, 8*timings.Duration)
			} else {
				assert.Zero(t, timings.Authorize)
			}
			if strings.Contains(tt.name, "timeout") {
				assert.GreaterOrEqual(t, timings.Backend+timings.Authorize, timeout, "the time until the timeout")
			}
		})
	}
}

// TestOnCallOncePerCall: concurrent calls are each heard once, with their
// own caller.
func TestOnCallOncePerCall(t *testing.T) {
	var heard calls
	tools := searchfetch.New(scripted{doc: searchfetch.Document{Title: "T"}}, &searchfetch.Options{OnCall: heard.onCall})
	const n = 32
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := searchfetch.WithCaller(context.Background(), searchfetch.Caller{UserID: string(rune('a' + i%26))})
			if i%2 == 0 {
				tools.Search(ctx, raw(`{"query":"q"}`))
			} else {
				tools.Fetch(ctx, raw(`{"id":"c1/orders:o1"}`))
			}
		}()
	}
	wg.Wait()
	require.Len(t, heard.seen, n)
	var users []string
	for _, c := range heard.seen {
		users = append(users, c.Caller.UserID)
	}
	slices.Sort(users)
	var want []string
	for i := range n {
		want = append(want, string(rune('a'+i%26)))
	}
	slices.Sort(want)
	assert.Equal(t, want, users)
}

// TestOnCallAllocs: unset, OnCall costs no allocation; set, one per call
// (the record, which is the call's context) besides what OnCall's own
// Call holds.
func TestOnCallAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("AllocsPerRun")
	}
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool, and so encoding/json, allocate at random")
	}
	b := scripted{doc: searchfetch.Document{Title: "T", Text: "text"}}
	ctx := context.Background()
	args := raw(`{"id":"c1/orders:o1"}`)
	plain := searchfetch.New(b, &searchfetch.Options{Inline: true})
	hooked := searchfetch.New(b, &searchfetch.Options{Inline: true, OnCall: func(context.Context, searchfetch.Call) {}})
	base := testing.AllocsPerRun(100, func() { plain.Fetch(ctx, args) })
	with := testing.AllocsPerRun(100, func() { hooked.Fetch(ctx, args) })
	assert.Equal(t, base+1, with, "OnCall's cost in allocations of a fetch")
}

// BenchmarkOnCall measures a call of each tool without OnCall and with an
// OnCall that does nothing, in the same run: the difference is what
// building the Call costs (for a search, counting the hits its text shows).
// The backend runs inline, so that switches between goroutines, which
// OnCall does not change, add no noise to the difference.
func BenchmarkOnCall(b *testing.B) {
	backend := &adaptertest.Backend{}
	onCall := func(context.Context, searchfetch.Call) {}
	args := map[string][]byte{"search": []byte(`{"query":"refund"}`), "fetch": []byte(`{"id":"c1/orders:o1"}`)}
	for _, tool := range []string{"search", "fetch"} {
		for _, hooked := range []bool{false, true} {
			opts := &searchfetch.Options{Inline: true}
			name := tool + "/unset"
			if hooked {
				opts.OnCall, name = onCall, tool+"/set"
			}
			tools := searchfetch.New(backend, opts)
			call := toolCall(tools.Search)
			if tool == "fetch" {
				call = toolCall(tools.Fetch)
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				ctx := context.Background()
				for b.Loop() {
					if err := call(ctx, args[tool]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
