package searchfetch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// page is what one default-mode search page shows.
type page struct {
	ids     []string // the ids the text shows
	total   int
	hasMore bool
	cursor  string // next_cursor, the same in both channels
	text    string
	// structured is the bytes of structuredContent.
	structured int
}

// searchPage calls tools' search for query with cursor ("" for none) in
// ctx and reads the page, checking that the text and structuredContent
// agree on the hits and the cursor.
func searchPage(t *testing.T, ctx context.Context, tools *searchfetch.Tools, query, cursor string) page {
	t.Helper()
	args := map[string]string{"query": query}
	if cursor != "" {
		args["cursor"] = cursor
	}
	b, err := json.Marshal(args)
	require.NoError(t, err)
	res := tools.Search(ctx, b)
	require.False(t, res.IsError, res.Text)
	p := page{ids: mcpid.ExtractIDs(res.Text), text: res.Text}
	if line := strings.LastIndex(res.Text, "cursor=\""); line >= 0 {
		require.NoError(t, json.Unmarshal([]byte(strings.TrimSuffix(res.Text[line+len("cursor="):], ".")), &p.cursor), res.Text)
	}
	if res.StructuredContent == nil {
		return p
	}
	p.structured = len(res.StructuredContent)
	var out struct {
		Results    []struct{ ID string }
		Total      int
		HasMore    bool   `json:"has_more"`
		NextCursor string `json:"next_cursor"`
	}
	require.NoError(t, json.Unmarshal(res.StructuredContent, &out))
	assert.Equal(t, p.cursor, out.NextCursor, "the cursor in both channels:\n%s", res.Text)
	p.total, p.hasMore = out.Total, out.HasMore
	return p
}

// numbered returns n hits of connection c, with ids s:0, s:1, ….
func numbered(n int, c string) []mcpid.Hit {
	hits := make([]mcpid.Hit, n)
	for i := range hits {
		hits[i] = mcpid.Hit{ID: "s:" + strconv.Itoa(i), ConnectionID: c, Title: "Hit " + strconv.Itoa(i)}
	}
	return hits
}

// TestPagesAcrossReplicas: pages follow one another whichever replica
// (another Tools with the same key) serves them: every hit shown once,
// in order, each later header counting the hits that remain.
func TestPagesAcrossReplicas(t *testing.T) {
	hits := numbered(20, "c1")
	key := []byte("0123456789abcdef0123456789abcdef")
	var replicas [2]*searchfetch.Tools
	for i := range replicas {
		s, err := mcpid.NewSealer(key)
		require.NoError(t, err)
		replicas[i] = searchfetch.New(&recorder{result: searchfetch.SearchResult{Hits: hits}},
			&searchfetch.Options{Sealer: s, Preview: mcpid.PreviewOptions{MaxHits: 3}})
	}
	s, _ := mcpid.NewSealer(key)
	var shown []string
	cursor := ""
	for n := 0; ; n++ {
		require.Less(t, n, len(hits), "no progress")
		p := searchPage(t, as("ana"), replicas[n%2], "refund", cursor)
		assert.Equal(t, len(hits)-len(shown), p.total, "the header counts what remains")
		assert.True(t, strings.HasPrefix(p.text, fmt.Sprintf("Showing %d of %d hits.", len(p.ids), p.total)), p.text)
		for _, id := range p.ids {
			opened, err := s.Open(id)
			require.NoError(t, err)
			shown = append(shown, opened)
		}
		if p.cursor == "" {
			break
		}
		cursor = p.cursor
	}
	var want []string
	for _, h := range hits {
		want = append(want, "c1/"+h.ID)
	}
	assert.Equal(t, want, shown)
}

