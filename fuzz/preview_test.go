package fuzz

import (
	"encoding/json"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/weburl"
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
	// The reported overflow: Budget 1000, SnippetMax math.MaxInt.
	{"cin_a/docs:d1", "cin_a", strings.Repeat("lorem ipsum ", 400), 1, 1000 << 8, 0, 0, false, 0, 0, 1, 0},
	{"cin_a/docs:d1", "cin_a", strings.Repeat("lorem ipsum ", 400), 1, 1000 << 8, 0, 0, false, 0, 0, 1, 1},
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

var (
	previewHeader = regexp.MustCompile(`^Showing (\d+) of (more than )?(\d+) hits?\.$`)
	previewLine   = regexp.MustCompile(`^(\d+)\. id=`)
	previewFooter = regexp.MustCompile(`^(?:(\d+) hits? not shown|More than (\d+) hits not shown|More hits exist); (?:see|none of them in|\d+ of them in) structuredContent\.results\.$`)
)

const (
	fetchHint       = "To fetch, pass an id exactly as shown; pass connection_id only where its line shows one."
	fetchHintQuoted = "To fetch, pass an id exactly as shown (a quoted id is a JSON string: pass its decoded value); pass connection_id only where its line shows one."
)

// The free-text fields in the order a hit line shows them.
var previewFields = []string{"stream", "connector_key", "display_name", "title", "snippet"}

func fieldOf(h mcpid.Hit, f int) string {
	return [...]string{h.Stream, h.ConnectorKey, h.DisplayName, h.Title, h.Snippet}[f]
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
			LabelMax:   edge(label),
			TitleMax:   edge(title),
			SnippetMax: edge(snippet),
			Format:     mcpid.Format(format % 3), // 2 is not a format: text
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
		if opts.Format == mcpid.FormatJSON {
			checkFuzzJSON(t, out, hits, opts)
			return
		}
		checkFuzzPreview(t, out, hits, opts)
	})
}

// checkFuzzPreview parses a preview line by line and checks it against
// the hits and options it was rendered from.
func checkFuzzPreview(t *testing.T, out string, hits []mcpid.Hit, opts mcpid.PreviewOptions) {
	t.Helper()
	budget := opts.Budget
	if budget == 0 {
		budget = 1800
	}
	if len(out) > max(budget, 0) {
		t.Fatalf("%d bytes over a budget of %d:\n%s", len(out), budget, out)
	}
	if !utf8.ValidString(out) {
		t.Fatalf("not valid UTF-8: %q", out)
	}
	for _, r := range out {
		if r != '\n' && !unicode.IsPrint(r) {
			t.Fatalf("raw %U in %q", r, out)
		}
	}
	if out == "" {
		if budget >= 70 {
			t.Fatalf("empty preview within %d bytes", budget)
		}
		return
	}

	total := max(len(hits), opts.Total)
	maxHits := opts.MaxHits
	if maxHits == 0 {
		maxHits = 5
	}
	lines := strings.Split(out, "\n")

	// The header.
	stated := 0
	if total == 0 && !opts.HasMore {
		if out != "No hits." {
			t.Fatalf("want No hits., got %q", out)
		}
		return
	}
	m := previewHeader.FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("bad header %q", lines[0])
	}
	stated, _ = strconv.Atoi(m[1])
	if (m[2] != "") != opts.HasMore || m[3] != strconv.Itoa(total) || (total == 1 && !opts.HasMore) != strings.HasSuffix(lines[0], " hit.") {
		t.Fatalf("header %q for %d hits, more: %v", lines[0], total, opts.HasMore)
	}

	// The hit lines.
	var shown []string
	quoted := false
	last := 0
	i := 1
	for ; i < len(lines) && previewLine.MatchString(lines[i]); i++ {
		num, id, q := checkHitLine(t, lines[i], hits, opts)
		if num <= last || num > min(len(hits), maxHits) {
			t.Fatalf("hit number %d after %d, of %d hits, MaxHits %d", num, last, len(hits), maxHits)
		}
		last = num
		quoted = quoted || q
		shown = append(shown, id)
	}
	if len(shown) != stated {
		t.Fatalf("header states %d hits, %d lines:\n%s", stated, len(shown), out)
	}
	if got := mcpid.ExtractIDs(out); !slices.Equal(got, shown) {
		t.Fatalf("ExtractIDs = %q, shown %q", got, shown)
	}
	if len(shown) > 0 {
		if k := strings.Index(out, "id="); k >= 200 {
			t.Fatalf("first id= at %d", k)
		}
		want := fetchHint
		if quoted {
			want = fetchHintQuoted
		}
		if i >= len(lines) || lines[i] != want {
			t.Fatalf("want the fetch hint %q after the hits:\n%s", want, out)
		}
		i++
	}

	// The count of hits not shown: always with hits, when it fits
	// without.
	rest := total - len(shown)
	if i == len(lines) {
		if len(shown) > 0 && (rest > 0 || opts.HasMore) {
			t.Fatalf("%d hits not shown and not counted:\n%s", rest, out)
		}
		return
	}
	if i != len(lines)-1 {
		t.Fatalf("unexpected line %q:\n%s", lines[i], out)
	}
	var want string
	switch {
	case opts.HasMore && rest == 0:
		want = "More hits exist"
	case opts.HasMore:
		want = "More than " + strconv.Itoa(rest) + " hits not shown"
	case rest == 1:
		want = "1 hit not shown"
	case rest > 0:
		want = strconv.Itoa(rest) + " hits not shown"
	default:
		t.Fatalf("a count when every hit is shown: %q", lines[i])
	}
	// Of the hits not shown, those passed in are in the structured
	// results; those counted only by Total or HasMore are not.
	switch inResults := len(hits) - len(shown); {
	case inResults == rest && !opts.HasMore:
		want += "; see structuredContent.results."
	case inResults == 0:
		want += "; none of them in structuredContent.results."
	default:
		want += "; " + strconv.Itoa(inResults) + " of them in structuredContent.results."
	}
	if !previewFooter.MatchString(lines[i]) || lines[i] != want {
		t.Fatalf("footer %q, want %q", lines[i], want)
	}

	// Best effort: a small first hit always fits the default budget.
	if len(hits) == 0 || budget < 1800 || maxHits < 0 || len(shown) > 0 {
		return
	}
	if h := hits[0]; len(h.ID) < 64 && len(h.ConnectionID) < 64 && utf8.ValidString(h.ID) && utf8.ValidString(h.ConnectionID) {
		t.Fatalf("no hit shown in %d bytes:\n%s", budget, out)
	}
}

