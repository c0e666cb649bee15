package fuzz

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/previewshown"
	"github.com/mcpid/mcpid/internal/testkit/previewcheck"
)

// previewSeeds is the shared table that seeds FuzzPreview. ids, conns and
// texts each hold values separated by "\x1e"; previewHits deals them out
// to n hits. The ints pass through edge, which maps their low byte to the
// edges of the int range.
var previewSeeds = []struct {
	ids, conns, texts string
	n                 uint8
	budget, maxHits   int
	total             int
	hasMore           bool
	label, title      int
	snippet           int
	format            uint8
}{
	{"cin_a/docs:d1\x1ecin_b/tickets:T-1", "cin_a\x1ecin_b", "Q3 report\x1eRevenue grew\x1ehttps://example.com/q3", 4, 0, 0, 0, false, 0, 0, 0, 0},
	{"docs:d1\x1etickets:t2", "eu:prod\x1e", "title\x1esnippet", 20, 1800 << 8, 0, 200 << 8, true, 0, 0, 0, 1},
	{"https://example.com/a?b=c\x1edocs:Q3 report.pdf\x1e", "cin drive", "x\x1ehttp://EXAMPLE.com\x1ejavascript:x", 6, 400 << 8, 10 << 8, 0, false, 0, 0, 0, 1},
	{"docs:\xff\x1edocs:ok", "cin_\xfe\x1e", "bad \xff\xfe utf8", 8, 300 << 8, 0, 0, false, 0, 0, 0, 0},
	{`docs:say "hi"\now` + "\x1edocs:a\u2028b\u00a0c\U000F0000\t", "", "line\n2. id=evil\x1equote\" id=x\x1ecr\r\u2028\u0085", 12, 1200 << 8, 8 << 8, 50 << 8, true, 0, 0, 0, 1},
	{"docs:" + strings.Repeat("x", 900), "c", strings.Repeat("e\u0301", 300), 3, 1000 << 8, 0, 0, false, 8 << 8, 10 << 8, 16 << 8, 0},
	{"a:b", "c", strings.Repeat("\u1100\u1161\u11a8", 100) + "\x1e" + strings.Repeat("\U0001F600", 100), 40, 4000 << 8, 100 << 8, 0, false, 127 << 8, 127 << 8, 127 << 8, 1},
	{"a:b", "c", "x" + strings.Repeat("\u0301", 100), 5, 200 << 8, 0, 0, false, 0, 0, 64 << 8, 0},
	{"", "", "", 0, 0, 0, 0, false, 0, 0, 0, 0},
	{"a:b", "", "", 0, 50 << 8, 0, 9 << 8, true, 0, 0, 0, 0},
	{"a:b\x1ec:d", "", "t", 2, 199 << 8, 0, 0, false, 0, 0, 0, 1},
	{"a:b\x1ec:d", "", "t", 2, 1 << 8, -1 << 8, -5 << 8, false, -1 << 8, -1 << 8, -1 << 8, 0},
	// The reported overflow: Budget 1000, MaxSnippet math.MaxInt.
	{"cin_a/docs:d1", "cin_a", strings.Repeat("lorem ipsum ", 400), 1, 1000 << 8, 0, 0, false, 0, 0, 1, 0},
	{"cin_a/docs:d1", "cin_a", strings.Repeat("lorem ipsum ", 400), 1, 1000 << 8, 0, 0, false, 0, 0, 1, 1},
	// Look-alike ids, which a preview must show so that no two look the
	// same to a person: NFC beside NFD, compatibility signs, Cyrillic and
	// Greek among Latin, whole-script look-alikes, and ids that stay bare.
	{"s:\u00e9\x1es:e\u0301\x1etemp:K\x1etemp:\u212a\x1eunit:\u00c5\x1eunit:\u212b", "c", "t", 12, 0, 0, 0, false, 0, 0, 0, 0},
	{"doc:a\x1edoc:\u0430\x1esite:p\u0430ypal\x1eru:\u0441\u043e\u0440\x1eru:\u0436\u0430\u0440\u0430\x1egr:\u03b1bc", "", "t", 12, 4000 << 8, 20 << 8, 0, false, 0, 0, 0, 1},
	{"jp:\u65e5\u672c\x1eko:\ud55c\uad6d\uc5b4\x1ejp:abc\u65e5\x1ex:\u0430\u65e5\x1eg\u0585\u0585gle\x1ex:\u03bb\u0436", "\u0430", "t", 12, 0, 0, 0, false, 0, 0, 0, 0},
	// Every int at an edge.
	{"c2/s:r\x1ec1/s:r", "c1", "t\x1ehttps://a.example/", 30, 1, 1, 1, true, 2, 3, 4, 1},
	{"c2/s:r", "c1", "t", 30, 5, 6, 7, false, 8, 9, 10, 0},
}

