// Command gen writes the table of package lookalike: the runes that look
// like ASCII text, by the data of Unicode's security mechanisms (UTS #39).
// It reads confusables.txt, whose path is its argument (gzipped when the
// name ends in .gz, as the pinned copy in ../testdata is), and the scripts
// and categories of the standard library's unicode package:
//
//	go run ./gen -o table.go testdata/confusables.txt.gz
//
// A rune looks like ASCII text when its skeleton is ASCII, the skeleton
// being UTS #39's: the NFD of the string, each rune replaced by its
// prototype in confusables.txt, and NFD again; or, where that is not
// ASCII, when its own prototype is, as for Ơ (O').
//
// The letters are those of the scripts other than Latin, Common and
// Inherited that have a letter whose base (the first rune of its
// canonical decomposition) has the skeleton of an ASCII letter: Cyrillic
// а, Greek ο and Armenian օ, and the precomposed letters built on them,
// such as Cyrillic ё. Every letter of those scripts whose base, or which
// itself, looks like other ASCII text is kept too, with that text:
// Cyrillic З (3) and Ы (bl). The word rules of the preview judge them.
// Look-alikes within Latin (l and I) and styled letters (mathematical
// alphanumerics) are not the table's concern.
//
// The signs are every other rune above ASCII that the unicode tables
// assign, that is not a decimal digit (category Nd), and that looks like
// ASCII text, of any category: the division slash ∕ and the fraction
// slash ⁄ (/), hyphens such as ‐ and – and the minus sign − (-), the ratio
// ∶ (:), the Latin dental click ǀ (l), the dotless ı (i), æ (ae), the
// Devanagari sign visarga ः (:), the Telugu anusvara ం (o), the Old Italic
// numeral one 𐌠 (l), the ideographic zero 〇 (O), Katakana ノ (/).
// Digits of other scripts stay out: ١ looks like l, yet an Arabic number
// is not to be quoted for it.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"go/format"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

func main() {
	out := flag.String("o", "table.go", "the file to write")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: gen [-o table.go] path/to/confusables.txt[.gz]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || flag.Arg(0) == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	if strings.HasSuffix(in, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
	}
	protos, version, err := parse(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	entries, scripts := lookalikes(protos)
	src, err := render(entries, scripts, asciiSigns(protos, entries), version, sha256.Sum256(data))
	if err != nil {
		return err
	}
	return os.WriteFile(out, src, 0o644)
}

// parse reads confusables.txt: each line "source ; prototype ; type # …"
// maps one code point to a string of them. It returns the mappings and the
// version the header states.
func parse(r io.Reader) (map[rune][]rune, string, error) {
	protos := make(map[rune][]rune)
	version, date := "", ""
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimPrefix(sc.Text(), "\ufeff")
		if v, ok := strings.CutPrefix(line, "# Version:"); ok {
			version = strings.TrimSpace(v)
		}
		if d, ok := strings.CutPrefix(line, "# Date:"); ok && version == "" {
			date = strings.TrimSpace(d)
		}
		line, _, _ = strings.Cut(line, "#")
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Split(line, ";")
		if len(fields) < 3 {
			return nil, "", fmt.Errorf("line %d: want three fields: %q", n, line)
		}
		src, err := codePoints(fields[0])
		if err != nil || len(src) != 1 {
			return nil, "", fmt.Errorf("line %d: bad source %q", n, fields[0])
		}
		proto, err := codePoints(fields[1])
		if err != nil || len(proto) == 0 {
			return nil, "", fmt.Errorf("line %d: bad prototype %q", n, fields[1])
		}
		protos[src[0]] = proto
	}
	if err := sc.Err(); err != nil {
		return nil, "", err
	}
	if version == "" || len(protos) == 0 {
		return nil, "", errors.New("not confusables.txt: no version or no mappings")
	}
	if date != "" {
		version += " (dated " + date + ")"
	}
	return protos, version, nil
}

// codePoints parses hexadecimal code points separated by spaces.
func codePoints(s string) ([]rune, error) {
	var rs []rune
	for _, f := range strings.Fields(s) {
		v, err := strconv.ParseUint(f, 16, 32)
		if err != nil || v > unicode.MaxRune {
			return nil, fmt.Errorf("bad code point %q", f)
		}
		rs = append(rs, rune(v))
	}
	return rs, nil
}