// TestCursorRefused: with a Sealer, a cursor edited, given for another
// query or to another caller is refused (invalid_arguments about the
// cursor) before the backend runs; without one, a cursor is bound to its
// query only. A cursor never opens as an id, and ChatGPT mode takes none.
func TestCursorRefused(t *testing.T) {
	hits := numbered(10, "c1")
	for _, sealed := range []bool{true, false} {
		t.Run(fmt.Sprintf("sealed=%v", sealed), func(t *testing.T) {
			opts := &searchfetch.Options{Preview: mcpid.PreviewOptions{MaxHits: 2}}
			if sealed {
				opts.Sealer = sealer(t)
			}
			b := &recorder{result: searchfetch.SearchResult{Hits: hits}}
			tools := searchfetch.New(b, opts)
			cursor := searchPage(t, as("ana"), tools, "refund", "").cursor
			require.NotEmpty(t, cursor)
			searches := len(b.queries)

			tag := strings.LastIndexByte(cursor, '~')
			bad := []struct {
				name, query, cursor, user string
			}{
				{"another query", "refunds", cursor, "ana"},
				{"a count edited", "refund", "3" + cursor[tag:], "ana"},
				{"a tag edited", "refund", cursor[:len(cursor)-1] + flip(cursor[len(cursor)-1]), "ana"},
				{"a tag cut", "refund", cursor[:len(cursor)-1], "ana"},
				{"a backend cursor added", "refund", cursor[:tag] + ".x" + cursor[tag:], "ana"},
				{"no tag", "refund", cursor[:tag], "ana"},
				{"a seal's form", "refund", opts.Sealer.Seal("2"), "ana"},
				{"empty count", "refund", cursor[tag:], "ana"},
				{"leading zero", "refund", "0" + cursor, "ana"},
			}
			if sealed {
				bad = append(bad, struct{ name, query, cursor, user string }{"another caller", "refund", cursor, "bob"})
			} else {
				p := searchPage(t, as("bob"), tools, "refund", cursor)
				assert.Equal(t, []string{"c1/s:2", "c1/s:3"}, p.ids, "without a Sealer, bound to its query only")
				searches = len(b.queries)
			}
			for _, tt := range bad {
				res := tools.Search(as(tt.user), mustJSON(t, map[string]string{"query": tt.query, "cursor": tt.cursor}))
				e := requireError(t, res, searchfetch.CodeInvalidArguments)
				assert.Equal(t, searchfetch.FieldCursor, e.Field, tt.name)
			}
			assert.Len(t, b.queries, searches, "no refused cursor reaches the backend")

			res := tools.Fetch(as("ana"), mustArgs(t, cursor))
			if sealed {
				requireError(t, res, mcpid.CodeUnknownID) // its tag is no seal
			} else {
				require.True(t, res.IsError, "a cursor fetches nothing: %s", res.Text)
			}

			chatGPT := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, Sealer: opts.Sealer})
			requireError(t, chatGPT.Search(as("ana"), mustJSON(t, map[string]string{"query": "refund", "cursor": cursor})), searchfetch.CodeInvalidArguments)
		})
	}
}

// flip returns a tag character other than c.
func flip(c byte) string {
	if c == '0' {
		return "1"
	}
	return "0"
}

