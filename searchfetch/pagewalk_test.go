package searchfetch_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// world is one random search: the hits a backend returns, how it pages
// them, and the options of the tools.
type world struct {
	hits []mcpid.Hit
	// size is the backend's page size (0: one answer), pad the length of
	// its cursors.
	size, pad int
	// counts sets CountsForCaller; total gives the backend's Total of the
	// whole result: the hits the caller may read when they count for
	// the caller, else every hit.
	counts, total bool
	// authorize sets an authorizer, which denies c3 and c4.
	authorize bool
	opts      searchfetch.Options
}

// deniedConn reports whether the walk's caller may not read conn.
func deniedConn(conn string) bool { return conn == "c3" || conn == "c4" }

// walkConns are the connections of a world's hits: "my drive" is shown
// in a quoted id.
var walkConns = []string{"c0", "c1", "c2", "c3", "c4", "my drive", ""}

// newWorld returns a random world: up to 40 hits of 7 connections, with
// denied connections, duplicate ids, unfetchable hits, titles and
// snippets of every length, at a budget from MinBudget to the default, or
// at the default with ids of about 1,500 bytes; the backend answers at
// once or pages, counts for the caller or not, gives a Total or not. Every
// id and backend cursor leaves a page room for one hit and the line that
// gives a cursor, so paging reaches every readable hit.
func newWorld(r *rand.Rand, sealer *mcpid.Sealer) world {
	var w world
	budget, long := searchfetch.MinBudget+r.IntN(mcpid.DefaultBudget-searchfetch.MinBudget+1), r.IntN(5) == 0
	room := max(0, (budget-200)/2) // for a long id, and again for a backend cursor
	if long {
		budget, room = mcpid.DefaultBudget, 64
	}
	// Below 160 bytes a page has room for a short id and a cursor, not
	// for a sealed or quoted one.
	small := budget < 160
	conns := walkConns
	if small {
		conns = slices.DeleteFunc(slices.Clone(conns), func(c string) bool { return c == "my drive" })
	}
	if r.IntN(2) == 0 {
		w.size, w.pad = 1+r.IntN(15), 1+r.IntN(max(1, min(256, room)))
	}
	w.counts, w.total, w.authorize = r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(4) != 0
	for range r.IntN(41) {
		h := mcpid.Hit{ID: "s:r" + strconv.Itoa(r.IntN(30)), ConnectionID: conns[r.IntN(len(conns))],
			Title: strings.Repeat("t", r.IntN(300)), Snippet: strings.Repeat("s", r.IntN(200))}
		switch k := r.IntN(12); {
		case k == 0:
			h.ID = "" // unfetchable
		case k == 1 && h.ConnectionID == "":
			h.ID = "not a handle" // unfetchable without a connection
		case k == 2 && long:
			h.ID = "s:" + strings.Repeat("x", 1400+r.IntN(100)) + strconv.Itoa(r.IntN(3))
		case k == 2:
			h.ID = "s:" + strings.Repeat("x", 1+r.IntN(room+1))
		}
		w.hits = append(w.hits, h)
	}
	structured := []searchfetch.Structured{searchfetch.StructuredShown, searchfetch.StructuredAll, searchfetch.StructuredNone}
	w.opts = searchfetch.Options{Structured: structured[r.IntN(3)], Preview: mcpid.PreviewOptions{Budget: budget, MaxHits: 1 + r.IntN(10)}}
	if r.IntN(2) == 0 && !small {
		w.opts.Sealer = sealer
	}
	if w.authorize {
		w.opts.Authorize = func(_ context.Context, a searchfetch.Access) error {
			if deniedConn(a.ConnectionID) {
				return errors.New("denied")
			}
			return nil
		}
	}
	// A search whose only backend page has readable hits and none to show
	// fails: give it one.
	if w.pageSize() >= len(w.hits) && len(w.readable()) > 0 {
		w.hits = append(w.hits, mcpid.Hit{ID: "s:ok", ConnectionID: "c0"})
	}
	return w
}

// pageSize returns the hits of a backend page.
func (w *world) pageSize() int {
	if w.size == 0 {
		return max(len(w.hits), 1)
	}
	return w.size
}

