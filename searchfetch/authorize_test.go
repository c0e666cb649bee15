package searchfetch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// grants is an authorizer over a table of the connections each user may
// read, which records what it is asked.
type grants struct {
	byUser map[string][]string

	mu    sync.Mutex
	asked []searchfetch.Access
}

func (g *grants) authorize(ctx context.Context, a searchfetch.Access) error {
	g.mu.Lock()
	g.asked = append(g.asked, a)
	g.mu.Unlock()
	c, ok := searchfetch.CallerFrom(ctx)
	if !ok {
		return errors.New("no caller")
	}
	if slices.Contains(g.byUser[c.UserID], a.ConnectionID) {
		return nil
	}
	return fmt.Errorf("%s may not read %q", c.UserID, a.ConnectionID)
}

// askedFor returns the connections g was asked about, in order.
func (g *grants) askedFor() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, a := range g.asked {
		out = append(out, a.ConnectionID)
	}
	return out
}

// as returns a context whose caller is user.
func as(user string) context.Context {
	return searchfetch.WithCaller(context.Background(), searchfetch.Caller{UserID: user})
}

var modes = []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT}

// TestAuthorizeFetch: fetch asks the authorizer after the id resolved
// and before the backend, with the connection as resolved ("" when
// unscoped) and the id as given; a denial is forbidden, with no backend
// call, the same answer whether or not the record exists.
func TestAuthorizeFetch(t *testing.T) {
	s := sealer(t)
	for _, mode := range modes {
		for _, sealed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/sealed=%v", mode, sealed), func(t *testing.T) {
				g := &grants{byUser: map[string][]string{"ana": {"c1", ""}}}
				b := &recorder{doc: searchfetch.Document{Title: "T"}}
				opts := &searchfetch.Options{Mode: mode, Authorize: g.authorize}
				show := func(id string) string { return id }
				if sealed {
					opts.Sealer, show = s, s.Seal
				}
				tools := searchfetch.New(b, opts)

				for _, id := range []string{"c1/orders:o1", "orders:o1", "c1/:https://x.example/1"} {
					res := tools.Fetch(as("ana"), mustArgs(t, show(id)))
					require.False(t, res.IsError, "%s: %s", id, res.Text)
				}
				require.Len(t, b.requests, 3)
				want := []searchfetch.Access{
					{Tool: "fetch", ConnectionID: "c1", ID: show("c1/orders:o1"), Handle: mcpid.MustParse("c1/orders:o1")},
					{Tool: "fetch", ConnectionID: "", ID: show("orders:o1"), Handle: mcpid.MustParse("orders:o1")},
					{Tool: "fetch", ConnectionID: "c1", ID: show("c1/:https://x.example/1"), Handle: mcpid.MustParse("c1/:https://x.example/1")},
				}
				if diff := cmp.Diff(want, g.asked, cmp.Comparer(func(a, b mcpid.Handle) bool { return a == b })); diff != "" {
					t.Errorf("asked (-want +got):\n%s", diff)
				}

				// Denied: the backend is never called, and the answer is
				// the same for a record that exists and one that does not.
				var answers []string
				for _, ctx := range []context.Context{as("bob"), context.Background()} {
					for _, id := range []string{"c2/orders:o1", "c2/orders:nope"} {
						res := tools.Fetch(ctx, mustArgs(t, show(id)))
						e := requireError(t, res, mcpid.CodeForbidden)
						assert.Equal(t, "the caller may not read that connection", e.Message())
						assert.Equal(t, "search again, then fetch an id that search shows", e.Hint())
						assert.NotContains(t, res.Text, "orders:", "the answer does not repeat the id")
						answers = append(answers, res.Text)
					}
				}
				for _, a := range answers[1:] {
					assert.Equal(t, answers[0], a, "one answer whether or not the record exists")
				}
				assert.Len(t, b.requests, 3, "no backend call for a denied fetch")

				// An id that does not resolve is answered before the
				// authorizer is asked.
				asked := len(g.asked)
				requireError(t, tools.Fetch(as("ana"), mustArgs(t, show("c1/orders"))), mcpid.CodeInvalidID)
				assert.Len(t, g.asked, asked)
			})
		}
	}
}

