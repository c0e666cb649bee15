// Package idlook is the plain reference of how a preview shows an id,
// written from the preview's rule rune by rune, and of what a person sees of it:
// two different ids shown in one preview never look the same to a person
// by the classes the rule covers. The preview's checker
// (internal/testkit/previewcheck) and the tests of package mcpid read it.
// It is for tests only.
package idlook

import (
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpid/mcpid/internal/lookalike"
)

// invisible reports whether r shows nothing: a default-ignorable code
// point (Hangul fillers among them), a variation selector or the blank
// braille pattern.
func invisible(r rune) bool {
	return r == 0x2800 || unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// lookalikeScripts returns the names of Latin and of every script that
// has a letter in the look-alike table, found by asking the table about
// every letter.
var lookalikeScripts = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{"Latin": true}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if _, ok := lookalike.Latin(r); ok {
			set[scriptName(r)] = true
		}
	}
	return set
})

// scriptName returns the name of r's script in the unicode tables, or "".
func scriptName(r rune) string {
	for name, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			return name
		}
	}
	return ""
}

// lookalikeScript returns the name of r's script when it is one of
// lookalikeScripts, or "".
func lookalikeScript(r rune) string {
	if r < 0x80 {
		if unicode.IsLetter(r) {
			return "Latin"
		}
		return ""
	}
	for name := range lookalikeScripts() {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return ""
}

// hiddenRunes returns, for each rune of the valid UTF-8 id, whether the
// preview must escape it as \uXXXX.
func hiddenRunes(id string) []bool {
	rs := []rune(id)
	hidden := make([]bool, len(rs))
	nfc := norm.NFC.IsNormalString(id)
	for i, r := range rs {
		s := string(r)
		_, sign := lookalike.ASCII(r)
		hidden[i] = !unicode.IsPrint(r) || invisible(r) || norm.NFKC.String(s) != s || sign || afterSoftDotted(rs, i) ||
			!nfc && (unicode.Is(unicode.M, r) || !norm.NFC.PropertiesString(s).BoundaryBefore() || norm.NFC.String(s) != s)
	}
	inWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.Is(unicode.M, r) }
	for start := 0; start < len(rs); {
		if !inWord(rs[start]) {
			start++
			continue
		}
		end := start
		for end < len(rs) && inWord(rs[end]) {
			end++
		}
		hideWord(rs[start:end], hidden[start:end])
		start = end
	}
	return hidden
}

// afterSoftDotted reports whether rs[i] is a combining mark above
// (combining class 230) that Unicode's After_Soft_Dotted condition puts
// on a soft-dotted letter: the last rune before it of class 0 or 230 is
// of class 0 and soft-dotted, as i and j are.
func afterSoftDotted(rs []rune, i int) bool {
	ccc := func(r rune) uint8 { return norm.NFD.PropertiesString(string(r)).CCC() }
	if ccc(rs[i]) != 230 {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		if c := ccc(rs[j]); c == 0 || c == 230 {
			return c == 0 && unicode.Is(unicode.Soft_Dotted, rs[j])
		}
	}
	return false
}

// hideWord marks the letters of word that the preview escapes: in a word
// that mixes scripts with Latin look-alikes, the letters of those scripts
// but Latin; in a word of one such script other than Latin whose letters
// of it all look like ASCII text, those letters.
func hideWord(word []rune, hidden []bool) {
	scripts := map[string]bool{}
	lookalikes, others := false, false
	for _, r := range word {
		name := lookalikeScript(r)
		if !unicode.IsLetter(r) || name == "" {
			continue
		}
		scripts[name] = true
		if name != "Latin" {
			_, ok := lookalike.Latin(r)
			lookalikes = lookalikes || ok
			others = others || !ok
		}
	}
	for i, r := range word {
		if !unicode.IsLetter(r) {
			continue
		}
		_, look := lookalike.Latin(r)
		name := lookalikeScript(r)
		switch {
		case len(scripts) > 1:
			hidden[i] = hidden[i] || name != "Latin" && name != ""
		case lookalikes && !others:
			hidden[i] = hidden[i] || look
		}
	}
}

// QuoteID returns the JSON string literal that shows the valid UTF-8 id:
// '"' and '\' escaped with '\', and every rune that hiddenRunes marks as
// \uXXXX, lower-case, a surrogate pair above U+FFFF.
func QuoteID(id string) string {
	hidden := hiddenRunes(id)
	var b strings.Builder
	b.WriteByte('"')
	for i, r := range []rune(id) {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case !hidden[i]:
			b.WriteRune(r)
		case r > 0xffff:
			r1, r2 := utf16Pair(r)
			b.WriteString(escapeU(r1) + escapeU(r2))
		default:
			b.WriteString(escapeU(r))
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ShownID returns the text that shows the valid UTF-8 id in the text form:
// the id itself when it is not empty, holds no space, '"' or '\', and no
// rune that must be escaped, or else QuoteID(id).
func ShownID(id string) string {
	lit := QuoteID(id)
	if id != "" && lit == `"`+id+`"` && !strings.ContainsRune(id, ' ') {
		return id
	}
	return lit
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + r>>10, 0xdc00 + r&0x3ff
}

func escapeU(r rune) string {
	const hex = "0123456789abcdef"
	return string([]byte{'\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf]})
}

// Look returns what a person sees of shown text, folded by the classes
// the rule covers: the equivalents of NFKC (decomposed accents, the Kelvin
// and Ångström signs, fullwidth forms, ligatures, mathematical letters,
// Roman numerals) made one, invisible runes dropped, each letter of
// another script that looks like ASCII text (Cyrillic а like a, З like 3)
// and each sign that does (a division slash, a hyphen, the dental click
// ǀ, a Devanagari visarga) read as that text, and a dot above on a
// soft-dotted letter (i and U+0307) read as the letter's own dot. Two
// shown ids with the same Look look the same.
func Look(shown string) string {
	var b strings.Builder
	rs := []rune(norm.NFKD.String(shown))
	for i, r := range rs {
		if c, ok := lookalike.Latin(r); ok {
			b.WriteString(c)
		} else if s, ok := lookalike.ASCII(r); ok {
			b.WriteString(s)
		} else if !invisible(r) && !(r == '\u0307' && afterSoftDotted(rs, i)) {
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}
