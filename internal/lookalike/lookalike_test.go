package lookalike

import (
	"slices"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLatin(t *testing.T) {
	tests := []struct {
		name  string
		r     rune
		latin string
		ok    bool
	}{
		{"Cyrillic a", 'а', "a", true},
		{"Cyrillic capital A", 'А', "A", true},
		{"Cyrillic o", 'о', "o", true},
		{"Cyrillic io, built on ie", 'ё', "e", true},
		{"Cyrillic capital ze, like a digit", 'З', "3", true},
		{"Cyrillic be", 'б', "6", true},
		{"Cyrillic yeru, like two runes", 'Ы', "bl", true},
		{"Hebrew yod, like an apostrophe", 'י', "'", true},
		{"Greek omicron", 'ο', "o", true},
		{"Greek alpha with tonos", 'ά', "a", true},
		{"Armenian oh", 'օ', "o", true},
		{"Cherokee A", 'Ꭺ', "A", true},
		{"Latin a", 'a', "", false},
		{"Latin e acute", 'é', "", false},
		{"Cyrillic zhe", 'ж', "", false},
		{"Greek lambda", 'λ', "", false},
		{"Han", '日', "", false},
		{"Katakana no, a sign", 'ノ', "", false},
		{"Hangul", '한', "", false},
		{"mathematical bold a, of Common", '𝐚', "", false},
		{"digit zero", '0', "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := Latin(tt.r)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.latin, s)
		})
	}
}

// checkTexts checks a table of runes and their ASCII texts: the runes in
// order, one text each, every text ASCII and not empty.
func checkTexts(t *testing.T, runes []rune, ends []uint16, all string) {
	t.Helper()
	require.True(t, slices.IsSorted(runes), "runes in order")
	require.Len(t, ends, len(runes))
	require.Equal(t, len(all), int(ends[len(ends)-1]))
	for i := range len(all) {
		require.Less(t, all[i], byte(0x80), "ASCII texts")
	}
	start := uint16(0)
	for i, end := range ends {
		require.Less(t, start, end, "%U has a text", runes[i])
		start = end
	}
}

func TestTable(t *testing.T) {
	checkTexts(t, letters[:], letterEnds[:], letterASCII)
	for _, r := range letters {
		assert.True(t, unicode.IsLetter(r), "%U is a letter", r)
		assert.Greater(t, Script(r), 1, "%U is of a script with look-alikes", r)
		_, sign := ASCII(r)
		assert.False(t, sign, "%U is a letter, not a sign", r)
	}
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _, _ = Latin('З') }))
}

// scriptSlow is the plain reference of Script: the first table of
// scripts that holds r.
func scriptSlow(r rune) int {
	for i, t := range scripts {
		if unicode.Is(t, r) {
			return i + 1
		}
	}
	return 0
}

func TestScript(t *testing.T) {
	assert.Equal(t, 1, Script('a'))
	assert.Equal(t, 1, Script('Z'))
	assert.Equal(t, 1, Script('é'))
	assert.Equal(t, 0, Script('1'))
	assert.Equal(t, 0, Script('日'))
	assert.Equal(t, 0, Script('한'))
	assert.Equal(t, Script('а'), Script('ж'), "one script")
	assert.NotEqual(t, Script('а'), Script('α'))
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r > 0x20000 && r < 0xe0000 {
			r = 0xe0000 // unassigned and ideographs: nothing to learn
		}
		if got, want := Script(r), scriptSlow(r); got != want {
			t.Fatalf("Script(%U) = %d, want %d", r, got, want)
		}
	}
}

func TestScriptAllocs(t *testing.T) {
	Script('ж') // the ranges are made once
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _ = Script('ж') + Script('日') }))
}

func TestASCII(t *testing.T) {
	tests := []struct {
		name  string
		r     rune
		ascii string
		ok    bool
	}{
		{"division slash", '\u2215', "/", true},
		{"fraction slash", '\u2044', "/", true},
		{"hyphen", '\u2010', "-", true},
		{"en dash", '\u2013', "-", true},
		{"minus sign", '\u2212', "-", true},
		{"ratio", '\u2236', ":", true},
		{"modifier letter colon", '\ua789', ":", true},
		{"triangular colon", '\u02d0', ":", true},
		{"Latin dental click", '\u01c0', "l", true},
		{"dotless i", '\u0131', "i", true},
		{"ae", 'æ', "ae", true},
		{"o with horn, by its own prototype", '\u01a1', "o'", true},
		{"Devanagari sign visarga, a spacing mark", '\u0903', ":", true},
		{"Telugu sign anusvara", '\u0c02', "o", true},
		{"Miao sign aspiration", '\U00016f51', "'", true},
		{"Old Italic numeral one, a number", '\U00010320', "l", true},
		{"ideographic number zero", '\u3007', "O", true},
		{"Katakana no, a letter of a script without look-alikes", '\u30ce', "/", true},
		{"Devanagari glottal stop", '\u097d', "?", true},
		{"fullwidth solidus, left to NFKC", '\uff0f', "", false},
		{"Arabic-Indic digit one, a digit", '\u0661', "", false},
		{"Mende Kikakui digit one, a number", '\U0001e8c7', "l", true},
		{"Cyrillic a, a letter that Latin tells", 'а', "", false},
		{"Cyrillic capital ze, a letter that Latin tells", 'З', "", false},
		{"e acute", 'é', "", false},
		{"ASCII slash", '/', "", false},
		{"Han", '日', "", false},
		{"katakana middle dot", '\u30fb', "", false},
		{"combining dot above", '\u0307', "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := ASCII(tt.r)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.ascii, s)
		})
	}
}

func TestSigns(t *testing.T) {
	checkTexts(t, signs[:], signEnds[:], signASCII)
	for _, r := range signs {
		assert.False(t, unicode.Is(unicode.Nd, r), "%U is not a decimal digit", r)
		_, letter := Latin(r)
		assert.False(t, letter, "%U is a sign, not a letter", r)
	}
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _, _ = ASCII('\u2215') }))
}