// checkHitLine checks one hit line and returns its number, its id and
// whether the id was quoted.
func checkHitLine(t *testing.T, line string, hits []mcpid.Hit, opts mcpid.PreviewOptions) (int, string, bool) {
	t.Helper()
	m := previewLine.FindStringSubmatch(line)
	num, err := strconv.Atoi(m[1])
	if err != nil || num < 1 || num > len(hits) {
		t.Fatalf("bad hit number in %q", line)
	}
	h := hits[num-1]
	rest := line[len(m[0]):]

	idText := rest
	id, q, rest := readValue(t, rest, line)
	checkIDEscapes(t, idText[:len(idText)-len(rest)], line)
	if id != h.ID || !utf8.ValidString(h.ID) {
		t.Fatalf("line %q shows id %q of hit %q", line, id, h.ID)
	}
	if q == bareOK(id) {
		t.Fatalf("id %q quoted: %v", id, q)
	}
	// connection_id is shown unless the id embeds this same connection.
	hd, err := mcpid.Parse(h.ID)
	wantConn := h.ConnectionID != "" && (err != nil || hd.ConnectionID() != h.ConnectionID)
	if conn, ok := strings.CutPrefix(rest, " connection_id="); ok {
		var c string
		var cq bool
		c, cq, rest = readValue(t, conn, line)
		checkIDEscapes(t, conn[:len(conn)-len(rest)], line)
		if !wantConn || c != h.ConnectionID || cq == bareOK(c) {
			t.Fatalf("line %q shows connection_id %q of hit %+q", line, c, h)
		}
	} else if wantConn {
		t.Fatalf("line %q lacks connection_id %q", line, h.ConnectionID)
	}

	caps := [...]int{opts.LabelMax, opts.LabelMax, opts.LabelMax, opts.TitleMax, opts.SnippetMax}
	next := 0
	for rest != "" {
		key, lit, ok := strings.Cut(strings.TrimPrefix(rest, " "), "=")
		f := slices.Index(previewFields, key)
		if !ok || !strings.HasPrefix(rest, " ") || f < next || !strings.HasPrefix(lit, `"`) {
			t.Fatalf("bad field at %q in %q", rest, line)
		}
		next = f + 1
		var v string
		v, _, rest = readValue(t, lit, line)
		size := len(lit) - len(rest)
		c := fieldCap(caps[f], f)
		if c < 0 || size > c {
			t.Fatalf("%s of %d bytes with cap %d in %q", key, size, caps[f], line)
		}
		text := fieldOf(h, f)
		if f == 3 && text == h.ID {
			t.Fatalf("title equal to the id shown in %q", line)
		}
		checkCut(t, v, text, line)
	}
	return num, id, q
}

