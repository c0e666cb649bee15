package previewcheck

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/weburl"
)

// jsonResult is one result of the JSON form, with the raw literals of
// its title and text.
type jsonResult struct {
	keys                 []string
	id, title, url, text string
	rawID                string
	rawTitle, rawText    string
}

// JSON checks out, a JSON preview, against the hits and options it was
// rendered from: the budget, one valid object whose only key is results,
// results with the keys id, title, url and maybe text in that order, ids
// of hits in order, URLs whole and valid, free text cut at boundaries
// within its cap, ExtractIDs, the first id within 200 bytes, and ids
// quoted exactly as [idlook.QuoteID] writes them, no two different ones alike by
// [idlook.Look].
func JSON(t testing.TB, out string, hits []mcpid.Hit, opts mcpid.PreviewOptions) {
	t.Helper()
	budget := budget(opts)
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
	maxHits := maxHits(opts)
	var ids, shown []string
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
		checkShownID(t, r.id, r.rawID, true, out)
		ids = append(ids, r.id)
		shown = append(shown, r.rawID)
		if r.url != "" && (r.url != h.URL || !weburl.Reference(r.url)) {
			t.Fatalf("url %q of hit URL %q", r.url, h.URL)
		}
		for _, v := range []struct {
			val, raw, text string
			c              int
		}{{r.title, r.rawTitle, h.Title, fieldCap(opts.MaxTitle, DefaultMaxTitle)}, {r.text, r.rawText, h.Snippet, fieldCap(opts.MaxSnippet, DefaultMaxSnippet)}} {
			if v.val == "" {
				continue
			}
			if v.c < 0 || len(v.raw) > v.c {
				t.Fatalf("literal %s over its cap %d", v.raw, v.c)
			}
			checkNoNeedlessEscapes(t, v.raw, out)
			checkCut(t, v.val, v.text, out)
		}
		if len(r.keys) == 4 && r.text == "" {
			t.Fatalf("empty text shown in %s", out)
		}
	}
	if got := mcpid.ExtractIDs(out); !slices.Equal(got, ids) {
		t.Fatalf("ExtractIDs = %q, shown %q", got, ids)
	}
	checkLooks(t, ids, shown, out)
	if len(ids) > 0 {
		if k := strings.Index(out, `"id":`); k >= 200 {
			t.Fatalf("first id at %d", k)
		}
	}
	// Best effort: a small first hit always fits the default budget.
	if len(hits) == 0 || budget < mcpid.DefaultBudget || maxHits < 0 || len(ids) > 0 {
		return
	}
	if h := hits[0]; len(h.ID) < 64 && utf8.ValidString(h.ID) {
		t.Fatalf("no hit shown in %d bytes:\n%s", budget, out)
	}
}

// readResults reads the results of a JSON preview token by token, keeping
// the order of the keys and the raw literals of titles and texts.
func readResults(t testing.TB, out string) []jsonResult {
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
				r.id, r.rawID = val, raw
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

// checkNoNeedlessEscapes checks that the JSON string literal lit writes
// '<', '>', '&', U+2028 and U+2029 as they are: JSON needs no escape for
// them, and each costs a model bytes and tokens.
func checkNoNeedlessEscapes(t testing.TB, lit, where string) {
	t.Helper()
	for i := 0; i+1 < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		i++ // the escaped byte
		if lit[i] != 'u' || i+5 > len(lit) {
			continue
		}
		switch strings.ToLower(lit[i+1 : i+5]) {
		case "003c", "003e", "0026", "2028", "2029":
			t.Fatalf("needless escape %s in %s of %q", lit[i-1:i+5], lit, where)
		}
	}
}
