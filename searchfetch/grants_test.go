package searchfetch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// counts is what a default-mode search says of its hits.
type counts struct {
	Results []struct{ ID string }
	Total   int
	HasMore bool `json:"has_more"`
}

// searchCounts returns the counts of res, a default-mode search result.
func searchCounts(t *testing.T, res searchfetch.Result) counts {
	t.Helper()
	require.False(t, res.IsError, res.Text)
	var c counts
	require.NoError(t, json.Unmarshal(res.StructuredContent, &c), string(res.StructuredContent))
	return c
}

// TestSearchCountsOnlyReadable: every count a search shows covers only
// hits the caller may read, past the window too: 3 readable hits and 50
// of a denied connection, with MaxHits 3, are "3 of 3", whatever Total
// the backend claims; readable hits past the window count as the window's
// do (an unfetchable one among those not shown, a duplicate not again).
func TestSearchCountsOnlyReadable(t *testing.T) {
	readable := func(n int) []mcpid.Hit {
		var hits []mcpid.Hit
		for i := range n {
			hits = append(hits, mcpid.Hit{ID: "a:" + strconv.Itoa(i), ConnectionID: "c1", Title: "mine"})
		}
		return hits
	}
	denied := func(n int) []mcpid.Hit {
		var hits []mcpid.Hit
		for i := range n {
			hits = append(hits, mcpid.Hit{ID: "s:" + strconv.Itoa(i), ConnectionID: "hr", Title: "secret"})
		}
		return hits
	}
	tests := []struct {
		name      string
		hits      []mcpid.Hit
		shown     int
		total     int
		notShown  string // the footer's count, "" for none
		dropCount int
	}{
		{"readable fill the window before denied", append(readable(3), denied(50)...), 3, 3, "", 0},
		{"denied first", append(denied(50), readable(3)...), 3, 3, "", 0},
		{"readable past the window", append(append(readable(3), denied(50)...), readable(5)[3:]...), 3, 5, "2 hits not shown", 0},
		{"past the window: a duplicate and an unfetchable hit", append(append(readable(4), denied(5)...),
			mcpid.Hit{ID: "a:0", ConnectionID: "c1"}, mcpid.Hit{ID: "", ConnectionID: "c1"}), 3, 5, "2 hits not shown", 1},
	}
	g := &grants{byUser: map[string][]string{"ana": {"c1"}}}
	for _, tt := range tests {
		for _, backendTotal := range []int{0, len(tt.hits) + 100} {
			for _, mode := range modes {
				for _, structured := range []searchfetch.Structured{searchfetch.StructuredShown, searchfetch.StructuredAll} {
					t.Run(fmt.Sprintf("%s/total=%d/%s/%s", tt.name, backendTotal, mode, structured), func(t *testing.T) {
						b := &recorder{result: searchfetch.SearchResult{Hits: tt.hits, Total: backendTotal, HasMore: backendTotal > 0}}
						var reports []dropReport
						tools := searchfetch.New(b, &searchfetch.Options{Mode: mode, Structured: structured, Authorize: g.authorize,
							OnDropped: reportsTo(t, &reports), Preview: mcpid.PreviewOptions{MaxHits: 3}})
						res := tools.Search(as("ana"), raw(`{"query":"q"}`))
						require.False(t, res.IsError, res.Text)
						assert.Len(t, mcpid.ExtractIDs(res.Text), tt.shown)
						assert.Len(t, reports, tt.dropCount)
						assert.NotContains(t, res.Text, "secret")
						assert.NotContains(t, string(res.StructuredContent), "secret")
						if mode == searchfetch.ModeChatGPT {
							return
						}
						c := searchCounts(t, res)
						assert.Equal(t, tt.total, c.Total)
						assert.False(t, c.HasMore)
						assert.Contains(t, res.Text, fmt.Sprintf("Showing %d of %d hits.", tt.shown, tt.total))
						if tt.notShown == "" {
							assert.NotContains(t, res.Text, "not shown")
						} else {
							assert.Contains(t, res.Text, tt.notShown)
						}
					})
				}
			}
		}
	}
}

// bounded is an authorizer that allows every connection but those in
// deny, and counts its calls and the most of them at once.
type bounded struct {
	deny  map[string]bool
	calls atomic.Int64

	mu             sync.Mutex
	inFlight, most int
	asked          []string
}

func (a *bounded) authorize(_ context.Context, acc searchfetch.Access) error {
	a.calls.Add(1)
	a.mu.Lock()
	a.inFlight++
	a.most = max(a.most, a.inFlight)
	a.asked = append(a.asked, acc.ConnectionID)
	a.mu.Unlock()
	time.Sleep(time.Millisecond) // so that calls overlap
	a.mu.Lock()
	a.inFlight--
	a.mu.Unlock()
	if a.deny[acc.ConnectionID] {
		return fmt.Errorf("may not read %s", acc.ConnectionID)
	}
	return nil
}