// skeleton returns the UTS #39 skeleton of s.
func skeleton(protos map[rune][]rune, s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if p, ok := protos[r]; ok {
			b.WriteString(string(p))
		} else {
			b.WriteRune(r)
		}
	}
	return norm.NFD.String(b.String())
}

// entry is one look-alike letter.
type entry struct {
	r      rune
	ascii  string // the ASCII text it looks like
	script string
}

// lookalikes returns the letters of scripts other than Latin, Common and
// Inherited that look like ASCII text, in order, and the names of their
// scripts, in order. Those scripts are the ones with a letter whose base
// has the skeleton of an ASCII letter, such as Cyrillic а. A letter of
// one of them whose base has another ASCII skeleton, such as Cyrillic З
// (3) or Ы (bl), or that itself looks like ASCII text (see asciiText), is
// kept too, with that text, so that the word rules judge every look-alike
// letter of such a script. A letter of any other script that looks like
// ASCII text, such as Katakana ノ (/), is a sign.
func lookalikes(protos map[rune][]rune) ([]entry, []string) {
	ascii := make(map[string]byte)
	for _, c := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" {
		sk := skeleton(protos, string(c))
		// Where two letters share a skeleton (I and l), keep the one
		// that is it.
		if prev, ok := ascii[sk]; !ok || sk == string(c) && string(prev) != sk {
			ascii[sk] = byte(c)
		}
	}
	names := make([]string, 0, len(unicode.Scripts))
	for name := range unicode.Scripts {
		if name != "Latin" && name != "Common" && name != "Inherited" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	used := make(map[string]bool)
	var entries []entry
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if !unicode.IsLetter(r) {
			continue
		}
		i := slices.IndexFunc(names, func(n string) bool { return unicode.Is(unicode.Scripts[n], r) })
		if i < 0 {
			continue
		}
		base := []rune(norm.NFD.String(string(r)))[0]
		sk := skeleton(protos, string(base))
		text, ok := "", false
		if c, letter := ascii[sk]; letter {
			text, ok = string(c), true
			used[names[i]] = true
		} else if isASCII(sk) {
			text, ok = sk, true
		} else {
			text, ok = asciiText(protos, r)
		}
		if ok {
			entries = append(entries, entry{r, text, names[i]})
		}
	}
	entries = slices.DeleteFunc(entries, func(e entry) bool { return !used[e.script] })
	var scripts []string
	for _, n := range names {
		if used[n] {
			scripts = append(scripts, n)
		}
	}
	return entries, scripts
}

// isASCII reports whether s is ASCII text, not empty.
func isASCII(s string) bool {
	return s != "" && strings.IndexFunc(s, func(c rune) bool { return c >= 0x80 }) < 0
}

// asciiText returns the ASCII text that r looks like, and whether it
// looks like any: r's skeleton, or where that is not ASCII, r's own
// prototype in confusables.txt, as for Ơ, whose skeleton is O and a horn
// but whose prototype is O'.
func asciiText(protos map[rune][]rune, r rune) (string, bool) {
	if sk := skeleton(protos, string(r)); isASCII(sk) {
		return sk, true
	}
	if p := string(protos[r]); isASCII(p) {
		return p, true
	}
	return "", false
}

// assigned reports whether the unicode tables give r a category. A rune
// that only a later Unicode assigns, such as the outlined digits of
// Unicode 16 (category Nd there), is not printable to Go, so the preview
// escapes it anyway, and its category is not known here.
func assigned(r rune) bool {
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs)
}

// sign is a rune that looks like ASCII text.
type sign struct {
	r     rune
	ascii string // the text it looks like
}

// asciiSigns returns, in order, the runes above ASCII that are not
// decimal digits and look like ASCII text (see asciiText), of any
// category (punctuation, symbols, marks, numbers, letters), but the
// letters of entries, which the word rules judge, and runes the unicode
// tables do not assign.
func asciiSigns(protos map[rune][]rune, entries []entry) []sign {
	letters := make(map[rune]bool, len(entries))
	for _, e := range entries {
		letters[e.r] = true
	}
	var signs []sign
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if unicode.Is(unicode.Nd, r) || letters[r] || !assigned(r) {
			continue
		}
		if text, ok := asciiText(protos, r); ok {
			signs = append(signs, sign{r, text})
		}
	}
	return signs
}