// TestAuthorizerOutcomes: nil allows; an *mcpid.Error is the answer as it
// is; any other error and a panic deny; an authorizer that outlasts the
// timeout is resource_unavailable. Only an allowed fetch reaches the
// backend.
func TestAuthorizerOutcomes(t *testing.T) {
	quota := mcpid.NewError("quota_exceeded", "the caller's quota is spent", "retry tomorrow")
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	tests := []struct {
		name   string
		auth   func(context.Context, searchfetch.Access) error
		inline bool
		code   mcpid.Code // "" for allowed
		hint   string
	}{
		{"nil allows", func(context.Context, searchfetch.Access) error { return nil }, false, "", ""},
		{"error denies", func(context.Context, searchfetch.Access) error { return errors.New("no grant") }, false, mcpid.CodeForbidden, ""},
		{"wrapped context error denies", func(context.Context, searchfetch.Access) error {
			return fmt.Errorf("token store: %w", context.DeadlineExceeded)
		}, false, mcpid.CodeForbidden, ""},
		{"panic denies", func(context.Context, searchfetch.Access) error { panic("policy engine crashed") }, false, mcpid.CodeForbidden, ""},
		{"nil panic denies", func(context.Context, searchfetch.Access) error { panic(nil) }, false, mcpid.CodeForbidden, ""},
		{"own answer", func(context.Context, searchfetch.Access) error { return quota }, false, "quota_exceeded", "retry tomorrow"},
		{"own forbidden", func(context.Context, searchfetch.Access) error {
			return mcpid.NewError(mcpid.CodeForbidden, "revoked", "ask an admin")
		}, false, mcpid.CodeForbidden, "ask an admin"},
		{"slow, honouring ctx, inline", func(ctx context.Context, _ searchfetch.Access) error { <-ctx.Done(); return ctx.Err() }, true, mcpid.CodeResourceUnavailable, "try again later"},
		{"slow, ignoring ctx", func(context.Context, searchfetch.Access) error { <-release; return nil }, false, mcpid.CodeResourceUnavailable, "try again later"},
	}
	for _, tt := range tests {
		for _, mode := range modes {
			t.Run(tt.name+"/"+mode.String(), func(t *testing.T) {
				b := &recorder{doc: searchfetch.Document{Title: "T"}, result: searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "orders:o1", ConnectionID: "c1"}}}}
				// Only the authorizers that never answer get a short
				// timeout: the others are judged on what they return,
				// however loaded the machine.
				timeout := time.Duration(0) // DefaultTimeout
				if tt.code == mcpid.CodeResourceUnavailable {
					timeout = 20 * time.Millisecond
				}
				tools := searchfetch.New(b, &searchfetch.Options{Mode: mode, Authorize: tt.auth, Timeout: timeout, Inline: tt.inline})
				res := tools.Fetch(context.Background(), raw(`{"id":"c1/orders:o1"}`))
				search := tools.Search(context.Background(), raw(`{"query":"q"}`))
				if tt.code == "" {
					require.False(t, res.IsError, res.Text)
					assert.Len(t, b.requests, 1)
					assert.Equal(t, []string{"c1/orders:o1"}, ids(mcpid.ExtractHits(search.Text)))
					return
				}
				e := requireError(t, res, tt.code)
				if tt.hint != "" {
					assert.Equal(t, tt.hint, e.Hint())
				}
				assert.Empty(t, b.requests, "no backend fetch")
				if tt.code == mcpid.CodeForbidden {
					// A denied connection's hits are left out of a search,
					// which does not fail.
					require.False(t, search.IsError, search.Text)
					assert.Empty(t, mcpid.ExtractHits(search.Text))
					return
				}
				requireError(t, search, tt.code)
			})
		}
	}
}

