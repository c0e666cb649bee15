package mcpid

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"

	"github.com/mcpid/mcpid/internal/lookalike"
	"github.com/mcpid/mcpid/internal/testkit/idlook"
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

// lookalikeIDs are ids of every class of look-alike that the preview
// tells apart, each with how the text form shows it (the JSON form shows
// the same literal, or the bare id quoted).
var lookalikeIDs = []struct {
	name, id, shown string
}{
	{"NFC accent stays bare", "s:\u00e9", "s:\u00e9"},
	{"NFD accent", "s:e\u0301", `"s:e\u0301"`},
	{"Latin K", "temp:K", "temp:K"},
	{"Kelvin sign", "temp:\u212a", `"temp:\u212a"`},
	{"Latin A with ring", "unit:\u00c5", "unit:\u00c5"},
	{"Angstrom sign", "unit:\u212b", `"unit:\u212b"`},
	{"conjoining jamo", "ko:\u1112\u1161\u11ab", "\"ko:\u1112\\u1161\\u11ab\""},
	{"Latin a", "doc:a", "doc:a"},
	{"lone Cyrillic a", "doc:\u0430", `"doc:\u0430"`},
	{"one Cyrillic letter in a Latin word", "site:p\u0430ypal", `"site:p\u0430ypal"`},
	{"Latin word", "site:paypal", "site:paypal"},
	{"Cyrillic word of look-alikes", "ru:\u0441\u043e\u0440", `"ru:\u0441\u043e\u0440"`},
	{"Latin twin of it", "ru:cop", "ru:cop"},
	{"Cyrillic word with a letter without look-alike", "ru:\u0436\u0430\u0440\u0430", "ru:\u0436\u0430\u0440\u0430"},
	{"Cyrillic letter built on a look-alike", "ru:\u0451", `"ru:\u0451"`},
	{"Cyrillic look-alike and a mark, not NFC", "ru:\u0430\u0308", `"ru:\u0430\u0308"`},
	{"words judged one by one", "ru:\u0441\u043e\u0440-\u0436\u0430\u0440\u0430", "\"ru:\\u0441\\u043e\\u0440-\u0436\u0430\u0440\u0430\""},
	{"Greek letter in a Latin word", "gr:\u03b1bc", `"gr:\u03b1bc"`},
	{"Greek and Cyrillic in one word", "x:\u03bb\u0436", `"x:\u03bb\u0436"`},
	{"Greek word of look-alikes", "gr:\u03bf\u03c1", `"gr:\u03bf\u03c1"`},
	{"Greek word with a letter without look-alike", "gr:\u03bb\u03cc\u03b3\u03bf\u03c2", "gr:\u03bb\u03cc\u03b3\u03bf\u03c2"},
	{"Armenian look-alikes in a Latin word", "g\u0585\u0585gle", `"g\u0585\u0585gle"`},
	{"Han", "jp:\u65e5\u672c", "jp:\u65e5\u672c"},
	{"Hangul", "ko:\ud55c\uad6d\uc5b4", "ko:\ud55c\uad6d\uc5b4"},
	{"Latin with Han in one word", "jp:abc\u65e5\u672c", "jp:abc\u65e5\u672c"},
	{"Cyrillic look-alike with Han in one word", "x:\u0430\u65e5", "\"x:\\u0430\u65e5\""},
	{"space and a look-alike", "doc:\u0430 b", `"doc:\u0430 b"`},
	{"division slash", "c\u2215s:r", `"c\u2215s:r"`},
	{"its ASCII twin, a plain id", "c/s:r", "c/s:r"},
	{"fraction slash", "c\u2044s:r", `"c\u2044s:r"`},
	{"fullwidth solidus", "a\uff0fs:r", `"a\uff0fs:r"`},
	{"Roman numeral one", "\u2160nvoice", `"\u2160nvoice"`},
	{"Latin dental click", "\u01c0og", `"\u01c0og"`},
	{"ligature fi", "\ufb01le", `"\ufb01le"`},
	{"mathematical bold", "\U0001d41a\U0001d41c\U0001d426\U0001d41e", `"\ud835\udc1a\ud835\udc1c\ud835\udc26\ud835\udc1e"`},
	{"hyphen", "a\u2010b", `"a\u2010b"`},
	{"en dash", "a\u2013b", `"a\u2013b"`},
	{"minus sign", "a\u2212b", `"a\u2212b"`},
	{"ratio", "a\u2236b", `"a\u2236b"`},
	{"modifier letter colon", "a\ua789b", `"a\ua789b"`},
	{"dotless i", "\u0131d", `"\u0131d"`},
	{"superscript two", "x\u00b2", `"x\u00b2"`},
	{"circled digit", "n:\u2460", `"n:\u2460"`},
	{"halfwidth katakana", "jp:\uff76\uff85", `"jp:\uff76\uff85"`},
	{"katakana stays bare", "jp:\u30ab\u30ca", "jp:\u30ab\u30ca"},
	{"Arabic-Indic digits stay bare", "ar:\u0661\u0660", "ar:\u0661\u0660"},
	{"Arabic word stays bare", "ar:\u0643\u062a\u0627\u0628", "ar:\u0643\u062a\u0627\u0628"},
	{"Arabic word of look-alikes", "ar:\u0627\u0647", `"ar:\u0627\u0647"`},
	{"Devanagari with its marks stays bare", "hi:\u0928\u092e\u0938\u094d\u0924\u0947", "hi:\u0928\u092e\u0938\u094d\u0924\u0947"},
	{"Cherokee in a Latin word", "\u13aabc", `"\u13aabc"`},
	{"Armenian and Greek in one word", "x:\u0585\u03bb", `"x:\u0585\u03bb"`},
	{"Arabic and Cyrillic in one word", "x:\u0643\u0436", `"x:\u0643\u0436"`},
	{"Devanagari sign visarga, a spacing mark like a colon", "c/:orders\u0903o1", `"c/:orders\u0903o1"`},
	{"Telugu sign anusvara, a mark like o", "d:b\u0c02b", `"d:b\u0c02b"`},
	{"Old Italic numeral one, a number like l", "\U00010320og", `"\ud800\udf20og"`},
	{"ideographic number zero", "n:\u3007", `"n:\u3007"`},
	{"Katakana no, a letter like a slash", "jp:\u30ce\u30fc\u30c8", "\"jp:\\u30ce\u30fc\u30c8\""},
	{"o with horn, by its prototype", "vi:c\u01a1m", `"vi:c\u01a1m"`},
	{"lone Cyrillic capital ze, like 3", "ru:\u0417", `"ru:\u0417"`},
	{"Cyrillic word of look-alikes with be, like 6", "ru:\u0431\u043e\u0440", `"ru:\u0431\u043e\u0440"`},
	{"Cyrillic word with ze and letters without look-alike", "ru:\u0417\u0438\u043c\u0430", "ru:\u0417\u0438\u043c\u0430"},
	{"i with a dot above", "d:i\u0307d", `"d:i\u0307d"`},
	{"j with a dot above", "d:j\u0307", `"d:j\u0307"`},
	{"i with a dot below and a dot above", "d:\u1ecb\u0307", "\"d:\u1ecb\\u0307\""},
	{"Cyrillic i with a dot above", "ru:\u0436\u0456\u0307", "\"ru:\u0436\u0456\\u0307\""},
	{"dot above on q stays bare", "d:q\u0307", "d:q\u0307"},
}

