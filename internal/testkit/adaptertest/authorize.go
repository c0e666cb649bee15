package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// ConnectAs is [Connect] for one caller: every tool call the server
// handles carries caller in its context ([searchfetch.WithCaller]), put
// there as the SDK lets a test do it (a server middleware, or the
// client's own context where the transport passes it on).
type ConnectAs func(t testing.TB, b searchfetch.Backend, opts *searchfetch.Options, caller searchfetch.Caller) Client

// Grants are the connections each user may read ("" for the records
// without one), over [Records].
var Grants = map[string][]string{
	"ana": {"c1", "wiki", ""},
	"bob": {"c2"},
}

// Authorize is an authorizer over Grants: it allows the caller in ctx the
// connections Grants gives its UserID, and denies everything else,
// calls without a caller included.
func Authorize(ctx context.Context, a searchfetch.Access) error {
	c, ok := searchfetch.CallerFrom(ctx)
	if !ok {
		return errors.New("no caller")
	}
	if slices.Contains(Grants[c.UserID], a.ConnectionID) {
		return nil
	}
	return errors.New("no grant")
}

// RunAuthorization checks, through the adapter and its SDK's client, in
// both modes, that the caller the server's context carries reaches
// Options.Authorize: a search shows each caller only the hits of the
// connections it may read, each of which that caller fetches; a fetch the
// authorizer denies is forbidden and never reaches the backend, with the
// same answer for a record that exists and one that does not.
//
// It also checks that the counts a search shows cover only hits the
// caller may read ([runReadableCounts]).
func RunAuthorization(t *testing.T, connect ConnectAs) {
	t.Run("ReadableCounts", func(t *testing.T) { runReadableCounts(t, connect) })
	shown := map[string][]string{
		"ana": {"c1/orders:o1", "c1/tickets:t1", "wiki/:https://wiki.example.com/p/7", "notes:n1"},
		"bob": {"c2/tickets:t1"},
	}
	denied := map[string][]string{
		"ana": {"c2/tickets:t1", "c2/tickets:nope", "eu%3Awiki/pages:p1"},
		"bob": {"c1/orders:o1", "c1/orders:nope", "notes:n1"},
	}
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		for user, want := range shown {
			t.Run(mode.String()+"/"+user, func(t *testing.T) {
				b := &Backend{}
				c := connect(t, b, &searchfetch.Options{Mode: mode, Authorize: Authorize}, searchfetch.Caller{UserID: user})
				res := c.Call(t, searchfetch.SearchName, map[string]any{"query": "refund"})
				require.False(t, res.IsError, "%v", res.Texts)
				require.Len(t, res.Texts, 1)
				assert.Equal(t, want, mcpid.ExtractIDs(res.Texts[0]))
				for _, id := range want {
					doc := c.Call(t, searchfetch.FetchName, map[string]any{"id": id})
					require.False(t, doc.IsError, "%s fetches %q: %v", user, id, doc.Texts)
				}
				fetches := b.Fetches()
				var answers []Answer
				for _, id := range denied[user] {
					res := c.Call(t, searchfetch.FetchName, map[string]any{"id": id})
					require.True(t, res.IsError, "%s fetches %q: %v", user, id, res.Texts)
					e := decodeError(t, res)
					assert.Equal(t, mcpid.CodeForbidden, e.Code, "%v", res.Texts)
					answers = append(answers, res)
				}
				for _, a := range answers[1:] {
					assert.Equal(t, answers[0], a, "one answer whether or not the record exists")
				}
				assert.Equal(t, fetches, b.Fetches(), "no denied fetch reaches the backend")
			})
		}
	}
}

// decodeError returns the error whose envelope res's text holds.
func decodeError(t testing.TB, res Answer) *mcpid.Error {
	t.Helper()
	require.NotEmpty(t, res.Texts)
	var e mcpid.Error
	require.NoError(t, e.UnmarshalJSON([]byte(res.Texts[0])))
	return &e
}

// manyHits is a backend whose search returns its hits and total, and
// whose fetch is Backend's.
type manyHits struct {
	Backend
	hits  []mcpid.Hit
	total int
}

func (m *manyHits) Search(context.Context, searchfetch.Query) (searchfetch.SearchResult, error) {
	return searchfetch.SearchResult{Hits: m.hits, Total: m.total, HasMore: m.total > 0}, nil
}

// runReadableCounts: a backend returns 3 hits that ana may read, then 50
// of a connection she may not, with MaxHits 3, with and without a Total (of 100)
// of its own: in both modes she is shown the 3, and in the default mode
// every count (the header, the hits not shown, total, has_more) is 3, as
// in both channels.
func runReadableCounts(t *testing.T, connect ConnectAs) {
	var hits []mcpid.Hit
	for i := range 53 {
		c, title := "c1", "Order"
		if i >= 3 {
			c, title = "c2", "Secret"
		}
		hits = append(hits, mcpid.Hit{ID: "orders:o" + strconv.Itoa(i), ConnectionID: c, Title: title})
	}
	for _, total := range []int{0, 100} {
		for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
			t.Run(fmt.Sprintf("%s/total=%d", mode, total), func(t *testing.T) {
				b := &manyHits{hits: hits, total: total}
				opts := &searchfetch.Options{Mode: mode, Authorize: Authorize, Preview: mcpid.PreviewOptions{MaxHits: 3}}
				c := connect(t, b, opts, searchfetch.Caller{UserID: "ana"})
				res := c.Call(t, searchfetch.SearchName, map[string]any{"query": "refund"})
				require.False(t, res.IsError, "%v", res.Texts)
				require.Len(t, res.Texts, 1)
				assert.Equal(t, []string{"c1/orders:o0", "c1/orders:o1", "c1/orders:o2"}, mcpid.ExtractIDs(res.Texts[0]))
				assert.NotContains(t, res.Texts[0], "Secret")
				if mode == searchfetch.ModeChatGPT {
					return
				}
				assert.True(t, strings.HasPrefix(res.Texts[0], "Showing 3 of 3 hits.\n"), "%s", res.Texts[0])
				assert.NotContains(t, res.Texts[0], "not shown")
				out := res.Structured.(map[string]any)
				assert.Equal(t, 3.0, out["total"])
				assert.NotContains(t, out, "has_more")
			})
		}
	}
}
