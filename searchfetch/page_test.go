package searchfetch_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
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

// pager is a backend that pages hits, per pages of size, whose cursors
// are the page numbers, or next when set; it gives total as its Total.
type pager struct {
	hits    []mcpid.Hit
	size    int
	next    string
	counts  bool
	total   int
	queries []searchfetch.Query
}

func (p *pager) Search(_ context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	p.queries = append(p.queries, q)
	n := 0
	if q.Cursor != "" {
		var err error
		if n, err = strconv.Atoi(strings.TrimPrefix(q.Cursor, "p")); err != nil {
			return searchfetch.SearchResult{}, mcpid.NewError(searchfetch.CodeInvalidArguments, "bad cursor", "")
		}
	}
	lo, hi := min(n*p.size, len(p.hits)), min((n+1)*p.size, len(p.hits))
	res := searchfetch.SearchResult{Hits: p.hits[lo:hi], CountsForCaller: p.counts, Total: p.total}
	if hi < len(p.hits) {
		res.NextCursor = "p" + strconv.Itoa(n+1)
		if p.next != "" {
			res.NextCursor = p.next
		}
	}
	return res, nil
}

func (p *pager) Fetch(context.Context, searchfetch.FetchRequest) (searchfetch.Document, error) {
	return searchfetch.Document{}, nil
}

// cursors returns the backend cursors p was asked for, in order.
func (p *pager) cursors() []string {
	var out []string
	for _, q := range p.queries {
		out = append(out, q.Cursor)
	}
	return out
}

// walk pages through tools' search for "q" as ctx's caller until a page
// gives no cursor, and returns the pages.
func walk(t *testing.T, ctx context.Context, tools *searchfetch.Tools, most int) []page {
	t.Helper()
	var pages []page
	cursor := ""
	for {
		require.Less(t, len(pages), most, "no end")
		p := searchPage(t, ctx, tools, "q", cursor)
		pages = append(pages, p)
		if p.cursor == "" {
			return pages
		}
		cursor = p.cursor
	}
}

// shownBy returns the ids pages show, in order.
func shownBy(pages []page) []string {
	var ids []string
	for _, p := range pages {
		ids = append(ids, p.ids...)
	}
	return ids
}

// TestPager: a backend that pages itself is asked for its first page
// with "", then for the page after each once its readable hits are
// passed, always for the same query and page Limit, and every hit is
// shown once. With an authorizer its cursor is followed whether or not
// it counts for the caller: a position, which the pages show without a
// count ("or more"). A backend cursor the tools cannot carry ends
// paging, and the result says to narrow the query.
func TestPager(t *testing.T) {
	hits := numbered(25, "c1")
	var want []string
	for _, h := range hits {
		want = append(want, "c1/"+h.ID)
	}
	p := &pager{hits: hits, size: 10}
	tools := searchfetch.New(p, &searchfetch.Options{Preview: mcpid.PreviewOptions{MaxHits: 4}})
	assert.Equal(t, want, shownBy(walk(t, context.Background(), tools, 25)))
	assert.Equal(t, []string{"", "", "", "p1", "p1", "p1", "p2", "p2"}, p.cursors())
	for _, q := range p.queries {
		assert.Equal(t, searchfetch.Query{Text: "q", Cursor: q.Cursor, Limit: 4}, q)
	}

	long := &pager{hits: hits, size: 4, next: strings.Repeat("x", 257)}
	tools = searchfetch.New(long, &searchfetch.Options{Preview: mcpid.PreviewOptions{MaxHits: 4}})
	pg := searchPage(t, context.Background(), tools, "q", "")
	assert.Empty(t, pg.cursor)
	assert.True(t, pg.hasMore)
	assert.True(t, strings.HasSuffix(pg.text, "\n"+narrowAdvice), pg.text)

	// Ana may read c1 and not c2: the backend's pages hold both.
	mixed := append(numbered(5, "c2"), hits...)
	g := &grants{byUser: map[string][]string{"ana": {"c1"}}}
	for _, counts := range []bool{false, true} {
		t.Run(fmt.Sprintf("counts=%v", counts), func(t *testing.T) {
			p := &pager{hits: mixed, size: 4, counts: counts}
			tools := searchfetch.New(p, &searchfetch.Options{Authorize: g.authorize, Preview: mcpid.PreviewOptions{MaxHits: 4}})
			pages := walk(t, as("ana"), tools, 30)
			assert.Equal(t, want, shownBy(pages))
			assert.Equal(t, "No hits counted; more may exist.\nFor more hits, call search with the same query and cursor=\""+pages[0].cursor+"\".", pages[0].text)
			for _, pg := range pages[1 : len(pages)-1] {
				assert.True(t, pg.hasMore)
				assert.Contains(t, pg.text, " or more hits.\n", "no page says it shows all:\n%s", pg.text)
			}
			assert.Equal(t, "Showing 2 of 2 hits.", strings.SplitN(pages[len(pages)-1].text, "\n", 2)[0])
		})
	}
}