// TestLookalikeIDs: each id is shown, in both formats, as the row says,
// exactly as the checker's reference writes it, and read back whole.
func TestLookalikeIDs(t *testing.T) {
	for _, tt := range lookalikeIDs {
		t.Run(tt.name, func(t *testing.T) {
			hits := []Hit{{ID: tt.id, Title: "t"}}
			text := RenderPreview(hits, PreviewOptions{})
			checkPreview(t, text, hits, PreviewOptions{})
			assert.Contains(t, text, "\n1. id="+tt.shown+" title=\"t\"\n")
			assert.Equal(t, idlook.ShownID(tt.id), tt.shown, "the checker's reference")
			assert.Equal(t, []string{tt.id}, ExtractIDs(text))

			lit := tt.shown
			if !strings.HasPrefix(lit, `"`) {
				lit = `"` + lit + `"`
			}
			js := RenderPreview(hits, PreviewOptions{Format: FormatJSON})
			checkPreview(t, js, hits, PreviewOptions{Format: FormatJSON})
			assert.Equal(t, `{"results":[{"id":`+lit+`,"title":"t","url":""}]}`, js)
			assert.Equal(t, []string{tt.id}, ExtractIDs(js))
		})
	}
}

// TestLookalikePairs: two ids a person could not tell apart bare are
// shown apart in one preview, in both formats; the checker's Look, which
// folds the classes the rule covers, tells that the pair is a real one.
func TestLookalikePairs(t *testing.T) {
	pairs := []struct {
		name string
		a, b string
	}{
		{"NFC and NFD", "s:\u00e9", "s:e\u0301"},
		{"file names", "caf\u00e9.pdf", "cafe\u0301.pdf"},
		{"K and the Kelvin sign", "temp:K", "temp:\u212a"},
		{"A with ring and the Angstrom sign", "unit:\u00c5", "unit:\u212b"},
		{"Latin and Cyrillic a", "doc:a", "doc:\u0430"},
		{"paypal", "site:paypal", "site:p\u0430ypal"},
		{"a Cyrillic word of look-alikes", "ru:cop", "ru:\u0441\u043e\u0440"},
		{"Greek and Latin", "gr:abc", "gr:\u03b1bc"},
		{"Greek omicron and Cyrillic o", "x:\u03bf", "x:\u043e"},
		{"Armenian", "google", "g\u0585\u0585gle"},
		{"Cyrillic with Han", "x:a\u65e5", "x:\u0430\u65e5"},
		{"Cyrillic io and Latin e with diaeresis", "x:\u00eb", "x:\u0451"},
		{"Hangul syllable and its jamo", "ko:\ud55c", "ko:\u1112\u1161\u11ab"},
		{"division slash", "c/s:r", "c\u2215s:r"},
		{"fraction slash", "c/s:r", "c\u2044s:r"},
		{"fullwidth solidus", "a/s:r", "a\uff0fs:r"},
		{"Roman numeral one", "Invoice", "\u2160nvoice"},
		{"Latin dental click", "log", "\u01c0og"},
		{"ligature fi", "file", "\ufb01le"},
		{"mathematical bold", "acme", "\U0001d41a\U0001d41c\U0001d426\U0001d41e"},
		{"hyphen", "a-b", "a\u2010b"},
		{"en dash", "a-b", "a\u2013b"},
		{"minus sign", "a-b", "a\u2212b"},
		{"hyphen and minus sign", "a\u2010b", "a\u2212b"},
		{"ratio", "a:b", "a\u2236b"},
		{"dotless i", "id", "\u0131d"},
		{"Devanagari sign visarga", "c/:orders:o1", "c/:orders\u0903o1"},
		{"Old Italic numeral one", "log", "\U00010320og"},
		{"ideographic number zero", "n:O", "n:\u3007"},
		{"Katakana no", "jp:a/b", "jp:a\u30ceb"},
		{"Cyrillic capital ze", "ru:3", "ru:\u0417"},
		{"i and i with a dot above", "d:id", "d:i\u0307d"},
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			require.Equal(t, idlook.Look(p.a), idlook.Look(p.b), "the two look the same bare")
			hits := []Hit{{ID: p.a}, {ID: p.b}}
			for _, format := range []Format{FormatText, FormatJSON} {
				opts := PreviewOptions{Format: format}
				out := RenderPreview(hits, opts)
				checkPreview(t, out, hits, opts)
				assert.Equal(t, []string{p.a, p.b}, ExtractIDs(out))
			}
		})
	}
}