// TestAuthorizeSearch: search asks once per distinct connection among the
// hits, before it judges whether they can be fetched; the
// hits of a denied connection are left out without being counted (not in
// total, the header or the footer) and never fail the search.
func TestAuthorizeSearch(t *testing.T) {
	hits := []mcpid.Hit{
		{ID: "secret:s1", ConnectionID: "hr", Title: "Salaries"},
		{ID: "orders:o1", ConnectionID: "c1", Title: "Order o1"},
		{ID: "files:f1", ConnectionID: `CORP\drive`, Title: "denied and unfetchable"},
		{ID: "secret:s2", ConnectionID: "hr", Title: "Reviews"},
		{ID: "notes:n1", Title: "A note"},
		{ID: "orders:o2", ConnectionID: "c1", Title: "Order o2"},
	}
	tests := []struct {
		name    string
		grant   []string
		shown   []string
		total   int
		failure bool
	}{
		{"some connections", []string{"c1", ""}, []string{"c1/orders:o1", "notes:n1", "c1/orders:o2"}, 3, false},
		{"one", []string{"hr"}, []string{"hr/secret:s1", "hr/secret:s2"}, 2, false},
		{"none", nil, nil, 0, false},
		{"only an unfetchable one", []string{`CORP\drive`}, nil, 0, true},
	}
	for _, tt := range tests {
		for _, mode := range modes {
			for _, structured := range []searchfetch.Structured{searchfetch.StructuredShown, searchfetch.StructuredAll} {
				t.Run(fmt.Sprintf("%s/%s/%s", tt.name, mode, structured), func(t *testing.T) {
					g := &grants{byUser: map[string][]string{"ana": tt.grant}}
					var reports []dropReport
					b := &recorder{result: searchfetch.SearchResult{Hits: hits}}
					opts := &searchfetch.Options{Mode: mode, Structured: structured, Authorize: g.authorize,
						OnDropped: reportsTo(t, &reports), Preview: mcpid.PreviewOptions{MaxHits: 10}}
					res := searchfetch.New(b, opts).Search(as("ana"), raw(`{"query":"q"}`))
					assert.ElementsMatch(t, []string{"hr", "c1", `CORP\drive`, ""}, g.askedFor(), "once per distinct connection")
					if tt.failure {
						requireError(t, res, mcpid.CodeInvalidResourceResponse)
						assert.Len(t, reports, 1)
						return
					}
					require.False(t, res.IsError, res.Text)
					assert.Empty(t, reports, "a denied hit is never judged")
					assert.Equal(t, tt.shown, ids(mcpid.ExtractHits(res.Text)))
					for _, h := range hits {
						if !slices.Contains(tt.grant, h.ConnectionID) {
							assert.NotContains(t, res.Text, h.Title)
							assert.NotContains(t, string(res.StructuredContent), h.Title)
						}
					}
					if mode == searchfetch.ModeDefault {
						var out struct{ Total int }
						require.NoError(t, json.Unmarshal(res.StructuredContent, &out))
						assert.Equal(t, tt.total, out.Total)
						if tt.total == 0 {
							assert.Equal(t, mcpid.RenderPreview(nil, mcpid.PreviewOptions{}), res.Text)
						} else {
							assert.Contains(t, res.Text, fmt.Sprintf("of %d hit", tt.total))
						}
						assert.NotContains(t, res.Text, "not shown")
					}
				})
			}
		}
	}
}

// TestAuthorizedCallerFetchesEveryShownHit: for callers with different
// grants, in both modes, sealed or not, every hit a search shows a caller
// is one that caller can fetch, and every id shown to no one but another
// caller is forbidden to it.
func TestAuthorizedCallerFetchesEveryShownHit(t *testing.T) {
	g := &grants{byUser: map[string][]string{
		"all":  append([]string{""}, realConnections...),
		"some": {"cin_4f2a", "projects/p1/connections/c2", "données"},
		"one":  {"drive:team"},
		"none": nil,
	}}
	for _, mode := range modes {
		for _, sealer := range []*mcpid.Sealer{nil, sealer(t)} {
			t.Run(fmt.Sprintf("%s/sealed=%v", mode, sealer != nil), func(t *testing.T) {
				b := newByPair()
				tools := searchfetch.New(b, &searchfetch.Options{Mode: mode, Sealer: sealer, Authorize: g.authorize,
					Preview: mcpid.PreviewOptions{Budget: 1 << 20, MaxHits: 1 << 10}})
				shownTo := map[string][]string{}
				for user, conns := range g.byUser {
					res := tools.Search(as(user), raw(`{"query":"q"}`))
					require.False(t, res.IsError, res.Text)
					shown := ids(mcpid.ExtractHits(res.Text))
					shownTo[user] = shown
					want := 0
					for _, h := range b.hits {
						if slices.Contains(conns, h.ConnectionID) {
							want++
						}
					}
					require.Len(t, shown, want, user)
					for _, id := range shown {
						doc := tools.Fetch(as(user), mustArgs(t, id))
						require.False(t, doc.IsError, "%s fetches %q: %s", user, id, doc.Text)
					}
				}
				fetches := len(b.asked)
				for _, id := range shownTo["all"] {
					if !slices.Contains(shownTo["one"], id) {
						requireError(t, tools.Fetch(as("one"), mustArgs(t, id)), mcpid.CodeForbidden)
					}
				}
				assert.Len(t, b.asked, fetches, "no denied fetch reaches the backend")
			})
		}
	}
}