// TestPagerTotal: a backend's Total counts the whole result, every page:
// each page's header counts the hits that remain, as they are (never
// "more than" them), down to the last, whatever the tools' pages and the
// backend's.
func TestPagerTotal(t *testing.T) {
	const n = 71
	hits := numbered(n, "c1")
	g := &grants{byUser: map[string][]string{"ana": {"c1"}}}
	for _, authorize := range []bool{false, true} {
		t.Run(fmt.Sprintf("authorize=%v", authorize), func(t *testing.T) {
			opts := &searchfetch.Options{Preview: mcpid.PreviewOptions{MaxHits: 8}}
			if authorize {
				opts.Authorize = g.authorize
			}
			tools := searchfetch.New(&pager{hits: hits, size: 10, counts: true, total: n}, opts)
			pages := walk(t, as("ana"), tools, n)
			shown := 0
			for _, p := range pages {
				header := fmt.Sprintf("Showing %d of %d hits.", len(p.ids), n-shown)
				if n-shown == 1 {
					header = "Showing 1 of 1 hit."
				}
				assert.Equal(t, header, strings.SplitN(p.text, "\n", 2)[0])
				assert.Equal(t, n-shown, p.total)
				assert.False(t, p.hasMore)
				shown += len(p.ids)
			}
			assert.Equal(t, n, shown)
			assert.Equal(t, "Showing 1 of 1 hit.\n1. id=c1/s:70 title=\"Hit 70\"\nTo fetch, pass an id exactly as shown; pass connection_id only where its line shows one.", pages[len(pages)-1].text)
		})
	}
}

// loops is a backend whose every page holds one hit and names, as its
// next, the page of a fixed cursor: itself for "A", or "B" for "A" and
// "A" for "B".
type loops struct {
	self  bool
	calls int
}

func (l *loops) Search(_ context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	l.calls++
	next := "A"
	if !l.self && q.Cursor == "A" {
		next = "B"
	}
	return searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "s:1", ConnectionID: "c1"}}, NextCursor: next}, nil
}

func (l *loops) Fetch(context.Context, searchfetch.FetchRequest) (searchfetch.Document, error) {
	return searchfetch.Document{}, nil
}

// TestPagerLoops: a backend cursor that names the page it came with ends
// paging, logged at Warn; one that loops through other pages (A, B, A,
// …) ends it past 1,000 backend pages. Either way the last page says to
// narrow the query: a model is never paged forever.
func TestPagerLoops(t *testing.T) {
	tests := []struct {
		name  string
		self  bool
		pages int // the backend pages a model reaches
		warn  string
	}{
		{"its own page", true, 2, "searchfetch: backend cursor names the page it came with; paging ends"},
		{"A, B, A", false, 1001, "searchfetch: a search reached the most backend pages it follows; paging ends"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log bytes.Buffer
			l := &loops{self: tt.self}
			tools := searchfetch.New(l, &searchfetch.Options{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn}))})
			pages := walk(t, context.Background(), tools, 2000)
			assert.Len(t, pages, tt.pages)
			assert.Equal(t, tt.pages, l.calls)
			last := pages[len(pages)-1]
			assert.True(t, strings.HasSuffix(last.text, "\n"+narrowAdvice), last.text)
			assert.Equal(t, 1, strings.Count(log.String(), "level=WARN"), log.String())
			assert.Contains(t, log.String(), tt.warn)
		})
	}
}

