package mcpid

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"
)

func TestPreviewCut(t *testing.T) {
	tests := []struct {
		name string
		text string
	}{
		{"combining marks", strings.Repeat("e\u0301", 100)},
		{"two marks", strings.Repeat("a\u0300\u0316", 80)},
		{"hangul jamo", strings.Repeat("\u1100\u1161\u11a8", 80)},
		{"four-byte runes", strings.Repeat("\U0001F600", 80)},
		{"escapes", strings.Repeat("\"\\\n\u2028", 80)},
		{"invalid bytes", strings.Repeat("a\xff\u0301", 80)},
		{"private use above the BMP", strings.Repeat("\U000F0000", 80)},
		{"long run of marks", "x" + strings.Repeat("\u0301", 300)},
	}
	for _, tt := range tests {
		for snippetMax := 1; snippetMax <= 120; snippetMax++ {
			t.Run(fmt.Sprintf("%s/%d", tt.name, snippetMax), func(t *testing.T) {
				hits := []Hit{{ID: "docs:a", Snippet: tt.text}}
				opts := PreviewOptions{MaxSnippet: snippetMax}
				out := RenderPreview(hits, opts)
				checkPreview(t, out, hits, opts)
				line := strings.Split(out, "\n")[1]
				if !strings.Contains(line, " snippet=") {
					// Only when the first segment does not fit; norm ends
					// a run of marks after 30 of them.
					assert.Less(t, snippetMax, 2+len(ellipsis)+1+32*2, "snippet left out")
					return
				}
				_, lit, _ := strings.Cut(line, " snippet=")
				assert.LessOrEqual(t, len(lit), snippetMax)
				v := fieldValue(t, line, "snippet")
				prefix, ok := strings.CutSuffix(v, "…")
				require.True(t, ok, "cut marked with …: %q", v)
				require.NotEmpty(t, prefix)
				want := replaceInvalid(tt.text)
				require.True(t, strings.HasPrefix(want, prefix), "%q is a prefix", prefix)
				// The cut is where norm puts a boundary in the text.
				raw := rawPrefixLen(tt.text, len(prefix))
				assert.True(t, isNormBoundary(tt.text, raw), "norm boundary at %d", raw)
			})
		}
	}
}

// rawPrefixLen returns the length of the prefix of s that is shown as n
// bytes once invalid bytes are replaced by U+FFFD.
func rawPrefixLen(s string, n int) int {
	i := 0
	for shown := 0; shown < n; {
		r, size := utf8.DecodeRuneInString(s[i:])
		shown += utf8.RuneLen(r)
		i += size
	}
	return i
}

// isNormBoundary reports whether p is a normalization boundary of s: the
// rune at p cannot combine with anything before it, or
// norm.NFC.LastBoundary, on the whole of some prefix of s, finds its last
// boundary at p (after invalid UTF-8, p itself may be one).
func isNormBoundary(s string, p int) bool {
	if norm.NFC.PropertiesString(s[p:]).BoundaryBefore() {
		return true
	}
	for n := p; n <= len(s); n++ {
		if n < len(s) && !utf8.RuneStart(s[n]) {
			continue
		}
		switch b := norm.NFC.LastBoundary([]byte(s[:n])); {
		case b == p:
			return true
		case b > p:
			return false
		}
	}
	return false
}