// TestLookalikeIDsRoundTrip is the property over many ids made of runes
// from every class: each is shown as the checker's reference says, no two
// shown ids look alike, and ExtractIDs gives back every id byte for byte.
func TestLookalikeIDsRoundTrip(t *testing.T) {
	alphabet := []rune("aecopxyKA é-:. \"\\\u0301\u0308\u0316\u212a\u212b\u0430\u0435\u043e\u0441\u0436\u0451\u03b1\u03bf\u03bb\u0585\u0561\u65e5\ud55c\u1112\u1161\u11ab\u200d\u2800\U0001d41a\u13aa")
	rng := rand.New(rand.NewPCG(30, 3))
	for round := range 300 {
		hits := make([]Hit, 8)
		for i := range hits {
			rs := make([]rune, 1+rng.IntN(8))
			for j := range rs {
				rs[j] = alphabet[rng.IntN(len(alphabet))]
			}
			hits[i] = Hit{ID: fmt.Sprintf("d%d:%s", i, string(rs))}
		}
		for _, format := range []Format{FormatText, FormatJSON} {
			opts := PreviewOptions{Budget: 1 << 14, MaxHits: 8, Format: format}
			out := RenderPreview(hits, opts)
			checkPreview(t, out, hits, opts)
			ids := make([]string, len(hits))
			for i, h := range hits {
				ids[i] = h.ID
			}
			require.Equal(t, ids, ExtractIDs(out), "round %d", round)
		}
	}
}

