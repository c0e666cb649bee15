// Package previewcheck holds the one checker of each preview format: it
// reads a rendered preview back and checks it against the hits and
// options it was rendered from. The unit tests of package mcpid and the
// fuzz targets both use it. It is for tests only, and it does not import
// mcpid (whose own tests import it): callers convert their hits with
// Hit(h) and pass the package functions the checks need in Funcs.
package previewcheck

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Hit has the fields of mcpid.Hit, in its order, so that an mcpid.Hit
// converts to it with Hit(h).
type Hit struct {
	ID, ConnectionID, ConnectorKey, Stream, DisplayName, Title, Snippet, URL string
}

// Options are the fields of mcpid.PreviewOptions that the checks read,
// with JSON true for mcpid.FormatJSON.
type Options struct {
	Budget, MaxHits, Total         int
	HasMore                        bool
	MaxLabel, MaxTitle, MaxSnippet int
	JSON                           bool
}

// Check checks out, rendered from hits with opts, with the checker of its
// format: JSON or Text.
func Check(t testing.TB, out string, hits []Hit, opts Options, f Funcs) {
	t.Helper()
	if opts.JSON {
		JSON(t, out, hits, opts, f)
		return
	}
	Text(t, out, hits, opts, f)
}

// Funcs are the functions of package mcpid that the checks call.
type Funcs struct {
	// ExtractIDs is mcpid.ExtractIDs.
	ExtractIDs func(text string) []string
	// Embedded returns the connection id embeds, as mcpid.Parse reads
	// it: "" for a legacy or malformed id.
	Embedded func(id string) string
}

// The defaults of the options that are 0.
const (
	defaultBudget  = 1800
	defaultMaxHits = 8
)

// budget returns the budget o means.
func (o Options) budget() int {
	if o.Budget == 0 {
		return defaultBudget
	}
	return o.Budget
}

// maxHits returns the MaxHits o means.
func (o Options) maxHits() int {
	if o.MaxHits == 0 {
		return defaultMaxHits
	}
	return o.MaxHits
}

// fieldCap returns the cap of a field whose option is c and whose
// default is def.
func fieldCap(c, def int) int {
	if c == 0 {
		return def
	}
	return c
}

// checkCut checks that v shows text: whole, with each invalid byte
// replaced by U+FFFD, or cut at a normalization boundary and marked with
// "…".
func checkCut(t testing.TB, v, text, where string) {
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
		t.Fatalf("value %q does not show %q in %q", v, text, where)
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
		t.Fatalf("cut at %d splits a combining sequence of %q in %q", p, text, where)
	}
}

// decodeLiteral decodes the JSON string literal lit.
func decodeLiteral(t testing.TB, lit, where string) string {
	t.Helper()
	var v string
	if err := json.Unmarshal([]byte(lit), &v); err != nil {
		t.Fatalf("literal %s in %q: %v", lit, where, err)
	}
	return v
}

// Hits converts hits of any type with the fields of Hit, such as
// mcpid.Hit, to Hits.
func Hits[H ~struct {
	ID, ConnectionID, ConnectorKey, Stream, DisplayName, Title, Snippet, URL string
}](hits []H) []Hit {
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = Hit(h)
	}
	return out
}