// readable returns the hits the caller may read.
func (w *world) readable() []mcpid.Hit {
	if !w.authorize {
		return w.hits
	}
	var out []mcpid.Hit
	for _, h := range w.hits {
		if !deniedConn(h.ConnectionID) {
			out = append(out, h)
		}
	}
	return out
}

// want returns the ids paging shows, in order: the readable, fetchable
// hits, each id once per backend page.
func (w *world) want() []string {
	var want []string
	for lo := 0; lo < len(w.hits); lo += w.pageSize() {
		seen := map[string]bool{}
		for _, h := range w.hits[lo:min(lo+w.pageSize(), len(w.hits))] {
			if w.authorize && deniedConn(h.ConnectionID) {
				continue
			}
			id, ok := mcpid.SelfContainedID(h.ID, h.ConnectionID)
			if h.ID == "" || !ok && h.ConnectionID != "" || h.ConnectionID == "" && h.ID == "not a handle" || seen[id] {
				continue
			}
			seen[id] = true
			want = append(want, id)
		}
	}
	return want
}

// Search answers as the world's backend: its first page for "", the page
// after each cursor it gave.
func (w *world) Search(_ context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	n := 0
	if q.Cursor != "" {
		var err error
		if n, err = strconv.Atoi(strings.TrimLeft(q.Cursor, "x")); err != nil {
			return searchfetch.SearchResult{}, mcpid.NewError(searchfetch.CodeInvalidArguments, "bad cursor", "")
		}
	}
	lo, hi := min(n*w.pageSize(), len(w.hits)), min((n+1)*w.pageSize(), len(w.hits))
	res := searchfetch.SearchResult{Hits: w.hits[lo:hi], CountsForCaller: w.counts}
	if w.size > 0 && hi < len(w.hits) {
		res.NextCursor = padCursor(n+1, w.pad)
	}
	if w.total {
		res.Total = len(w.hits)
		if w.counts {
			res.Total = len(w.readable())
		}
	}
	return res, nil
}

func (w *world) Fetch(context.Context, searchfetch.FetchRequest) (searchfetch.Document, error) {
	return searchfetch.Document{}, nil
}

// walkHeader reads a page's first line: the hits shown, of how many, and
// whether it says more exist or may exist.
var walkHeader = regexp.MustCompile(`^(?:Showing (\d+) of (more than )?(\d+)( or more)? hits?\.|(No hits\.)|(No hits counted; more may exist\.))(?:\n|$)`)

// walkStats counts what the walks found wrong.
type walkStats struct {
	walks, pages int
	// deadEnds are pages that end with neither the cursor line nor the
	// advice to narrow the query while readable hits remain;
	// falseComplete pages that say "Showing N of N" (or No hits.) or end
	// with no way on while readable hits remain.
	deadEnds, falseComplete int
}

// TestPagingReachesEveryReadableHit walks random worlds ([newWorld]) page
// by page as a model would: every page fits its budget in every channel,
// shows the readable hits that follow those shown before, each exactly
// once (per backend page), in order, and ends with a way on while the
// caller has readable hits left: no dead end, and no page that says
// "Showing N of N" or ends without a way on while hits remain. A header
// never counts more readable hits than remain, and a backend's Total
// counted for the caller is shown as it is: the readable hits that
// remain. The cursors of one answer are the same whatever hits of
// connections the caller may not read it holds.
func TestPagingReachesEveryReadableHit(t *testing.T) {
	walks := 3000
	if testing.Short() || raceEnabled { // the walks run on one goroutine: the race detector has little to find
		walks = 300
	}
	r := rand.New(rand.NewPCG(1, 2))
	s := sealer(t)
	var st walkStats
	for range walks {
		w := newWorld(r, s)
		cursors := walkPages(t, &w, &st)
		if w.size == 0 && w.authorize {
			alone := world{hits: w.readable(), counts: w.counts, total: w.total, authorize: true, opts: w.opts}
			assert.Equal(t, cursors, walkPages(t, &alone, &walkStats{}), "the cursors without the hits ana may not read")
		}
		if t.Failed() {
			t.Logf("world: %d hits, page size %d, pad %d, counts %v, total %v, authorize %v, budget %d, MaxHits %d, %s",
				len(w.hits), w.size, w.pad, w.counts, w.total, w.authorize, w.opts.Preview.Budget, w.opts.Preview.MaxHits, w.opts.Structured)
			return
		}
	}
	assert.Equal(t, 0, st.deadEnds, "dead ends")
	assert.Equal(t, 0, st.falseComplete, "pages that say no more while readable hits remain")
	t.Logf("%d walks, %d pages: %d dead ends, %d false completeness", st.walks, st.pages, st.deadEnds, st.falseComplete)
}

