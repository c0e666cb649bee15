// Package lookalike tells which runes look like ASCII text: the letters
// of scripts other than Latin that look like ASCII letters or text, which
// of those scripts a letter is of, and the signs, every other rune that
// looks like ASCII text whatever its category. The preview's quoting of
// ids reads it, and so does its checker in internal/testkit/idlook, so
// that both judge by one table.
//
// The table is generated from Unicode's confusables data (UTS #39) by the
// program in gen, which documents what it keeps, from the pinned copy of
// confusables.txt gzipped in testdata. Scripts and categories come from
// the standard library's unicode tables.
package lookalike

//go:generate go run ./gen -o table.go testdata/confusables.txt.gz

import (
	"slices"
	"sync"
)

// Latin returns the ASCII text that the letter r of a script other than
// Latin looks like, as Cyrillic 'а' looks like "a" and 'З' like "3", and
// whether it looks like any. Letters built on such a letter and combining
// marks, as Cyrillic 'ё', look like its text too. These letters are
// judged word by word, by the scripts of the word, where a sign is judged
// alone (see [ASCII]). It does not allocate.
func Latin(r rune) (string, bool) {
	return lookup(letters[:], letterEnds[:], letterASCII, r)
}

// ASCII returns the ASCII text that the rune r above ASCII looks like,
// and whether it looks like any, for a rune that is not a decimal digit
// (category Nd) nor a letter that [Latin] tells, of any category: the
// division slash ∕ and the fraction slash ⁄ look like "/", the hyphen ‐,
// the en dash – and the minus sign − like "-", the ratio ∶ and the
// Devanagari sign visarga ः like ":", the Latin dental click ǀ and the Old
// Italic numeral one 𐌠 like "l", the dotless ı like "i", æ like "ae",
// Katakana ノ like "/". The text is r's skeleton in the sense of UTS #39,
// or r's prototype where only that is ASCII. Digits of other scripts
// (Arabic ١) are not signs: they are read as numbers. It does not
// allocate.
func ASCII(r rune) (string, bool) {
	return lookup(signs[:], signEnds[:], signASCII, r)
}

// lookup returns the text of r in a table: runes in order, where the
// text of each ends in all, which holds them one after the other.
func lookup(runes []rune, ends []uint16, all string, r rune) (string, bool) {
	i, ok := slices.BinarySearch(runes, r)
	if !ok {
		return "", false
	}
	start := 0
	if i > 0 {
		start = int(ends[i-1])
	}
	return all[start:ends[i]], true
}

// Scripts is the number of scripts that [Script] tells apart: Latin and
// every script with letters that look like Latin ones.
const Scripts = len(scripts)

// Script returns 1 for a rune of the Latin script, 2 up to [Scripts] for
// one of a script that has letters looking like Latin ones (Cyrillic,
// Greek, Armenian, Cherokee and more), and 0 for any other rune, such as
// one of Han, Hangul or Common. It does not allocate.
func Script(r rune) int {
	if r < 0x80 {
		if 'a' <= r|0x20 && r|0x20 <= 'z' {
			return 1
		}
		return 0
	}
	rs := scriptRanges()
	lo, hi := 0, len(rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch sr := &rs[m]; {
		case sr.hi < r:
			lo = m + 1
		case sr.lo > r:
			hi = m
		default:
			return int(sr.script)
		}
	}
	return 0
}

// scriptRange is a run of code points of one script: script is the
// index of its table in scripts, plus 1.
type scriptRange struct {
	lo, hi rune
	script uint8
}

// scriptRanges returns the runs of code points of the scripts, in order,
// made once from the unicode tables, so that Script searches one list
// rather than every table.
var scriptRanges = sync.OnceValue(func() []scriptRange {
	var rs []scriptRange
	add := func(lo, hi, stride uint32, script int) {
		if stride == 1 {
			rs = append(rs, scriptRange{rune(lo), rune(hi), uint8(script)})
			return
		}
		for c := lo; c <= hi; c += stride {
			rs = append(rs, scriptRange{rune(c), rune(c), uint8(script)})
		}
	}
	for i, t := range scripts {
		for _, r := range t.R16 {
			add(uint32(r.Lo), uint32(r.Hi), uint32(r.Stride), i+1)
		}
		for _, r := range t.R32 {
			add(r.Lo, r.Hi, r.Stride, i+1)
		}
	}
	slices.SortFunc(rs, func(a, b scriptRange) int { return int(a.lo - b.lo) })
	return rs
})
