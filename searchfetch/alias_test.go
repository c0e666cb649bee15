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
	"github.com/mcpid/mcpid/internal/testkit/economy"
	"github.com/mcpid/mcpid/searchfetch"
)

// aliases returns the aliases of the multi-connection fixture.
func aliases(t *testing.T) *mcpid.Aliases {
	t.Helper()
	a, err := mcpid.NewAliases(economy.Aliases())
	require.NoError(t, err)
	return a
}

// multiHits returns n hits of the multi-connection fixture, as the
// backend returns them: base ids and real connection ids.
func multiHits(n int) []mcpid.Hit {
	base := economy.MultiConnection(n)
	hits := make([]mcpid.Hit, len(base))
	for i, h := range base {
		hits[i] = mcpid.Hit(h)
	}
	return hits
}

// shownIDs returns the ids a search result shows in its text and in its
// structuredContent, and checks that both show the same.
func shownIDs(t *testing.T, res searchfetch.Result) []string {
	t.Helper()
	require.False(t, res.IsError, res.Text)
	ids := mcpid.ExtractIDs(res.Text)
	var structured struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(res.StructuredContent, &structured))
	for i, r := range structured.Results[:len(ids)] {
		assert.Equal(t, ids[i], r.ID)
	}
	return ids
}

// TestAliasesRoundTrip: with aliases, in both modes, sealed and not, and
// with each kind of structuredContent, every id search shows embeds its
// connection's alias and fetches its own hit: the backend and the
// authorizer see the real connection, FetchRequest.Handle and EchoID the
// id as shown without its seal, and the document the id as given. In
// ModeDefault a connection_id argument may be the alias or the real id.
func TestAliasesRoundTrip(t *testing.T) {
	a := aliases(t)
	s := sealer(t)
	hits := multiHits(len(economy.Connections))
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		for _, sealed := range []bool{false, true} {
			for _, structured := range []searchfetch.Structured{searchfetch.StructuredShown, searchfetch.StructuredAll} {
				t.Run(mode.String()+"/"+map[bool]string{false: "unsealed", true: "sealed"}[sealed]+"/"+structured.String(), func(t *testing.T) {
					g := &accessLog{}
					opts := &searchfetch.Options{Mode: mode, Aliases: a, Structured: structured, Authorize: g.authorize,
						Preview: mcpid.PreviewOptions{MaxHits: len(hits), Budget: 1 << 16}}
					if sealed {
						opts.Sealer = s
					}
					b := &recorder{result: searchfetch.SearchResult{Hits: hits}, doc: searchfetch.Document{Title: "t"}}
					tools := searchfetch.New(b, opts)
					ids := shownIDs(t, tools.Search(context.Background(), raw(`{"query":"q"}`)))
					require.Len(t, ids, len(hits))
					for i, id := range ids {
						c := economy.Connections[i]
						shown, _ := mcpid.SelfContainedID(hits[i].ID, c.Alias)
						if sealed {
							assert.Equal(t, s.Seal(shown), id)
						} else {
							assert.Equal(t, shown, id)
						}
						args := []json.RawMessage{mustArgs(t, id)}
						if mode == searchfetch.ModeDefault {
							args = append(args, fetchArgs(t, id, c.Alias), fetchArgs(t, id, c.ID))
						}
						for _, arg := range args {
							res := tools.Fetch(context.Background(), arg)
							require.False(t, res.IsError, "%s: %s", arg, res.Text)
							req := b.requests[len(b.requests)-1]
							assert.Equal(t, c.ID, req.ConnectionID, "the backend sees the real connection")
							assert.Equal(t, shown, req.Handle.String(), "the handle is the id as shown, unsealed")
							assert.Equal(t, shown, req.EchoID)
							assert.Equal(t, hits[i].ID, req.Handle.BaseID())
							assert.Equal(t, mcpid.ScopeEmbedded, req.Scope)
							last := g.asked[len(g.asked)-1]
							assert.Equal(t, c.ID, last.ConnectionID, "the authorizer sees the real connection")
							assert.Equal(t, id, last.ID)
							var doc searchfetch.Document
							require.NoError(t, json.Unmarshal([]byte(res.Text), &doc))
							assert.Equal(t, id, doc.ID, "the document echoes the id as given")
						}
					}
					// The authorizer of the search was asked of real connections.
					for _, acc := range g.asked {
						_, isAlias := a.Connection(acc.ConnectionID)
						assert.False(t, isAlias, "asked of %q", acc.ConnectionID)
					}
				})
			}
		}
	}
}

