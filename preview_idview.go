package mcpid

import (
	"math/bits"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/mcpid/mcpid/internal/lookalike"
)

// invisible reports whether the printable rune r shows nothing a person
// can tell apart from its absence or from a space: a default-ignorable
// code point such as U+034F COMBINING GRAPHEME JOINER or a Hangul filler
// (U+115F, U+1160, U+3164, U+FFA0), a variation selector, or U+2800
// BRAILLE PATTERN BLANK. Two ids that differ only in such runes would look
// the same, so an id holding one is quoted with it escaped.
func invisible(r rune) bool {
	return r == 0x2800 || unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// idView decides, rune by rune in order, which printable runes of an id
// are shown as they are; [appendQuotedID] escapes the others as \uXXXX
// and an id holding one is quoted, so that two different shown ids never
// look the same to a person by these classes:
//
//   - Invisible runes (see [invisible]).
//   - Compatibility characters, which are not their own NFKC form (see
//     [ownNFKC]): "\uff0fs" beside "/s", "\ufb01le" beside file.
//   - Signs that look like ASCII text (see lookalike.ASCII): runes of any
//     category but decimal digits (punctuation, symbols, marks, numbers,
//     and letters of scripts without Latin look-alikes) whose UTS #39
//     skeleton or prototype is ASCII. So "c\u2215s:r" (a division slash)
//     beside c/s:r, "\u01c0og" beside log, "a\u2010b" (a hyphen) beside
//     a-b, "c/:orders\u0903o1" (a Devanagari visarga) beside
//     c/:orders:o1, "\U00010320og" (an Old Italic numeral) beside log.
//     Digits of other scripts (Arabic ١٠) are shown: they are read as
//     numbers.
//   - A combining mark above (class 230) that follows a soft-dotted
//     letter (i, j and the like) with no rune of class 0 or 230 between,
//     as Unicode's casing defines it (After_Soft_Dotted): the mark takes
//     the place of the letter's dot, so "i\u0307" shows as i. See
//     [dotAbove].
//   - In an id that is not in NFC, every combining mark and every rune
//     that NFC changes or composes with what precedes it: so "e\u0301"
//     (NFD, as macOS writes file names) shows its U+0301 escaped beside the
//     bare "é", and the Kelvin sign U+212A and the Ångström sign U+212B
//     show escaped beside K and Å.
//   - In a word (a maximal run of letters and combining marks) that mixes
//     letters of two of the scripts with Latin look-alikes (Latin itself,
//     Cyrillic, Greek, Armenian, Cherokee and the other scripts of package
//     lookalike), every letter of those scripts but Latin: "p\u0430ypal".
//     Other mixes, such as Latin with Han, kana or Hangul, are shown;
//     combining marks have no script.
//   - In a word whose letters of such a script other than Latin all look
//     like ASCII text (a whole-script confusable in the sense of UTS #39),
//     those letters: a lone Cyrillic "\u0430" or "\u0417" (like 3), or
//     "\u0430" beside Han. A word with a letter of that script that has no
//     such look-alike, such as Cyrillic "жара", is shown.
//
// Which letters and signs look like Latin ones comes from package
// lookalike, a table generated from Unicode's confusables data.
// Look-alikes made only of ASCII (l, I and 1; rn and m) are not covered.
// An all-ASCII id never reaches idView: ASCII is in NFKC and Latin.
type idView struct {
	s       string
	skip    bool // only length matters: NFC and words are not looked at
	checked bool // nfc is known
	nfc     bool // s is in NFC
	read    int  // the bytes of s read
	// The word that ends at wordEnd shows its letters of a script with
	// Latin look-alikes but Latin (hideForeign), or its look-alike letters
	// (hideLookalikes), or all of them.
	wordEnd                     int
	hideForeign, hideLookalikes bool
}

// shows reports whether the printable rune r at s[i:i+size] is shown as it
// is. Calls come in the order of the runes; ASCII runes may be skipped.
func (v *idView) shows(i int, r rune, size int) bool {
	if invisible(r) {
		return false
	}
	if v.skip {
		return true
	}
	if !ownNFKC(v.s[i : i+size]) {
		return false
	}
	if _, ok := lookalike.ASCII(r); ok || dotAbove(v.s, i) {
		return false
	}
	if !v.checked {
		v.checked, v.nfc, v.read = true, isNFC(v.s), len(v.s)
	}
	if !v.nfc && (unicode.Is(unicode.M, r) || !norm.NFC.PropertiesString(v.s[i:]).BoundaryBefore() ||
		norm.NFC.QuickSpanString(v.s[i:i+size]) < size) {
		return false
	}
	if !unicode.IsLetter(r) {
		return true
	}
	if i >= v.wordEnd {
		v.judgeWord(i)
	}
	switch {
	case v.hideForeign:
		return lookalike.Script(r) <= 1
	case v.hideLookalikes:
		_, ok := lookalike.Latin(r)
		return !ok
	}
	return true
}

// dotAbove reports whether the rune at s[i:] is a combining mark above
// (canonical combining class 230) after a soft-dotted letter, such as i
// or j, with no rune of class 0 or 230 between: Unicode's After_Soft_Dotted
// condition, under which the mark replaces the letter's dot, so that
// "i\u0307" shows as i. It reads back only over the marks between.
func dotAbove(s string, i int) bool {
	if norm.NFD.PropertiesString(s[i:]).CCC() != 230 {
		return false
	}
	for j := i; j > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		switch norm.NFD.PropertiesString(s[j:]).CCC() {
		case 0:
			return unicode.Is(unicode.Soft_Dotted, r)
		case 230:
			return false
		}
	}
	return false
}