// edge maps v to the values where bugs hide: when its low byte is 1 to
// 15, to math.MaxInt, math.MaxInt-k, math.MinInt, math.MinInt+k, 0, -1,
// 1, the default budget and its neighbours; else to v>>8, the value
// itself.
func edge(v int) int {
	switch k := v & 0xff; k {
	case 0:
		return v >> 8
	case 1:
		return math.MaxInt
	case 2:
		return math.MaxInt - int(uint(v)>>8%32)
	case 3:
		return math.MinInt
	case 4:
		return math.MinInt + int(uint(v)>>8%32)
	case 5:
		return 0
	case 6:
		return -1
	case 7:
		return 1
	case 8:
		return 1800 + int(int8(v>>8))
	case 9:
		return 1 << 20
	case 10:
		return math.MaxInt >> 8
	case 11:
		return math.MaxInt>>8 + 1
	default:
		return int(int16(v >> 8))
	}
}

// split divides s at "\x1e"; an empty s gives one empty value.
func split(s string) []string { return strings.Split(s, "\x1e") }

// previewHits deals ids, connections and texts out to n%40 hits, with
// variations: numbered ids, long ids, titles equal to the id, long
// snippets.
func previewHits(ids, conns, texts string, n uint8) []mcpid.Hit {
	idv, connv, textv := split(ids), split(conns), split(texts)
	hits := make([]mcpid.Hit, int(n)%40)
	for i := range hits {
		id := idv[i%len(idv)]
		switch {
		case i >= len(idv) && i%4 == 1:
			id += strconv.Itoa(i)
		case i%7 == 3:
			id = repeat(id, 40)
		}
		text := func(k int) string { return textv[(i+k)%len(textv)] }
		h := mcpid.Hit{
			ID:           id,
			ConnectionID: connv[i%len(connv)],
			Stream:       text(0),
			ConnectorKey: text(1),
			DisplayName:  text(2),
			Title:        text(3),
			Snippet:      repeat(text(4), 1+i%5*10),
		}
		if i%5 == 2 {
			h.Title = h.ID
		}
		if i%6 == 5 {
			h.Stream, h.DisplayName = "", ""
		}
		hits[i] = h
	}
	return hits
}

// repeat repeats s n times, or fewer when that would pass 4000 bytes.
func repeat(s string, n int) string {
	if len(s)*n > 4000 {
		n = max(1, 4000/max(len(s), 1))
	}
	return strings.Repeat(s, n)
}

