// Package previewcheck holds the one checker of each preview format: it
// reads a rendered preview back and checks it against the hits and
// options it was rendered from. The fuzz targets and the tests of package
// mcpid use it; as it imports mcpid, mcpid's own tests reach it through
// an external test file, which hands [Check] to them. It is for tests
// only.
package previewcheck

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpid/mcpid"
)

// Check checks out, rendered from hits with opts, with the checker of its
// format: JSON or Text.
func Check(t testing.TB, out string, hits []mcpid.Hit, opts mcpid.PreviewOptions) {
	t.Helper()
	if opts.Format == mcpid.FormatJSON {
		JSON(t, out, hits, opts)
		return
	}
	Text(t, out, hits, opts)
}

// The caps of the free-text fields that a zero option means, as the docs
// of [mcpid.PreviewOptions] state them; the tests of package mcpid check
// them against the package's own.
const (
	DefaultMaxLabel   = 40
	DefaultMaxTitle   = 100
	DefaultMaxSnippet = 120
)

// budget returns the budget opts means.
func budget(opts mcpid.PreviewOptions) int {
	return fieldCap(opts.Budget, mcpid.DefaultBudget)
}

// maxHits returns the MaxHits opts means.
func maxHits(opts mcpid.PreviewOptions) int {
	return fieldCap(opts.MaxHits, mcpid.DefaultMaxHits)
}

// fieldCap returns the value of an option that is c and whose default is
// def.
func fieldCap(c, def int) int {
	if c == 0 {
		return def
	}
	return c
}

// embedded returns the connection id embeds, as mcpid.Parse reads it: ""
// for a legacy or malformed id.
func embedded(id string) string {
	h, _ := mcpid.Parse(id)
	return h.ConnectionID()
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