// ownNFKC reports whether the rune s is its own NFKC form: not a
// compatibility character such as the fullwidth ／, the ligature ﬁ, the
// mathematical bold 𝐚, the Roman numeral Ⅰ, a superscript, a circled
// number or a halfwidth katakana, each of which NFKC folds to the rune it
// looks like. A rune that the quick check cannot decide alone (a
// combining mark that may compose with what precedes it) has no
// decomposition of its own, so the quick check and the rune's
// decomposition decide it exactly, without allocating.
func ownNFKC(s string) bool {
	return norm.NFKC.QuickSpanString(s) == len(s) || len(norm.NFKC.PropertiesString(s).Decomposition()) == 0
}

// isNFC reports whether s is in NFC, as norm.NFC.IsNormalString does,
// without allocating once warm: the rare id that the quick check cannot
// decide is normalized segment by segment by a pooled norm.Iter.
func isNFC(s string) bool {
	if norm.NFC.QuickSpanString(s) == len(s) {
		return true
	}
	it := nfcIters.Get().(*norm.Iter)
	defer nfcIters.Put(it)
	it.InitString(norm.NFC, s)
	for i := 0; !it.Done(); {
		seg := it.Next()
		if len(seg) > len(s)-i || string(seg) != s[i:i+len(seg)] {
			return false
		}
		i += len(seg)
	}
	return true
}

// nfcIters holds the iterators of isNFC.
var nfcIters = sync.Pool{New: func() any { return new(norm.Iter) }}

// inWord reports whether r belongs to a word: a letter or a combining
// mark.
func inWord(r rune) bool { return unicode.IsLetter(r) || unicode.Is(unicode.M, r) }

// judgeWord finds the word around s[i] and decides which of its letters
// are shown. The runes of the word before i are ASCII letters, marks, or
// letters that shows hid for their own sake, which it passed over; the
// word starts after the last one judged.
func (v *idView) judgeWord(i int) {
	start := i
	for start > v.wordEnd {
		r, size := utf8.DecodeLastRuneInString(v.s[:start])
		if !inWord(r) {
			break
		}
		start -= size
	}
	end := start
	var scripts uint64 // the set of scripts with Latin look-alikes
	lookalikes, others := false, false
	for end < len(v.s) {
		r, size := utf8.DecodeRuneInString(v.s[end:])
		letter := unicode.IsLetter(r)
		if !letter && !unicode.Is(unicode.M, r) {
			break
		}
		end += size
		if !letter {
			continue
		}
		sc := lookalike.Script(r)
		if sc == 0 {
			continue
		}
		scripts |= 1 << sc
		if sc > 1 {
			_, ok := lookalike.Latin(r)
			lookalikes = lookalikes || ok
			others = others || !ok
		}
	}
	v.wordEnd = end
	v.hideForeign = bits.OnesCount64(scripts) > 1
	v.hideLookalikes = lookalikes && !others
}