// readValue reads a bare or quoted value at the start of s and returns it,
// whether it was quoted, and what follows it.
func readValue(t *testing.T, s, line string) (string, bool, string) {
	t.Helper()
	if !strings.HasPrefix(s, `"`) {
		end := strings.IndexByte(s, ' ')
		if end < 0 {
			end = len(s)
		}
		return s[:end], false, s[end:]
	}
	end := 1
	for end < len(s) && s[end] != '"' {
		if s[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(s) {
		t.Fatalf("unterminated literal in %q", line)
	}
	var v string
	if err := json.Unmarshal([]byte(s[:end+1]), &v); err != nil {
		t.Fatalf("literal %s in %q: %v", s[:end+1], line, err)
	}
	return v, true, s[end+1:]
}

// checkIDEscapes checks that a quoted id or connection id escapes only
// '"' and '\', and every other rune as \uXXXX.
func checkIDEscapes(t *testing.T, lit, line string) {
	t.Helper()
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		i++
		if c := lit[i]; c != '"' && c != '\\' && c != 'u' {
			t.Fatalf("id literal %s escapes %q in %q", lit, c, line)
		}
	}
}

// bareOK reports whether id may be shown bare.
func bareOK(id string) bool {
	if id == "" {
		return false
	}
	for _, r := range id {
		if !unicode.IsPrint(r) || r == ' ' || r == '"' || r == '\\' {
			return false
		}
	}
	return true
}

// checkCut checks that v shows text: whole, with each invalid byte
// replaced by U+FFFD, or cut at a normalization boundary and marked with
// "…".
func checkCut(t *testing.T, v, text, line string) {
	t.Helper()
	var want strings.Builder
	for i := 0; i < len(text) && want.Len() <= len(v); {
		r, size := utf8.DecodeRuneInString(text[i:])
		want.WriteRune(r)
		i += size
	}
	if v == want.String() {
		return
	}
	prefix, ok := strings.CutSuffix(v, "…")
	if !ok || prefix == "" || !strings.HasPrefix(want.String(), prefix) {
		t.Fatalf("value %q does not show %q in %q", v, text, line)
	}
	// The cut in the raw text, and the rune there.
	p := 0
	for shown := 0; shown < len(prefix); {
		r, size := utf8.DecodeRuneInString(text[p:])
		shown += utf8.RuneLen(r)
		p += size
	}
	if norm.NFC.PropertiesString(text[p:]).BoundaryBefore() {
		return
	}
	// Else only within a run of combining runes longer than norm keeps
	// together.
	k := 0
	for q := p; q > 0 && k <= 30; k++ {
		_, size := utf8.DecodeLastRuneInString(text[:q])
		q -= size
		if norm.NFC.PropertiesString(text[q:]).BoundaryBefore() {
			break
		}
	}
	if k <= 30 {
		t.Fatalf("cut at %d splits a combining sequence of %q in %q", p, text, line)
	}
}

// fieldCap returns the cap of field f of previewFields when its option is
// c: its default when c is 0.
func fieldCap(c, f int) int {
	if c == 0 {
		return [...]int{40, 40, 40, 100, 200}[f]
	}
	return c
}

// jsonResult is one result of the JSON form, with the raw literals of
// its title and text.
type jsonResult struct {
	keys                 []string
	id, title, url, text string
	rawTitle, rawText    string
}

// checkFuzzJSON checks a JSON preview against the hits and options it was
// rendered from: the budget, one valid object whose only key is results,
// results with the keys id, title, url and maybe text in that order, ids
// of hits in order, URLs whole, free text cut at boundaries within its
// cap, and ExtractIDs.
func checkFuzzJSON(t *testing.T, out string, hits []mcpid.Hit, opts mcpid.PreviewOptions) {
	t.Helper()
	budget := opts.Budget
	if budget == 0 {
		budget = 1800
	}
	if len(out) > max(budget, 0) {
		t.Fatalf("%d bytes over a budget of %d:\n%s", len(out), budget, out)
	}
	if out == "" {
		if budget >= len(`{"results":[]}`) {
			t.Fatalf("empty JSON preview within %d bytes", budget)
		}
		return
	}
	if !json.Valid([]byte(out)) || !utf8.ValidString(out) {
		t.Fatalf("not valid JSON: %q", out)
	}
	var typed struct {
		Results []struct {
			ID, Title, URL string
			Text           *string
		} `json:"results"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&typed); err != nil {
		t.Fatalf("decoding %s: %v", out, err)
	}
	results := readResults(t, out)
	if len(results) != len(typed.Results) {
		t.Fatalf("%d results, decoded %d", len(results), len(typed.Results))
	}
	maxHits := opts.MaxHits
	if maxHits == 0 {
		maxHits = 5
	}
	var ids []string
	last := -1
	for _, r := range results {
		if !slices.Equal(r.keys, []string{"id", "title", "url", "text"}[:len(r.keys)]) || len(r.keys) < 3 {
			t.Fatalf("keys %q in %s", r.keys, out)
		}
		i := slices.IndexFunc(hits[last+1:], func(h mcpid.Hit) bool { return h.ID == r.id })
		if i < 0 || last+1+i >= maxHits || !utf8.ValidString(r.id) {
			t.Fatalf("id %q is not that of a later hit among %d, MaxHits %d", r.id, len(hits), maxHits)
		}
		last += 1 + i
		h := hits[last]
		ids = append(ids, r.id)
		if r.url != "" && (r.url != h.URL || !weburl.Reference(r.url)) {
			t.Fatalf("url %q of hit URL %q", r.url, h.URL)
		}
		for _, v := range []struct {
			val, raw, text string
			c              int
		}{{r.title, r.rawTitle, h.Title, fieldCap(opts.TitleMax, 3)}, {r.text, r.rawText, h.Snippet, fieldCap(opts.SnippetMax, 4)}} {
			if v.val == "" {
				continue
			}
			if v.c < 0 || len(v.raw) > v.c {
				t.Fatalf("literal %s over its cap %d", v.raw, v.c)
			}
			checkCut(t, v.val, v.text, out)
		}
		if len(r.keys) == 4 && r.text == "" {
			t.Fatalf("empty text shown in %s", out)
		}
	}
	if got := mcpid.ExtractIDs(out); !slices.Equal(got, ids) {
		t.Fatalf("ExtractIDs = %q, shown %q", got, ids)
	}
	if len(ids) > 0 {
		if k := strings.Index(out, `"id":`); k >= 200 {
			t.Fatalf("first id at %d", k)
		}
	}
	// Best effort: a small first hit always fits the default budget.
	if len(hits) == 0 || budget < 1800 || maxHits < 0 || len(ids) > 0 {
		return
	}
	if h := hits[0]; len(h.ID) < 64 && utf8.ValidString(h.ID) {
		t.Fatalf("no hit shown in %d bytes:\n%s", budget, out)
	}
}

// readResults reads the results of a JSON preview token by token, keeping
// the order of the keys and the raw literals of titles and texts.
func readResults(t *testing.T, out string) []jsonResult {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	next := func() any {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("reading %s: %v", out, err)
		}
		return tok
	}
	expect := func(want any) {
		if got := next(); got != want {
			t.Fatalf("got %v, want %v in %s", got, want, out)
		}
	}
	expect(json.Delim('{'))
	expect("results")
	expect(json.Delim('['))
	var results []jsonResult
	for dec.More() {
		expect(json.Delim('{'))
		var r jsonResult
		for dec.More() {
			key, _ := next().(string)
			start := dec.InputOffset()
			val, ok := next().(string)
			if !ok {
				t.Fatalf("%s is not a string in %s", key, out)
			}
			raw := strings.TrimLeft(out[start:dec.InputOffset()], ": ")
			r.keys = append(r.keys, key)
			switch key {
			case "id":
				r.id = val
			case "title":
				r.title, r.rawTitle = val, raw
			case "url":
				r.url = val
			case "text":
				r.text, r.rawText = val, raw
			}
		}
		expect(json.Delim('}'))
		results = append(results, r)
	}
	expect(json.Delim(']'))
	expect(json.Delim('}'))
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("more than one value in %s", out)
	}
	return results
}