// walkPages pages through w as a model would, checks each page, adds to
// st, and returns the cursors the pages gave.
func walkPages(t *testing.T, w *world, st *walkStats) (cursors []string) {
	t.Helper()
	tools := searchfetch.New(w, &w.opts)
	want, readable := w.want(), len(w.readable())
	st.walks++
	if debugWalk {
		t.Logf("world: %d hits, page size %d, pad %d, counts %v, total %v, authorize %v, budget %d, MaxHits %d, %s, sealer %v",
			len(w.hits), w.size, w.pad, w.counts, w.total, w.authorize, w.opts.Preview.Budget, w.opts.Preview.MaxHits, w.opts.Structured, w.opts.Sealer != nil)
		for i, h := range w.hits {
			t.Logf("hit %d: %q in %q, title %d, snippet %d", i, h.ID, h.ConnectionID, len(h.Title), len(h.Snippet))
		}
	}
	var shown []string
	cursor := ""
	for n := 0; ; n++ {
		require.LessOrEqual(t, n, len(w.hits)+1, "no progress")
		st.pages++
		p := searchPage(t, as("ana"), tools, "q", cursor)
		if debugWalk {
			t.Logf("page %d:\n%s", n, p.text)
		}
		require.LessOrEqual(t, len(p.text), w.opts.Preview.Budget)
		if w.opts.Structured == searchfetch.StructuredShown {
			require.LessOrEqual(t, p.structured, w.opts.Preview.Budget)
		}
		for _, id := range p.ids {
			if w.opts.Sealer != nil {
				opened, err := w.opts.Sealer.Open(id)
				require.NoError(t, err)
				id = opened
			}
			shown = append(shown, id)
		}
		require.LessOrEqual(t, len(shown), len(want), "more hits than to show:\n%s", p.text)
		if len(shown) > 0 {
			require.Equal(t, want[:len(shown)], shown, "the hits shown so far:\n%s", p.text)
		}
		left := len(want) - len(shown)

		m := walkHeader.FindStringSubmatch(p.text)
		require.NotNil(t, m, p.text)
		total, _ := strconv.Atoi(m[3])
		complete := m[5] != "" || m[1] != "" && m[2] == "" && m[4] == "" && total == len(p.ids)
		wayOn := p.cursor != "" || strings.HasSuffix(p.text, "\n"+narrowAdvice)
		if left > 0 && !wayOn {
			st.deadEnds++
		}
		if left > 0 && (complete || !wayOn) {
			st.falseComplete++
		}
		// The readable hits before this page: the cursor's counts.
		before := 0
		if cursor != "" {
			before = cursorPassed(t, cursor)
		}
		assert.LessOrEqual(t, total, readable-before, "no more counted than remain:\n%s", p.text)
		if w.total && (w.counts || !w.authorize) && m[1] != "" {
			assert.Equal(t, readable-before, total, "a Total counted for the caller, less what pages passed:\n%s", p.text)
			assert.Empty(t, m[2]+m[4], "a known total is shown as it is:\n%s", p.text)
		}
		if p.cursor == "" {
			assert.Len(t, shown, len(want), "every readable hit, once:\n%s", p.text)
			return cursors
		}
		cursors = append(cursors, p.cursor)
		cursor = p.cursor
	}
}

// cursorPassed returns the readable hits the cursor c passed: its count,
// plus the readable hits of the backend pages before its own.
func cursorPassed(t *testing.T, c string) int {
	t.Helper()
	payload, _, _ := strings.Cut(c[:strings.LastIndexByte(c, '~')], ".")
	passed := 0
	for k, num := range strings.Split(payload, "-") {
		n, err := strconv.Atoi(num)
		require.NoError(t, err, c)
		if k != 1 { // passed and earlier; pages between them
			passed += n
		}
	}
	return passed
}

var debugWalk = false