// mustJSON returns the JSON of v.
func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// TestPagingReachesEveryReadableHit: over random hit lists with denied
// connections, duplicates, unfetchable hits and titles of every length,
// at random budgets from MinBudget on, from one backend answer or from a
// Pager whose cursors are up to 256 bytes long, each page shows a run of
// the readable, fetchable hits not yet shown, each id once (per backend
// page), and passes over a hit only when it fits no page alone; paging
// ends early only after a page whose first hit fits no page alone, or
// does not fit one with room for the line that gives a cursor. With
// budgets that leave room for a hit and a cursor, that is every such hit
// exactly once, in order. Each page fits its budget in every channel,
// and its header counts the readable hits that remain. The cursors a
// caller gets are the same whatever hits of connections it may not read
// the list holds: no count of hidden hits can be read from them.
func TestPagingReachesEveryReadableHit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	g := &grants{byUser: map[string][]string{"ana": {"c0", "c1", "c2", ""}}}
	structured := []searchfetch.Structured{searchfetch.StructuredShown, searchfetch.StructuredAll, searchfetch.StructuredNone}
	for round := range 300 {
		budget := searchfetch.MinBudget + r.IntN(2300)
		// size is the Pager's page size (0: one answer of Search), pad
		// the length of its cursors.
		size, pad := 0, 0
		if r.IntN(3) == 0 {
			size, pad = 1+r.IntN(20), 1+r.IntN(256)
		}
		var hits, readable []mcpid.Hit
		for range r.IntN(60) {
			h := mcpid.Hit{ID: "s:" + strconv.Itoa(r.IntN(40)), ConnectionID: "c" + strconv.Itoa(r.IntN(5)),
				Title: strings.Repeat("t", r.IntN(300)), Snippet: strings.Repeat("s", r.IntN(200))}
			switch r.IntN(10) {
			case 0:
				h.ID = "" // unfetchable
			case 1:
				h.ConnectionID = ""
			case 2:
				// Long enough that a page of others may have no room
				// for it, while a page of its own does.
				if room := budget - 350 - pad; room > 0 {
					h.ID = "s:" + strings.Repeat("x", r.IntN(room))
				}
			}
			hits = append(hits, h)
			if h.ConnectionID != "c3" && h.ConnectionID != "c4" {
				readable = append(readable, h)
			}
		}
		opts := &searchfetch.Options{Authorize: g.authorize, Structured: structured[r.IntN(3)],
			Preview: mcpid.PreviewOptions{Budget: budget, MaxHits: 1 + r.IntN(10)}}
		if r.IntN(2) == 0 {
			opts.Sealer = sealer(t)
		}
		// A search that finds readable hits and no hit to show fails,
		// unless a further backend page may hold some.
		pageSize := len(hits)
		if size > 0 {
			pageSize = size
		}
		if len(hits) <= pageSize && len(readable) > 0 {
			h := mcpid.Hit{ID: "s:ok", ConnectionID: "c0"}
			hits, readable = append(hits, h), append(readable, h)
			pageSize = len(hits)
		}
		// want are the ids to show, in order, each once per backend page,
		// and shownAs the hits as shown; counted[i] is 1 when readable hit
		// i counts (unfetchable, or the first with its id on its backend
		// page).
		var want []string
		var shownAs []mcpid.Hit
		counted := make([]int, len(readable))
		at := 0 // the readable hits before hits[i]
		for lo := 0; lo < len(hits); lo += pageSize {
			seen := map[string]bool{}
			for _, h := range hits[lo:min(lo+pageSize, len(hits))] {
				if h.ConnectionID == "c3" || h.ConnectionID == "c4" {
					continue
				}
				at++
				id, ok := mcpid.SelfContainedID(h.ID, h.ConnectionID)
				if h.ID == "" || !ok && h.ConnectionID != "" {
					counted[at-1] = 1
					continue
				}
				if !seen[id] {
					seen[id] = true
					want = append(want, id)
					counted[at-1] = 1
					as := h
					as.ID = id
					if opts.Sealer != nil {
						as.ID = opts.Sealer.Seal(id)
					}
					shownAs = append(shownAs, as)
				}
			}
		}
		remaining := func(from int) int {
			n := 0
			for _, c := range counted[from:] {
				n += c
			}
			return n
		}
		// fits reports whether every page has room for any hit and a
		// cursor line: then paging reaches every hit.
		fits := budget >= 400+pad
		room := lastLineRoom(len(hits) > pageSize, pad)
		t.Run(strconv.Itoa(round), func(t *testing.T) {
			pages := func(hits []mcpid.Hit) (shown, cursors []string) {
				var b searchfetch.Backend = &recorder{result: searchfetch.SearchResult{Hits: hits}}
				if size > 0 {
					b = &paddedPager{hits: hits, size: size, pad: pad}
				}
				tools := searchfetch.New(b, opts)
				cursor := ""
				passed := 0 // the readable hits the pages shown so far passed
				next := 0   // the first of want not yet shown
				header := ""
				for n := 0; ; n++ {
					require.LessOrEqual(t, n, 2*len(hits)+1, "no progress")
					p := searchPage(t, as("ana"), tools, "q", cursor)
					assert.LessOrEqual(t, len(p.text), opts.Preview.Budget)
					if opts.Structured == searchfetch.StructuredShown {
						assert.LessOrEqual(t, p.structured, opts.Preview.Budget)
					}
					if opts.Structured != searchfetch.StructuredNone && size == 0 {
						assert.Equal(t, remaining(passed), p.total, "the header counts what remains:\n%s", p.text)
						assert.False(t, p.hasMore)
					}
					if header == "" {
						// The page that passed the hits of want before
						// the first of this page: the first since the
						// last page that showed hits.
						header = p.text
					}
					var opened []string
					for _, id := range p.ids {
						if opts.Sealer != nil {
							o, err := opts.Sealer.Open(id)
							require.NoError(t, err)
							id = o
						}
						opened = append(opened, id)
					}
					if len(opened) > 0 {
						j := next
						for j < len(want) && want[j] != opened[0] {
							j++
						}
						require.Less(t, j, len(want), "a page shows %s, not to show or shown before:\n%s", opened[0], p.text)
						for _, h := range shownAs[next:j] {
							assert.False(t, fitsAlone(h, budget, opts.Preview.MaxHits, header), "%s passed over, yet it fits a page:\n%s", h.ID, header)
						}
						require.Equal(t, want[j:min(j+len(opened), len(want))], opened, "a page shows a run of the hits not yet shown:\n%s", p.text)
						next, header = j+len(opened), ""
					}
					shown = append(shown, opened...)
					if p.cursor == "" {
						if next < len(want) {
							// Paging ended early: after a page that shows
							// its first hit alone, with no room for a
							// cursor, or one whose first hit fits no page.
							if len(opened) > 0 {
								first := shownAs[next-len(opened)]
								assert.False(t, fitsAlone(first, budget-room, opts.Preview.MaxHits, p.text), "no cursor, yet one fits:\n%s", p.text)
								if fitsAlone(first, budget-len(narrowAdvice)-1, opts.Preview.MaxHits, p.text) {
									assert.True(t, strings.HasSuffix(p.text, "\n"+narrowAdvice), "more hits, and room to say so:\n%s", p.text)
								}
							} else {
								assert.False(t, fitsAlone(shownAs[next], budget, opts.Preview.MaxHits, header), "%s never shown, yet it fits a page:\n%s", shownAs[next].ID, header)
							}
							assert.False(t, fits, "paging ends early at budget %d:\n%s", budget, p.text)
						}
						return shown, cursors
					}
					cursors = append(cursors, p.cursor)
					cursor = p.cursor
					// The cursor counts the readable hits passed.
					count, _, _ := strings.Cut(cursor[:strings.LastIndexByte(cursor, '~')], ".")
					var err error
					passed, err = strconv.Atoi(count)
					require.NoError(t, err)
				}
			}
			shown, cursors := pages(hits)
			if fits {
				assert.Equal(t, want, shown)
			}
			if size == 0 {
				// The same list without the hits ana may not read gives
				// her the same cursors.
				_, alone := pages(readable)
				assert.Equal(t, cursors, alone)
			}
		})
	}
}