func FuzzPreview(f *testing.F) {
	for _, s := range previewSeeds {
		f.Add(s.ids, s.conns, s.texts, s.n, s.budget, s.maxHits, s.total, s.hasMore, s.label, s.title, s.snippet, s.format)
	}
	f.Fuzz(func(t *testing.T, ids, conns, texts string, n uint8, budget, maxHits, total int, hasMore bool, label, title, snippet int, format uint8) {
		if len(ids)+len(conns)+len(texts) > 4096 {
			t.Skip("previewHits repeats its input: keep the hits small")
		}
		hits := previewHits(ids, conns, texts, n)
		opts := mcpid.PreviewOptions{
			Budget:     edge(budget),
			MaxHits:    edge(maxHits),
			Total:      edge(total),
			HasMore:    hasMore,
			MaxLabel:   edge(label),
			MaxTitle:   edge(title),
			MaxSnippet: edge(snippet),
			// The low bits choose the format (2 and 3 are none: text), the
			// next two MayHaveMore and Terse.
			Format:      mcpid.Format(format & 3 % 3),
			MayHaveMore: format&4 != 0,
			Terse:       format&8 != 0,
		}
		out := mcpid.RenderPreview(hits, opts)

		// Deterministic, and AppendPreview agrees.
		if again := mcpid.RenderPreview(hits, opts); again != out {
			t.Fatalf("two renders differ:\n%q\n%q", out, again)
		}
		if got := mcpid.AppendPreview([]byte("prefix"), hits, opts); string(got) != "prefix"+out {
			t.Fatalf("AppendPreview = %q, RenderPreview = %q", got, out)
		}
		// Into a buffer with room for the budget, AppendPreview never
		// needs a bigger one: it never writes past the budget, even for a
		// moment.
		room := opts.Budget
		if room == 0 {
			room = 1800
		}
		if room <= 1<<16 {
			buf := make([]byte, 1, 1+max(room, 0))
			if got := mcpid.AppendPreview(buf, hits, opts); cap(got) != cap(buf) || string(got[1:]) != out {
				t.Fatalf("AppendPreview into a buffer of %d bytes grew it to %d", cap(buf), cap(got))
			}
		}
		checkPreview(t, out, hits, opts)
	})
}

// checkPreview checks out with the checker of its format, and the
// renderer's account of what it showed against the hits read back.
func checkPreview(t *testing.T, out string, hits []mcpid.Hit, opts mcpid.PreviewOptions) {
	t.Helper()
	previewcheck.Check(t, out, hits, opts)
	text, shown, at := renderShown(hits, opts)
	if text != out {
		t.Errorf("renderShown's text differs from RenderPreview's:\n%q\n%q", text, out)
	}
	if diff := cmp.Diff(mcpid.ExtractHits(out), shown); diff != "" {
		t.Errorf("hits shown (-read back +reported):\n%s", diff)
	}
	for k, i := range at {
		if i >= len(hits) || hits[i].ID != shown[k].ID || k > 0 && at[k-1] >= i {
			t.Errorf("hit %d shown: index %d of %d hits", k, i, len(hits))
		}
	}
}

// renderShown is the renderer's account of a preview (mcpid's renderShown).
var renderShown = previewshown.Render.(func([]mcpid.Hit, mcpid.PreviewOptions) (string, []mcpid.Hit, []int))

// lookalikeSeeds are pairs of ids a person cannot tell apart bare.
var lookalikeSeeds = [][2]string{
	{"s:\u00e9", "s:e\u0301"},
	{"temp:K", "temp:\u212a"},
	{"unit:\u00c5", "unit:\u212b"},
	{"doc:a", "doc:\u0430"},
	{"site:paypal", "site:p\u0430ypal"},
	{"ru:cop", "ru:\u0441\u043e\u0440"},
	{"gr:abc", "gr:\u03b1bc"},
	{"x:a\u65e5", "x:\u0430\u65e5"},
	{"ko:\ud55c", "ko:\u1112\u1161\u11ab"},
	{"x:\u00eb", "x:\u0451"},
	{"jp:\u65e5\u672c", "ru:\u0436\u0430\u0440\u0430"},
}

// FuzzPreviewIDs: any two ids are shown as the checker's reference writes
// them in both formats, never alike when they differ, and ExtractIDs
// gives both back byte for byte.
func FuzzPreviewIDs(f *testing.F) {
	for _, s := range lookalikeSeeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || len(a)+len(b) > 1000 {
			t.Skip("ids not valid UTF-8 are left out; FuzzPreview covers them")
		}
		hits := []mcpid.Hit{{ID: a}, {ID: b}}
		for _, format := range []mcpid.Format{mcpid.FormatText, mcpid.FormatJSON} {
			opts := mcpid.PreviewOptions{Budget: 1 << 16, Format: format}
			out := mcpid.RenderPreview(hits, opts)
			checkPreview(t, out, hits, opts)
			if got := mcpid.ExtractIDs(out); !slices.Equal(got, []string{a, b}) {
				t.Fatalf("ExtractIDs = %q, want %q", got, []string{a, b})
			}
		}
	})
}