// scriptAlphabet returns the printable letters, combining marks and
// decimal digits of the scripts tables, with the marks of extra and the
// digits of digits added.
func scriptAlphabet(tables []*unicode.RangeTable, extra *unicode.RangeTable, digits string) []rune {
	var rs []rune
	for r := rune(0x80); r <= 0x3ffff; r++ {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) {
			continue
		}
		in := false
		for _, t := range tables {
			in = in || unicode.Is(t, r)
		}
		if in && unicode.In(r, unicode.L, unicode.M, unicode.Nd) ||
			extra != nil && unicode.Is(extra, r) && unicode.Is(unicode.M, r) {
			rs = append(rs, r)
		}
	}
	return append(rs, []rune(digits)...)
}

// quotedByRule reports whether the rule of RenderPreview quotes id, an
// id of one script's letters, marks and digits after an ASCII prefix,
// written from the rule's words: not in NFC, a rune that is not its own
// NFKC form, a sign that looks like ASCII, a mark above on a soft-dotted
// letter with no rune of class 0 or 230 between, or a word whose letters
// of a script with Latin look-alikes all look like ASCII text.
func quotedByRule(id string) bool {
	if !norm.NFC.IsNormalString(id) {
		return true
	}
	ccc := func(r rune) uint8 { return norm.NFD.PropertiesString(string(r)).CCC() }
	var base rune // the last rune of class 0 or 230
	for _, r := range id {
		_, sign := lookalike.ASCII(r)
		if norm.NFKC.String(string(r)) != string(r) || sign ||
			ccc(r) == 230 && ccc(base) == 0 && unicode.Is(unicode.Soft_Dotted, base) {
			return true
		}
		if c := ccc(r); c == 0 || c == 230 {
			base = r
		}
	}
	words := strings.FieldsFunc(id, func(r rune) bool { return !unicode.In(r, unicode.L, unicode.M) })
	for _, w := range words {
		lookalikes, others := 0, 0
		for _, r := range w {
			if !unicode.IsLetter(r) || lookalike.Script(r) < 2 {
				continue
			}
			if _, ok := lookalike.Latin(r); ok {
				lookalikes++
			} else {
				others++
			}
		}
		if lookalikes > 0 && others == 0 {
			return true
		}
	}
	return false
}

// TestScriptIDsStayBare is the property that ids made of the letters,
// combining marks and digits of Japanese, Arabic, Devanagari or Cyrillic
// are shown bare, in both formats, unless a rule of the preview quotes
// them: halfwidth katakana and other compatibility characters, an id not
// in NFC, a word made only of letters that look like Latin ones.
func TestScriptIDsStayBare(t *testing.T) {
	scripts := []struct {
		name     string
		alphabet []rune
	}{
		{"Japanese", scriptAlphabet([]*unicode.RangeTable{unicode.Hiragana, unicode.Katakana, unicode.Han}, rangeOf(0x3099, 0x309a), "0123456789\u30fc")},
		{"Arabic", scriptAlphabet([]*unicode.RangeTable{unicode.Arabic}, rangeOf(0x064b, 0x0655), "")},
		{"Devanagari", scriptAlphabet([]*unicode.RangeTable{unicode.Devanagari}, rangeOf(0x0951, 0x0954), "")},
		{"Cyrillic", scriptAlphabet([]*unicode.RangeTable{unicode.Cyrillic}, rangeOf(0x0300, 0x036f), "0123456789")},
	}
	rng := rand.New(rand.NewPCG(36, 4))
	for _, sc := range scripts {
		t.Run(sc.name, func(t *testing.T) {
			// Compatibility characters (Arabic presentation forms,
			// halfwidth kana) are one pick in ten, so that most ids are
			// ones a rule may leave bare.
			var plain []rune
			for _, r := range sc.alphabet {
				if norm.NFKC.String(string(r)) == string(r) {
					plain = append(plain, r)
				}
			}
			bare := 0
			const rounds = 2000
			for range rounds {
				rs := make([]rune, 1+rng.IntN(8))
				for j := range rs {
					rs[j] = plain[rng.IntN(len(plain))]
					if rng.IntN(10) == 0 {
						rs[j] = sc.alphabet[rng.IntN(len(sc.alphabet))]
					}
				}
				id := "x:" + string(rs)
				quoted := quotedByRule(id)
				if !quoted {
					bare++
				}
				hits := []Hit{{ID: id}}
				text := RenderPreview(hits, PreviewOptions{})
				checkPreview(t, text, hits, PreviewOptions{})
				line := strings.Split(text, "\n")[1]
				require.Equal(t, !quoted, line == "1. id="+id, "%+q shown as %s", id, line)
				js := RenderPreview(hits, PreviewOptions{Format: FormatJSON})
				checkPreview(t, js, hits, PreviewOptions{Format: FormatJSON})
				require.Equal(t, !quoted, strings.Contains(js, `"id":"`+id+`"`), "%+q shown as %s", id, js)
			}
			assert.Greater(t, bare, rounds/4, "many ids stay bare")
		})
	}
}

