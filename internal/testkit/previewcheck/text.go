package previewcheck

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/weburl"
)

var (
	previewHeader = regexp.MustCompile(`^Showing (\d+) of (more than )?(\d+)( or more)? hits?\.$`)
	previewLine   = regexp.MustCompile(`^(\d+)\. id=`)
	previewFooter = regexp.MustCompile(`^(?:(\d+) hits? not shown|More than (\d+) hits not shown|(\d+) or more hits not shown|More hits exist); (?:see|none of them in|\d+ of them in) structuredContent\.results\.$`)
)

const (
	fetchHint       = "To fetch, pass an id exactly as shown; pass connection_id only where its line shows one."
	fetchHintQuoted = "To fetch, pass an id exactly as shown (a quoted id is a JSON string: pass its decoded value); pass connection_id only where its line shows one."
)

// textFields are the free-text fields in the order a hit line shows them;
// the url, textFields[textURL], is bare and never cut.
var textFields = []string{"stream", "connector_key", "display_name", "title", "url", "snippet"}

const textURL = 4

// textField returns the value of field k of textFields in h.
func textField(h mcpid.Hit, k int) string {
	return [...]string{h.Stream, h.ConnectorKey, h.DisplayName, h.Title, h.URL, h.Snippet}[k]
}

// Text reads out, a text preview, line by line and checks it against the
// hits and options it was rendered from: the budget, no raw control
// character or other non-printable rune but '\n', the header, hit lines
// in order with their ids complete and connection_id exactly where the id
// does not embed the hit's connection, free text in order, within its cap
// and cut at boundaries, the fetch instruction, the count of hits not
// shown, ExtractIDs, the first id within 200 bytes, and ids shown exactly
// as [idlook.ShownID] writes them, no two different ones alike by [idlook.Look].
func Text(t testing.TB, out string, hits []mcpid.Hit, opts mcpid.PreviewOptions) {
	t.Helper()
	budget := budget(opts)
	checkText(t, out, budget)
	if out == "" {
		if budget >= 70 {
			t.Fatalf("empty preview within %d bytes", budget)
		}
		return
	}
	total := max(len(hits), opts.Total)
	may := opts.MayHaveMore && !opts.HasMore
	if total == 0 && !opts.HasMore {
		want := "No hits."
		if may {
			want = "No hits counted; more may exist."
		}
		if out != want {
			t.Fatalf("want %q, got %q", want, out)
		}
		return
	}
	lines := strings.Split(out, "\n")
	stated := checkHeader(t, lines[0], total, opts.HasMore, may)
	shown, rest := checkHitLines(t, out, lines[1:], hits, opts)
	if len(shown) != stated {
		t.Fatalf("header states %d hits, %d lines:\n%s", stated, len(shown), out)
	}
	if opts.Terse {
		if len(rest) > 0 {
			t.Fatalf("a terse preview with lines after its hits:\n%s", out)
		}
	} else {
		checkFooter(t, out, rest, len(hits), len(shown), total, opts.HasMore, may)
	}

	// Best effort: a small first hit always fits the default budget.
	if len(hits) == 0 || budget < mcpid.DefaultBudget || maxHits(opts) < 0 || len(shown) > 0 {
		return
	}
	if h := hits[0]; len(h.ID) < 64 && len(h.ConnectionID) < 64 && utf8.ValidString(h.ID) && utf8.ValidString(h.ConnectionID) {
		t.Fatalf("no hit shown in %d bytes:\n%s", budget, out)
	}
}

// checkText checks the bytes of a text preview: within budget, valid
// UTF-8, and no non-printable rune but '\n'.
func checkText(t testing.TB, out string, budget int) {
	t.Helper()
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
}

// checkHeader checks the first line of a preview of total hits and
// returns the number of hits it states are shown.
func checkHeader(t testing.TB, line string, total int, hasMore, may bool) int {
	t.Helper()
	m := previewHeader.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("bad header %q", line)
	}
	if (m[2] != "") != hasMore || (m[4] != "") != may || m[3] != strconv.Itoa(total) || (total == 1 && !hasMore && !may) != strings.HasSuffix(line, " hit.") {
		t.Fatalf("header %q for %d hits, more: %v", line, total, hasMore)
	}
	stated, _ := strconv.Atoi(m[1])
	return stated
}

// checkHitLines checks the hit lines at the start of lines, and the
// fetch instruction after them when there are any, and returns the ids
// shown and the lines after them.
func checkHitLines(t testing.TB, out string, lines []string, hits []mcpid.Hit, opts mcpid.PreviewOptions) (shown, rest []string) {
	t.Helper()
	maxHits := maxHits(opts)
	quoted := false
	last := 0
	i := 0
	var shownAs []string
	for ; i < len(lines) && previewLine.MatchString(lines[i]); i++ {
		num, id, as, q := checkHitLine(t, lines[i], hits, opts)
		shownAs = append(shownAs, as)
		if num <= last || num > min(len(hits), maxHits) {
			t.Fatalf("hit number %d after %d, of %d hits, MaxHits %d", num, last, len(hits), maxHits)
		}
		last = num
		quoted = quoted || q
		shown = append(shown, id)
	}
	if got := mcpid.ExtractIDs(out); !slices.Equal(got, shown) {
		t.Fatalf("ExtractIDs = %q, shown %q", got, shown)
	}
	checkLooks(t, shown, shownAs, out)
	if len(shown) == 0 {
		return nil, lines[i:]
	}
	if k := strings.Index(out, "id="); k >= 200 {
		t.Fatalf("first id= at %d", k)
	}
	if opts.Terse {
		return shown, lines[i:]
	}
	want := fetchHint
	if quoted {
		want = fetchHintQuoted
	}
	if i >= len(lines) || lines[i] != want {
		t.Fatalf("want the fetch hint %q after the hits:\n%s", want, out)
	}
	return shown, lines[i+1:]
}

