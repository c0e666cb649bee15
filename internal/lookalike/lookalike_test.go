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
		latin byte
		ok    bool
	}{
		{"Cyrillic a", 'а', 'a', true},
		{"Cyrillic capital A", 'А', 'A', true},
		{"Cyrillic o", 'о', 'o', true},
		{"Cyrillic io, built on ie", 'ё', 'e', true},
		{"Greek omicron", 'ο', 'o', true},
		{"Greek alpha with tonos", 'ά', 'a', true},
		{"Armenian oh", 'օ', 'o', true},
		{"Cherokee A", 'Ꭺ', 'A', true},
		{"Latin a", 'a', 0, false},
		{"Latin e acute", 'é', 0, false},
		{"Cyrillic zhe", 'ж', 0, false},
		{"Greek lambda", 'λ', 0, false},
		{"Han", '日', 0, false},
		{"Hangul", '한', 0, false},
		{"mathematical bold a, of Common", '𝐚', 0, false},
		{"digit zero", '0', 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := Latin(tt.r)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.latin, c)
		})
	}
}

func TestTable(t *testing.T) {
	require.True(t, slices.IsSorted(letters[:]), "letters in order")
	require.Len(t, latin, len(letters))
	for i, r := range letters {
		assert.True(t, unicode.IsLetter(r), "%U is a letter", r)
		assert.Greater(t, Script(r), 1, "%U is of a script with look-alikes", r)
		c := latin[i]
		assert.True(t, 'a' <= c|0x20 && c|0x20 <= 'z', "%U looks like %q", r, c)
	}
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
		{"fullwidth solidus, left to NFKC", '\uff0f', "", false},
		{"Arabic-Indic digit one, a digit", '\u0661', "", false},
		{"Cyrillic a, a letter of another script", 'а', "", false},
		{"e acute", 'é', "", false},
		{"ASCII slash", '/', "", false},
		{"Han", '日', "", false},
		{"katakana middle dot", '\u30fb', "", false},
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
	require.True(t, slices.IsSorted(signs[:]), "signs in order")
	require.Len(t, signEnds, len(signs))
	require.Equal(t, len(signASCII), int(signEnds[len(signEnds)-1]))
	for _, r := range signs {
		assert.False(t, unicode.Is(unicode.Nd, r), "%U is not a decimal digit", r)
		assert.True(t, unicode.In(r, unicode.P, unicode.S, unicode.Latin, unicode.Common, unicode.Inherited), "%U", r)
		s, ok := ASCII(r)
		assert.True(t, ok && s != "", "%U", r)
		for i := range len(s) {
			assert.Less(t, s[i], byte(0x80), "%U looks like ASCII", r)
		}
	}
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { _, _ = ASCII('\u2215') }))
}