// TestSearchAuthorizationBounds: 2,000 hits of 2,000 connections cost
// 2,000 authorizations, one per connection, at most 8 at once, within the
// search's one deadline: every hit is judged, so the counts are exact and
// say no more than the caller may read.
func TestSearchAuthorizationBounds(t *testing.T) {
	const n = 2000
	hits := make([]mcpid.Hit, n)
	deny := map[string]bool{}
	for i := range hits {
		c := "c" + strconv.Itoa(i)
		hits[i] = mcpid.Hit{ID: "a:1", ConnectionID: c}
		if i%2 == 1 {
			deny[c] = true
		}
	}
	for _, inline := range []bool{false, true} {
		t.Run(fmt.Sprintf("inline=%v", inline), func(t *testing.T) {
			a := &bounded{deny: deny}
			b := &recorder{result: searchfetch.SearchResult{Hits: hits, Total: n}}
			res := searchfetch.New(b, &searchfetch.Options{Authorize: a.authorize, Inline: inline}).Search(as("ana"), raw(`{"query":"q"}`))
			c := searchCounts(t, res)
			assert.Equal(t, int64(n), a.calls.Load())
			assert.LessOrEqual(t, a.most, 8)
			assert.ElementsMatch(t, connectionsOf(hits), a.asked, "every connection, once")
			assert.Equal(t, n/2, c.Total, "the readable hits")
			assert.False(t, c.HasMore)
			assert.Len(t, c.Results, mcpid.DefaultMaxHits)
			assert.True(t, strings.HasPrefix(res.Text, fmt.Sprintf("Showing %d of %d hits.\n", mcpid.DefaultMaxHits, n/2)), res.Text)
		})
	}
}

// TestSearchAllDenied: a search whose hits are all of connections the
// caller may not read is "No hits.", however many connections they span:
// nothing in it tells that records exist.
func TestSearchAllDenied(t *testing.T) {
	deny := func(context.Context, searchfetch.Access) error { return errors.New("denied") }
	for _, n := range []int{1, 64, 65, 1000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			hits := make([]mcpid.Hit, n)
			for i := range hits {
				hits[i] = mcpid.Hit{ID: "a:1", ConnectionID: "c" + strconv.Itoa(i)}
			}
			b := &recorder{result: searchfetch.SearchResult{Hits: hits}}
			res := searchfetch.New(b, &searchfetch.Options{Authorize: deny}).Search(as("ana"), raw(`{"query":"q"}`))
			require.False(t, res.IsError, res.Text)
			assert.Equal(t, "No hits.", res.Text)
			assert.JSONEq(t, `{"results":[],"total":0}`, string(res.StructuredContent))
		})
	}
}

// connectionsOf returns the connections of hits, in order.
func connectionsOf(hits []mcpid.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ConnectionID
	}
	return out
}

// TestSearchAuthorizationDeadline: the authorizations of a search share
// one deadline; a hit whose verdict did not arrive in time is neither
// shown nor counted, and fails the search only inside the window.
func TestSearchAuthorizationDeadline(t *testing.T) {
	slow := func(ctx context.Context, a searchfetch.Access) error {
		if a.ConnectionID == "slow" {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	}
	mine := mcpid.Hit{ID: "a:1", ConnectionID: "c1"}
	late := mcpid.Hit{ID: "a:2", ConnectionID: "slow"}
	for _, inline := range []bool{false, true} {
		opts := &searchfetch.Options{Authorize: slow, Inline: inline, Timeout: 250 * time.Millisecond, Preview: mcpid.PreviewOptions{MaxHits: 1}}
		t.Run(fmt.Sprintf("past the window/inline=%v", inline), func(t *testing.T) {
			b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{mine, late, late}}}
			res := searchfetch.New(b, opts).Search(as("ana"), raw(`{"query":"q"}`))
			c := searchCounts(t, res)
			assert.Equal(t, 1, c.Total)
			assert.True(t, c.HasMore, "more may exist")
			// It cannot rule more out: a way on, without a count.
			assert.True(t, strings.HasPrefix(res.Text, "Showing 1 of 1 or more hits.\n"), res.Text)
			assert.Contains(t, res.Text, "\nFor more hits, call search with the same query and cursor=", res.Text)
		})
		t.Run(fmt.Sprintf("inside the window/inline=%v", inline), func(t *testing.T) {
			b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{late, mine}}}
			requireError(t, searchfetch.New(b, opts).Search(as("ana"), raw(`{"query":"q"}`)), mcpid.CodeResourceUnavailable)
		})
	}
}