// checkFooter checks rest, the lines after the hits: the count of the
// hits not shown, always there with hits shown and there without when it
// fits, and how many of them are in the structured results.
func checkFooter(t testing.TB, out string, rest []string, passed, shown, total int, hasMore, may bool) {
	t.Helper()
	left := total - shown
	switch {
	case len(rest) == 0:
		if shown > 0 && (left > 0 || hasMore) {
			t.Fatalf("%d hits not shown and not counted:\n%s", left, out)
		}
		return
	case len(rest) > 1:
		t.Fatalf("unexpected line %q:\n%s", rest[0], out)
	}
	var want string
	switch {
	case hasMore && left == 0:
		want = "More hits exist"
	case hasMore:
		want = "More than " + strconv.Itoa(left) + " hits not shown"
	case may && left > 0:
		want = strconv.Itoa(left) + " or more hits not shown"
	case left == 1:
		want = "1 hit not shown"
	case left > 0:
		want = strconv.Itoa(left) + " hits not shown"
	default:
		t.Fatalf("a count when every hit is shown: %q", rest[0])
	}
	// Of the hits not shown, those passed in are in the structured
	// results; those counted only by Total or HasMore are not.
	switch inResults := passed - shown; {
	case inResults == left && !hasMore && !may:
		want += "; see structuredContent.results."
	case inResults == 0:
		want += "; none of them in structuredContent.results."
	default:
		want += "; " + strconv.Itoa(inResults) + " of them in structuredContent.results."
	}
	if !previewFooter.MatchString(rest[0]) || rest[0] != want {
		t.Fatalf("footer %q, want %q", rest[0], want)
	}
}

// checkHitLine checks one hit line and returns its number, its id, the id
// as shown and whether the id was quoted.
func checkHitLine(t testing.TB, line string, hits []mcpid.Hit, opts mcpid.PreviewOptions) (int, string, string, bool) {
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
	shownID := idText[:len(idText)-len(rest)]
	if id != h.ID {
		t.Fatalf("line %q shows id %q of hit %q", line, id, h.ID)
	}
	checkShownID(t, id, shownID, false, line)
	// connection_id is shown unless the id embeds this same connection.
	wantConn := h.ConnectionID != "" && embedded(h.ID) != h.ConnectionID
	if conn, ok := strings.CutPrefix(rest, " connection_id="); ok {
		var c string
		c, _, rest = readValue(t, conn, line)
		if !wantConn || c != h.ConnectionID {
			t.Fatalf("line %q shows connection_id %q of hit %+q", line, c, h)
		}
		checkShownID(t, c, conn[:len(conn)-len(rest)], false, line)
	} else if wantConn {
		t.Fatalf("line %q lacks connection_id %q", line, h.ConnectionID)
	}

	caps := [...]int{opts.MaxLabel, opts.MaxLabel, opts.MaxLabel, opts.MaxTitle, 0, opts.MaxSnippet}
	defaults := [...]int{DefaultMaxLabel, DefaultMaxLabel, DefaultMaxLabel, DefaultMaxTitle, budget(opts), DefaultMaxSnippet}
	next := 0
	for rest != "" {
		key, lit, ok := strings.Cut(strings.TrimPrefix(rest, " "), "=")
		k := slices.Index(textFields, key)
		if !ok || !strings.HasPrefix(rest, " ") || k < next || strings.HasPrefix(lit, `"`) != (k != textURL) {
			t.Fatalf("bad field at %q in %q", abbrev(rest), abbrev(line))
		}
		next = k + 1
		if k == textURL {
			// Whole, bare and valid: the hit's own URL.
			var u string
			u, _, rest = readValue(t, lit, line)
			if u != h.URL || !weburl.Valid(u) {
				t.Fatalf("url %q of hit URL %q in %q", abbrev(u), abbrev(h.URL), abbrev(line))
			}
			continue
		}
		var v string
		v, _, rest = readValue(t, lit, line)
		size := len(lit) - len(rest)
		c := fieldCap(caps[k], defaults[k])
		if c < 0 || size > c {
			t.Fatalf("%s of %d bytes with cap %d in %q", key, size, caps[k], line)
		}
		text := textField(h, k)
		if k == 3 && text == h.ID {
			t.Fatalf("title equal to the id shown in %q", line)
		}
		checkCut(t, v, text, line)
	}
	return num, id, shownID, q
}

// readValue reads a bare or quoted value at the start of s and returns it,
// whether it was quoted, and what follows it.
func readValue(t testing.TB, s, line string) (string, bool, string) {
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
	return decodeLiteral(t, s[:end+1], line), true, s[end+1:]
}

// abbrev returns s, or its first and last bytes when it is long, so that
// a failure stays readable.
func abbrev(s string) string {
	if len(s) <= 200 {
		return s
	}
	return s[:100] + "…" + s[len(s)-100:]
}