// TestPageNoDeadEnd: a page whose caller has readable hits left ends with
// a way on whenever its first hit and the line fit the budget: it gives
// up its other hits, then the fetch instruction and the count of hits
// not shown. Twelve hits with quoted ids at a budget of 303 bytes, and
// ids of 1,500 bytes at the default budget, are each shown once.
func TestPageNoDeadEnd(t *testing.T) {
	drive := make([]mcpid.Hit, 12)
	for i := range drive {
		drive[i] = mcpid.Hit{ID: "s:r" + strconv.Itoa(i), ConnectionID: "my drive", Title: strings.Repeat("t", 80)}
	}
	long := numbered(5, "c1")
	for i := range long {
		long[i].ID = "s:" + strings.Repeat("x", 1500) + strconv.Itoa(i)
	}
	tests := []struct {
		name   string
		hits   []mcpid.Hit
		budget int
		sealed bool
	}{
		{"quoted ids at 303 bytes", drive, 303, true},
		{"quoted ids at 128 bytes", drive, 128, false},
		{"ids of 1,500 bytes at the default budget", long, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &searchfetch.Options{Preview: mcpid.PreviewOptions{Budget: tt.budget}}
			if tt.sealed {
				opts.Sealer = sealer(t)
			}
			tools := searchfetch.New(&recorder{result: searchfetch.SearchResult{Hits: tt.hits}}, opts)
			pages := walk(t, context.Background(), tools, len(tt.hits)+1)
			var want, shown []string
			for _, h := range tt.hits {
				id, _ := mcpid.SelfContainedID(h.ID, h.ConnectionID)
				want = append(want, id)
			}
			for _, id := range shownBy(pages) {
				if opts.Sealer != nil {
					var err error
					id, err = opts.Sealer.Open(id)
					require.NoError(t, err)
				}
				shown = append(shown, id)
			}
			assert.Equal(t, want, shown)
			budget := cmp.Or(tt.budget, mcpid.DefaultBudget)
			for _, p := range pages {
				assert.LessOrEqual(t, len(p.text), budget)
				assert.LessOrEqual(t, p.structured, budget)
			}
		})
	}
}

// TestPageNarrow: a result whose caller may have readable hits no cursor
// reaches says to narrow the query: a count of the backend's for the
// caller beyond its hits, with no page after them.
func TestPageNarrow(t *testing.T) {
	allow := func(context.Context, searchfetch.Access) error { return nil }
	result := searchfetch.SearchResult{Hits: numbered(3, "c1"), Total: 50, CountsForCaller: true}
	tools := searchfetch.New(&recorder{result: result}, &searchfetch.Options{Authorize: allow, Preview: mcpid.PreviewOptions{MaxHits: 100}})
	p := searchPage(t, as("ana"), tools, "q", "")
	assert.Empty(t, p.cursor)
	assert.True(t, strings.HasPrefix(p.text, "Showing 3 of 50 hits.\n"), p.text)
	assert.True(t, strings.HasSuffix(p.text, "\n"+narrowAdvice), p.text)
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

// TestPageAllocs: a default-mode page learns which hits it shows from the
// renderer, so its allocations are those of the renders and of the
// answer, never of reading each render's text back: a page of ten hits
// with 1 MiB fields, laid out in a few rounds, stays within the budget.
func TestPageAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("AllocsPerRun")
	}
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool, and so encoding/json, allocate at random")
	}
	const budget = 40 // allocations of a search that shows ten hits
	tools := searchfetch.New(hugeBackend(10), &searchfetch.Options{Inline: true})
	ctx := context.Background()
	args := json.RawMessage(`{"query":"q"}`)
	require.False(t, tools.Search(ctx, args).IsError)
	got := testing.AllocsPerRun(20, func() { tools.Search(ctx, args) })
	assert.LessOrEqual(t, got, float64(budget), "allocations of a search")
}