// accessLog is an authorizer that allows everything and records what it
// is asked. A search asks about its connections concurrently.
type accessLog struct {
	mu    sync.Mutex
	asked []searchfetch.Access
}

func (g *accessLog) authorize(_ context.Context, a searchfetch.Access) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked = append(g.asked, a)
	return nil
}

// fetchArgs returns the fetch arguments {"id": id, "connection_id": conn}.
func fetchArgs(t *testing.T, id, conn string) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(map[string]string{"id": id, "connection_id": conn})
	require.NoError(t, err)
	return b
}

// TestAliasesStructuredAll: StructuredAll's connection_id of every hit is
// its alias, as the ids embed it.
func TestAliasesStructuredAll(t *testing.T) {
	hits := multiHits(len(economy.Connections))
	tools := searchfetch.New(&recorder{result: searchfetch.SearchResult{Hits: hits}}, &searchfetch.Options{Aliases: aliases(t), Structured: searchfetch.StructuredAll})
	res := tools.Search(context.Background(), raw(`{"query":"q"}`))
	require.False(t, res.IsError, res.Text)
	var out struct {
		Results []struct {
			ID           string `json:"id"`
			ConnectionID string `json:"connection_id"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(res.StructuredContent, &out))
	require.Len(t, out.Results, len(hits))
	for i, r := range out.Results {
		alias := economy.Connections[i].Alias
		assert.Equal(t, alias, r.ConnectionID)
		assert.True(t, strings.HasPrefix(r.ID, alias+"/"), r.ID)
	}
}

// TestAliasesFetchEdges: ids minted before the aliases still fetch; a
// connection_id that names another connection, alias or not, conflicts in
// the words the model used; an explicit alias scopes a legacy id to the
// real connection.
func TestAliasesFetchEdges(t *testing.T) {
	a := aliases(t)
	gcp := "projects/acme/locations/eu/connections/drive-1"
	preAlias, _ := mcpid.SelfContainedID("1BxiMVs0XRA5nFMdKvB", gcp)
	tests := []struct {
		name, id, conn string
		want           string // the connection the backend gets; "" for an error
		scope          mcpid.Scope
		code           mcpid.Code
	}{
		{"pre-alias id", preAlias, "", gcp, mcpid.ScopeEmbedded, ""},
		{"pre-alias id, alias argument", preAlias, "drive1", gcp, mcpid.ScopeEmbedded, ""},
		{"alias id", "drive1/:1BxiMVs0XRA5nFMdKvB", "", gcp, mcpid.ScopeEmbedded, ""},
		{"alias id, other alias", "drive1/:1BxiMVs0XRA5nFMdKvB", "team", "", 0, mcpid.CodeConflictingConnectionID},
		{"alias id, other real id", "drive1/:1BxiMVs0XRA5nFMdKvB", "drive:team", "", 0, mcpid.CodeConflictingConnectionID},
		{"legacy id, alias argument", "orders:o1", "pg", "cin_4f2a", mcpid.ScopeExplicit, ""},
		{"legacy id, real argument", "orders:o1", "cin_4f2a", "cin_4f2a", mcpid.ScopeExplicit, ""},
		{"legacy id, no argument", "orders:o1", "", "", mcpid.ScopeUnscoped, ""},
		{"connection without an alias", "other/orders:o1", "", "other", mcpid.ScopeEmbedded, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{}
			tools := searchfetch.New(b, &searchfetch.Options{Aliases: a})
			res := tools.Fetch(context.Background(), fetchArgs(t, tt.id, tt.conn))
			if tt.code != "" {
				e := requireError(t, res, tt.code)
				assert.Equal(t, tt.conn, e.Input, "the argument as given")
				assert.Empty(t, b.requests)
				return
			}
			require.False(t, res.IsError, res.Text)
			require.Len(t, b.requests, 1)
			req := b.requests[0]
			assert.Equal(t, tt.want, req.ConnectionID)
			assert.Equal(t, tt.scope, req.Scope)
			assert.Equal(t, tt.id, req.EchoID)
		})
	}
}

// TestAliasesDropTakenConnection: a hit whose connection has no alias but
// is another connection's alias is left out, counted and reported: its id
// would fetch from the aliased connection.
func TestAliasesDropTakenConnection(t *testing.T) {
	var reports []dropReport
	hits := []mcpid.Hit{
		{ID: "docs:d1", ConnectionID: "drive:team", Title: "Team doc"},
		{ID: "docs:d2", ConnectionID: "drive1", Title: "A connection named like an alias"},
		{ID: "docs:d3", ConnectionID: "unaliased", Title: "No alias"},
	}
	tools := searchfetch.New(&recorder{result: searchfetch.SearchResult{Hits: hits}},
		&searchfetch.Options{Aliases: aliases(t), OnDropped: reportsTo(t, &reports)})
	res := tools.Search(context.Background(), raw(`{"query":"q"}`))
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, []string{"team/docs:d1", "unaliased/docs:d3"}, mcpid.ExtractIDs(res.Text))
	assert.Contains(t, res.Text, "\n1 hit not shown")
	if diff := cmp.Diff([]dropReport{{1, "docs:d2", "the hit has a connection id that is another connection's alias"}}, reports); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

// TestAliasesAmbiguous: an ambiguous_connection answer of the backend
// lists each connection by its alias, and in ModeChatGPT each id embeds
// the alias; the authorizer still sees the real connections.
func TestAliasesAmbiguous(t *testing.T) {
	amb := mcpid.AmbiguousConnection([]string{"drive:team", "projects/acme/locations/eu/connections/drive-1", "no-alias"})
	t.Run("default", func(t *testing.T) {
		g := &accessLog{}
		tools := searchfetch.New(&recorder{err: amb}, &searchfetch.Options{Aliases: aliases(t), Authorize: g.authorize})
		e := requireError(t, tools.Fetch(context.Background(), mustArgs(t, "docs:d1")), mcpid.CodeAmbiguousConnection)
		assert.Equal(t, []string{"team", "drive1", "no-alias"}, e.Available)
		for _, acc := range g.asked {
			assert.NotContains(t, []string{"team", "drive1"}, acc.ConnectionID)
		}
	})
	t.Run("chatgpt", func(t *testing.T) {
		tools := searchfetch.New(&recorder{err: amb}, &searchfetch.Options{Aliases: aliases(t), Mode: searchfetch.ModeChatGPT})
		e := requireError(t, tools.Fetch(context.Background(), mustArgs(t, "docs:d1")), mcpid.CodeAmbiguousConnection)
		assert.Equal(t, []string{"team/docs:d1", "drive1/docs:d1", "no-alias/docs:d1"}, e.AvailableIDs)
	})
	t.Run("ids from the backend", func(t *testing.T) {
		ids := mcpid.AmbiguousConnectionIDs("docs:d1", []string{"drive:team", "no-alias"})
		tools := searchfetch.New(&recorder{err: ids}, &searchfetch.Options{Aliases: aliases(t), Mode: searchfetch.ModeChatGPT})
		e := requireError(t, tools.Fetch(context.Background(), mustArgs(t, "docs:d1")), mcpid.CodeAmbiguousConnection)
		assert.Equal(t, []string{"team/docs:d1", "no-alias/docs:d1"}, e.AvailableIDs)
	})
}