// pager is a backend that pages hits, per pages of size, whose cursors are the
// page numbers, or next when set.
type pager struct {
	recorder
	hits    []mcpid.Hit
	size    int
	next    string
	counts  bool
	cursors []string
}

func (p *pager) Search(_ context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	cursor := q.Cursor
	p.cursors = append(p.cursors, cursor)
	n := 0
	if cursor != "" {
		var err error
		if n, err = strconv.Atoi(strings.TrimPrefix(cursor, "p")); err != nil {
			return searchfetch.SearchResult{}, mcpid.NewError(searchfetch.CodeInvalidArguments, "bad cursor", "")
		}
	}
	lo, hi := min(n*p.size, len(p.hits)), min((n+1)*p.size, len(p.hits))
	res := searchfetch.SearchResult{Hits: p.hits[lo:hi], CountsForCaller: p.counts}
	if hi < len(p.hits) {
		res.NextCursor = "p" + strconv.Itoa(n+1)
		if p.next != "" {
			res.NextCursor = p.next
		}
	}
	return res, nil
}

// TestPager: a backend that pages itself is asked for its first page
// with "", then for the page after each once its readable hits are
// passed, and every hit is shown once. A backend cursor the tools cannot
// carry ends paging, and the result says to narrow the query; with an
// authorizer, a backend that does not count for the caller gets no page
// but its first.
func TestPager(t *testing.T) {
	hits := numbered(25, "c1")
	p := &pager{hits: hits, size: 10}
	tools := searchfetch.New(p, &searchfetch.Options{Preview: mcpid.PreviewOptions{MaxHits: 4}})
	var shown []string
	cursor := ""
	for n := 0; ; n++ {
		require.Less(t, n, len(hits), "no progress")
		pg := searchPage(t, context.Background(), tools, "q", cursor)
		shown = append(shown, pg.ids...)
		if pg.cursor == "" {
			break
		}
		cursor = pg.cursor
	}
	assert.Len(t, shown, len(hits))
	assert.Equal(t, "c1/s:24", shown[len(shown)-1])
	assert.Equal(t, []string{"", "", "", "p1", "p1", "p1", "p2", "p2"}, p.cursors)
	assert.Empty(t, p.queries, "Search is never called")

	long := &pager{hits: hits, size: 4, next: strings.Repeat("x", 257)}
	tools = searchfetch.New(long, &searchfetch.Options{Preview: mcpid.PreviewOptions{MaxHits: 4}})
	pg := searchPage(t, context.Background(), tools, "q", "")
	assert.Empty(t, pg.cursor)
	assert.True(t, pg.hasMore)
	assert.True(t, strings.HasSuffix(pg.text, "\nMore hits may exist than pages reach: call search with a narrower query."), pg.text)

	g := &grants{byUser: map[string][]string{"ana": {"c1"}}}
	for _, counts := range []bool{false, true} {
		p := &pager{hits: hits, size: 4, counts: counts}
		tools = searchfetch.New(p, &searchfetch.Options{Authorize: g.authorize, Preview: mcpid.PreviewOptions{MaxHits: 4}})
		pg = searchPage(t, as("ana"), tools, "q", "")
		assert.Equal(t, counts, pg.cursor != "", "counts for the caller: %v", counts)
		assert.Equal(t, counts, pg.hasMore)
	}
}

