package searchfetch_test

import (
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