// rangeOf returns the table of the runes lo to hi.
func rangeOf(lo, hi uint16) *unicode.RangeTable {
	return &unicode.RangeTable{R16: []unicode.Range16{{Lo: lo, Hi: hi, Stride: 1}}}
}

// TestOwnNFKC: ownNFKC agrees with NFKC itself on every assigned rune.
func TestOwnNFKC(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if r == 0xd800 {
			r = 0xe000 // surrogates are no runes
		}
		if r == 0x32000 {
			r = 0xe0000 // unassigned but for Han: nothing to learn
		}
		s := string(r)
		if got, want := ownNFKC(s), norm.NFKC.String(s) == s; got != want {
			t.Fatalf("ownNFKC(%U) = %v, want %v", r, got, want)
		}
	}
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = ownNFKC("\ufb01") || ownNFKC("\u0301") }))
}

// confusablesFile is the pinned confusables.txt (UTS #39) that package
// lookalike's table is generated from, gzipped.
const confusablesFile = "internal/lookalike/testdata/confusables.txt.gz"

// asciiConfusables returns, read from confusablesFile itself rather than
// from the table made of it, each source of confusables.txt that is one
// rune above ASCII and not a decimal digit (category Nd) and whose
// prototype is ASCII, with that prototype.
func asciiConfusables(t *testing.T) map[rune]string {
	t.Helper()
	f, err := os.Open(confusablesFile)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	srcs := make(map[rune]string)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Split(line, ";")
		if len(fields) < 3 {
			continue
		}
		src, err := strconv.ParseUint(strings.TrimSpace(fields[0]), 16, 32)
		require.NoError(t, err, "source of %q", line)
		var proto []byte
		for _, cp := range strings.Fields(fields[1]) {
			c, err := strconv.ParseUint(cp, 16, 32)
			require.NoError(t, err, "prototype of %q", line)
			if c >= utf8.RuneSelf {
				proto = nil
				break
			}
			proto = append(proto, byte(c))
		}
		if r := rune(src); r >= utf8.RuneSelf && !unicode.Is(unicode.Nd, r) && proto != nil {
			srcs[r] = string(proto)
		}
	}
	require.NoError(t, sc.Err())
	return srcs
}

// TestConfusablesEscaped is the measure of the look-alike rule: every
// rune above ASCII that confusables.txt maps to ASCII, digits aside, is
// shown escaped, in both formats, inside a Latin word, alone, and between
// separators, and the id reads back whole.
func TestConfusablesEscaped(t *testing.T) {
	srcs := asciiConfusables(t)
	require.Greater(t, len(srcs), 1000, "sources read")
	var missed []string
	for r, proto := range srcs {
		s := string(r)
		lit := strconv.QuoteToASCII(s)
		esc := strings.ToLower(lit[1 : len(lit)-1])
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			esc = fmt.Sprintf(`\u%04x\u%04x`, r1, r2)
		}
		for _, place := range []struct{ name, id string }{
			{"in a Latin word", "d:ab" + s + "cd"},
			{"alone", s},
			{"between separators", "c/:" + s + ":o1"},
		} {
			for _, format := range []Format{FormatText, FormatJSON} {
				hits := []Hit{{ID: place.id}}
				out := RenderPreview(hits, PreviewOptions{Format: format})
				if !strings.Contains(out, esc) || strings.Contains(out, s) || !slices.Equal([]string{place.id}, ExtractIDs(out)) {
					missed = append(missed, fmt.Sprintf("%U (%q) %s, format %d", r, proto, place.name, format))
				}
			}
		}
	}
	slices.Sort(missed)
	assert.Empty(t, missed, "shown as they are")
}