func TestPreviewCutBoundary(t *testing.T) {
	texts := []string{
		"abc",
		strings.Repeat("e\u0301", 200),
		"x" + strings.Repeat("\u0301", 100),
		strings.Repeat("\u0301", 100),
		strings.Repeat("\u1100\u1161\u11a8 ", 60),
		strings.Repeat("\U0001F600\u200d", 70),
		strings.Repeat("\xff\x80\xe2\x82\u0301\xf0\x9f\x98", 60),
		strings.Repeat("a\u0300\u0316\u0f73\u0344", 60),
		strings.Repeat("\u0cc6\u0cc2\u0cd5", 90),
	}
	boundary := func(s string, i int) bool { return norm.NFC.PropertiesString(s[i:]).BoundaryBefore() }
	for i, s := range texts {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			for n := 0; n < len(s); n++ {
				if !utf8.RuneStart(s[n]) {
					continue
				}
				p, _ := cutBoundary(s, n)
				require.LessOrEqual(t, p, n)
				// No boundary between p and n was missed.
				for q := p + 1; q <= n; q++ {
					require.False(t, utf8.RuneStart(s[q]) && boundary(s, q), "n=%d: boundary at %d after %d", n, q, p)
				}
				switch {
				case p == 0:
				case boundary(s, p):
					require.True(t, isNormBoundary(s, p), "n=%d p=%d", n, p)
				default:
					// Only inside a run of combining runes longer than
					// norm keeps together.
					require.Equal(t, n, p)
					require.Greater(t, utf8.RuneCountInString(s[max(0, n-4*(maxNonStarters+1)):n]), maxNonStarters)
				}
			}
		})
	}
}

func TestPreviewEscapeLength(t *testing.T) {
	var texts []string
	for c := range 256 {
		texts = append(texts, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	texts = append(texts, "\u0085\u00a0\u00e9\u2028\u2029\u200d\ufeff\ufffd\U0001F600\U000F0000\U0010FFFF", "\xe2\x82", "\xed\xa0\x80", "e\u0301")
	for name, esc := range map[string]*[256]uint8{"text": &textEscapes, "id": &idEscapes} {
		for _, s := range texts {
			got, n := appendEscaped(nil, s, 1<<20, esc)
			require.Equal(t, len(s), n, "%s %q", name, s)
			q, read, valid := quotedLen(s, 1<<20, esc)
			require.Equal(t, utf8.ValidString(s), valid, "%s %q", name, s)
			require.Equal(t, q, len(got)+2, "%s %q", name, s)
			require.Equal(t, len(s), read, "%s %q", name, s)
			var v string
			require.NoError(t, json.Unmarshal([]byte(`"`+string(got)+`"`), &v), "%s %q", name, got)
			assert.Equal(t, replaceInvalid(s), v, "%s %q", name, s)
		}
	}
}

// TestInvisibleRunesInIDs: an id holding a rune that renders as nothing
// or as a blank is quoted, with that rune escaped, so that two ids that
// differ only in it never look the same; free text keeps it as it is.
func TestInvisibleRunesInIDs(t *testing.T) {
	for _, tc := range []struct {
		r    rune
		want string
	}{
		{0x034F, `\u034f`},        // combining grapheme joiner
		{0x115F, `\u115f`},        // Hangul choseong filler
		{0x1160, `\u1160`},        // Hangul jungseong filler
		{0x3164, `\u3164`},        // Hangul filler
		{0xFFA0, `\uffa0`},        // halfwidth Hangul filler
		{0x17B4, `\u17b4`},        // Khmer vowel inherent aq
		{0x2800, `\u2800`},        // braille pattern blank
		{0x180B, `\u180b`},        // Mongolian free variation selector one
		{0xFE00, `\ufe00`},        // variation selector-1
		{0xFE0F, `\ufe0f`},        // variation selector-16
		{0xE0100, `\udb40\udd00`}, // variation selector-17
	} {
		t.Run(fmt.Sprintf("%U", tc.r), func(t *testing.T) {
			id := "docs:a" + string(tc.r) + "b"
			hits := []Hit{{ID: id, Title: "t" + string(tc.r)}, {ID: "docs:ab"}}
			text := RenderPreview(hits, PreviewOptions{})
			assert.Contains(t, text, `1. id="docs:a`+tc.want+`b" title="t`+string(tc.r)+`"`)
			assert.Contains(t, text, "2. id=docs:ab\n")
			assert.Equal(t, []string{id, "docs:ab"}, ExtractIDs(text))
			js := RenderPreview(hits, PreviewOptions{Format: FormatJSON})
			assert.Contains(t, js, `"id":"docs:a`+tc.want+`b"`)
			assert.Equal(t, []string{id, "docs:ab"}, ExtractIDs(js))
		})
	}
}