// TestPageNarrow: a result with more readable hits than a cursor reaches
// says to narrow the query: a count of the backend's for the caller
// beyond its hits.
func TestPageNarrow(t *testing.T) {
	allow := func(context.Context, searchfetch.Access) error { return nil }
	tests := []struct {
		name   string
		result searchfetch.SearchResult
	}{
		{"counted for the caller", searchfetch.SearchResult{Hits: numbered(3, "c1"), Total: 50, CountsForCaller: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools := searchfetch.New(&recorder{result: tt.result}, &searchfetch.Options{Authorize: allow, Preview: mcpid.PreviewOptions{MaxHits: 100}})
			p := searchPage(t, as("ana"), tools, "q", "")
			assert.Empty(t, p.cursor)
			assert.True(t, strings.HasSuffix(p.text, "\nMore hits may exist than pages reach: call search with a narrower query."), p.text)
		})
	}
}

// TestPageShowingNone: a server whose pages show no hit (MaxHits < 0)
// gives no cursor, which would name the same page again.
func TestPageShowingNone(t *testing.T) {
	tools := searchfetch.New(&recorder{result: searchfetch.SearchResult{Hits: numbered(3, "c1")}},
		&searchfetch.Options{Preview: mcpid.PreviewOptions{MaxHits: -1}})
	p := searchPage(t, context.Background(), tools, "q", "")
	assert.Empty(t, p.ids)
	assert.Empty(t, p.cursor)
	assert.Equal(t, 3, p.total)
}

// TestPagerReachesEveryReadableHit: over random hit lists that a Pager
// returns in random page sizes, counted for the caller, paging shows
// every readable, fetchable hit of each backend page once, in order (an
// id may come again on a later backend page).
func TestPagerReachesEveryReadableHit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := &grants{byUser: map[string][]string{"ana": {"c0", "c1", ""}}}
	for round := range 100 {
		var hits []mcpid.Hit
		for range r.IntN(50) {
			h := mcpid.Hit{ID: "s:" + strconv.Itoa(r.IntN(20)), ConnectionID: "c" + strconv.Itoa(r.IntN(3)), Title: strings.Repeat("t", r.IntN(100))}
			if r.IntN(8) == 0 {
				h.ID = ""
			}
			hits = append(hits, h)
		}
		size := 1 + r.IntN(15)
		var want []string
		for lo := 0; lo < len(hits); lo += size {
			seen := map[string]bool{}
			for _, h := range hits[lo:min(lo+size, len(hits))] {
				id, _ := mcpid.SelfContainedID(h.ID, h.ConnectionID)
				if h.ConnectionID == "c2" || h.ID == "" || seen[id] {
					continue
				}
				seen[id] = true
				want = append(want, id)
			}
		}
		t.Run(strconv.Itoa(round), func(t *testing.T) {
			p := &pager{hits: hits, size: size, counts: true}
			tools := searchfetch.New(p, &searchfetch.Options{Authorize: g.authorize,
				Preview: mcpid.PreviewOptions{Budget: 400 + r.IntN(1500), MaxHits: 1 + r.IntN(6)}})
			var shown []string
			cursor := ""
			for n := 0; ; n++ {
				require.LessOrEqual(t, n, 2*len(hits)+1, "no progress")
				pg := searchPage(t, as("ana"), tools, "q", cursor)
				shown = append(shown, pg.ids...)
				if pg.cursor == "" {
					break
				}
				cursor = pg.cursor
			}
			assert.Equal(t, want, shown)
		})
	}
}
