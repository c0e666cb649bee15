package searchfetch_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// TestFailedSearchCountsNoDeniedHit: a search whose only readable hit
// cannot be fetched fails with a message that names that hit by its
// place among the readable hits, not among all the backend's: "hit 51"
// would tell that 50 hits of connections the caller may not read came
// first. The server's report keeps the backend's index.
func TestFailedSearchCountsNoDeniedHit(t *testing.T) {
	var hits []mcpid.Hit
	for i := range 50 {
		hits = append(hits, mcpid.Hit{ID: "s:o" + strconv.Itoa(i), ConnectionID: "other"})
	}
	hits = append(hits, mcpid.Hit{ID: "", ConnectionID: "mine"})
	g := &grants{byUser: map[string][]string{"ana": {"mine"}}}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			var reports []dropReport
			tools := searchfetch.New(&recorder{result: searchfetch.SearchResult{Hits: hits}},
				&searchfetch.Options{Mode: mode, Authorize: g.authorize, OnDropped: reportsTo(t, &reports)})
			res := tools.Search(as("ana"), raw(`{"query":"q"}`))
			e := requireError(t, res, mcpid.CodeInvalidResourceResponse)
			assert.Equal(t, "no hit can be fetched by an id: hit 1 has an empty id", e.Message())
			assert.NotContains(t, res.Text, "51")
			assert.Equal(t, []dropReport{{50, "", "the hit has an empty id"}}, reports)
		})
	}
}

// TestUndecidedBeforePageFails: a later page fails (resource_unavailable)
// when the verdict on a connection whose hits all came before it is
// undecided: the cursor counts the readable hits passed, and whether
// those were among them decides where the page starts. Left out, they
// would shift it past hits never shown.
func TestUndecidedBeforePageFails(t *testing.T) {
	hits := append(numbered(2, "c0"), numbered(4, "c1")[2:]...)
	undecided := false
	authorize := func(_ context.Context, a searchfetch.Access) error {
		if undecided && a.ConnectionID == "c0" {
			return mcpid.NewError(mcpid.CodeResourceUnavailable, "the grants store is down", "")
		}
		return nil
	}
	tools := searchfetch.New(&recorder{result: searchfetch.SearchResult{Hits: hits}},
		&searchfetch.Options{Authorize: authorize, Preview: mcpid.PreviewOptions{MaxHits: 2}})
	p := searchPage(t, as("ana"), tools, "q", "")
	assert.Equal(t, []string{"c0/s:0", "c0/s:1"}, p.ids)
	undecided = true
	requireError(t, tools.Search(as("ana"), mustJSON(t, map[string]string{"query": "q", "cursor": p.cursor})), mcpid.CodeResourceUnavailable)
	undecided = false
	assert.Equal(t, []string{"c1/s:2", "c1/s:3"}, searchPage(t, as("ana"), tools, "q", p.cursor).ids)
}