// TestAuthorizeAmbiguous: an ambiguous_connection answer lists only the
// connections (in ChatGPT mode, the ids) the caller may read, and is
// forbidden when it may read none of them.
func TestAuthorizeAmbiguous(t *testing.T) {
	g := &grants{byUser: map[string][]string{
		"ana": {"", "drive:team"},
		"bob": {"", "drive:team", "projects/p1/connections/c2"},
		"eve": {""},
	}}
	b := newByPair()
	def := searchfetch.New(b, &searchfetch.Options{Authorize: g.authorize})
	chatGPT := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, Authorize: g.authorize})

	e := requireError(t, def.Fetch(as("ana"), raw(`{"id":"orders:o1"}`)), mcpid.CodeAmbiguousConnection)
	assert.Equal(t, []string{"drive:team"}, e.Available)
	assert.Equal(t, "the record exists in 1 connection", e.Message(), "the count leaves out the others")
	e = requireError(t, chatGPT.Fetch(as("ana"), raw(`{"id":"orders:o1"}`)), mcpid.CodeAmbiguousConnection)
	assert.Equal(t, []string{"drive%3Ateam/orders:o1"}, e.AvailableIDs)
	assert.Equal(t, "the record exists in 1 connection", e.Message())

	e = requireError(t, def.Fetch(as("bob"), raw(`{"id":"orders:o1"}`)), mcpid.CodeAmbiguousConnection)
	assert.Equal(t, []string{"projects/p1/connections/c2", "drive:team"}, e.Available)

	for _, tools := range []*searchfetch.Tools{def, chatGPT} {
		requireError(t, tools.Fetch(as("eve"), raw(`{"id":"orders:o1"}`)), mcpid.CodeForbidden)
	}
}

// TestAuthorizeSearchTotal: with an authorizer, the backend's Total and
// HasMore stand only when it counted them for the caller.
func TestAuthorizeSearchTotal(t *testing.T) {
	g := &grants{byUser: map[string][]string{"ana": {"c1"}}}
	hits := []mcpid.Hit{{ID: "a:1", ConnectionID: "hr"}, {ID: "a:2", ConnectionID: "c1"}, {ID: "a:3", ConnectionID: "hr"}, {ID: "a:4", ConnectionID: "c1"}}
	tests := []struct {
		name   string
		result searchfetch.SearchResult
		want   string
	}{
		{"counted for every connection", searchfetch.SearchResult{Total: 10, HasMore: true, Hits: hits},
			`{"results":[{"id":"c1/a:2"},{"id":"c1/a:4"}],"total":2}`},
		{"counted for the caller", searchfetch.SearchResult{Total: 10, HasMore: true, CountsForCaller: true, Hits: hits},
			`{"results":[{"id":"c1/a:2"},{"id":"c1/a:4"}],"total":10,"has_more":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{result: tt.result}
			res := searchfetch.New(b, &searchfetch.Options{Authorize: g.authorize}).Search(as("ana"), raw(`{"query":"q"}`))
			require.False(t, res.IsError, res.Text)
			assert.JSONEq(t, tt.want, string(res.StructuredContent))
		})
	}
}