// render returns the Go source of the table.
func render(entries []entry, scripts []string, signs []sign, version string, sum [32]byte) ([]byte, error) {
	if len(scripts) > 62 {
		return nil, fmt.Errorf("%d scripts do not fit a uint64 set with Latin", len(scripts))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by \"go run ./gen\" from confusables.txt; DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "// Made from Unicode Security Mechanisms for UTS #39, confusables.txt\n")
	fmt.Fprintf(&b, "// version %s, sha256:\n// %x,\n", version, sum)
	fmt.Fprintf(&b, "// with the scripts and letters of Go's unicode package, Unicode %s.\n", unicode.Version)
	fmt.Fprintf(&b, "// Regenerate with go generate, which reads the copy gzipped in\n")
	fmt.Fprintf(&b, "// testdata/confusables.txt.gz.\n\n")
	fmt.Fprintf(&b, "package lookalike\n\nimport \"unicode\"\n\n")
	fmt.Fprintf(&b, "// ConfusablesVersion is the version of confusables.txt the table was\n// made from.\n")
	short, _, _ := strings.Cut(version, " ")
	fmt.Fprintf(&b, "const ConfusablesVersion = %q\n\n", short)
	fmt.Fprintf(&b, "// scripts are Latin and, in order, the scripts with letters in letters.\n")
	fmt.Fprintf(&b, "var scripts = [...]*unicode.RangeTable{\n\tunicode.Latin,\n")
	for _, s := range scripts {
		fmt.Fprintf(&b, "\tunicode.%s,\n", s)
	}
	fmt.Fprintf(&b, "}\n\n")
	fmt.Fprintf(&b, "// letters holds the %d look-alike letters, in order.\n", len(entries))
	runes := make([]rune, len(entries))
	texts := make([]string, len(entries))
	for i, e := range entries {
		runes[i], texts[i] = e.r, e.ascii
	}
	writeRunes(&b, "letters", runes)
	if err := writeTexts(&b, "letter", "letters", texts); err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "// signs holds the %d other runes that look like ASCII text, in order.\n", len(signs))
	runes = make([]rune, len(signs))
	texts = make([]string, len(signs))
	for i, sg := range signs {
		runes[i], texts[i] = sg.r, sg.ascii
	}
	writeRunes(&b, "signs", runes)
	if err := writeTexts(&b, "sign", "signs", texts); err != nil {
		return nil, err
	}
	return format.Source(b.Bytes())
}

// writeTexts writes the ASCII texts of the runes of the array of that
// name: the array prefix+"Ends" of where each ends, eight a line, and
// the constant prefix+"ASCII" that holds them one after the other.
func writeTexts(b *bytes.Buffer, prefix, name string, texts []string) error {
	fmt.Fprintf(b, "// %sEnds holds where the text of each of %s ends in\n// %sASCII, which holds them one after the other.\n", prefix, name, prefix)
	fmt.Fprintf(b, "var %sEnds = [...]uint16{", prefix)
	end := 0
	var all []byte
	for i, t := range texts {
		if i%8 == 0 {
			b.WriteString("\n\t")
		} else {
			b.WriteByte(' ')
		}
		end += len(t)
		all = append(all, t...)
		fmt.Fprintf(b, "%d,", end)
	}
	if end > 0xffff {
		return fmt.Errorf("%d bytes of %s texts do not fit uint16 ends", end, prefix)
	}
	fmt.Fprintf(b, "\n}\n\n")
	fmt.Fprintf(b, "// %sASCII holds the texts of %s.\n", prefix, name)
	fmt.Fprintf(b, "const %sASCII = ", prefix)
	for i := 0; i < len(all); i += 64 {
		if i > 0 {
			b.WriteString(" +\n\t")
		}
		fmt.Fprintf(b, "%q", all[i:min(i+64, len(all))])
	}
	b.WriteString("\n\n")
	return nil
}

// writeRunes writes the array var name holding runes, eight a line.
func writeRunes(b *bytes.Buffer, name string, runes []rune) {
	fmt.Fprintf(b, "var %s = [...]rune{", name)
	for i, r := range runes {
		if i%8 == 0 {
			b.WriteString("\n\t")
		} else {
			b.WriteByte(' ')
		}
		fmt.Fprintf(b, "0x%04x,", r)
	}
	fmt.Fprintf(b, "\n}\n\n")
}
