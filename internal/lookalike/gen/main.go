// Command gen writes the table of package lookalike: the letters of other
// scripts that look like an ASCII letter, by the data of Unicode's
// security mechanisms (UTS #39). It reads confusables.txt, whose path is
// its argument (gzipped when the name ends in .gz, as the pinned copy in
// ../testdata is), and the scripts of the standard library's unicode
// package:
//
//	go run ./gen -o table.go testdata/confusables.txt.gz
//
// A letter r looks like the ASCII letter c when the skeleton of r's base
// (the first rune of its canonical decomposition) is the skeleton of c,
// the skeleton being UTS #39's: the NFD of the string, each rune replaced
// by its prototype in confusables.txt, and NFD again. So Cyrillic а, Greek
// ο and Armenian օ are in the table, and so are the precomposed letters
// built on them, such as Cyrillic ё. Only letters of a script other than
// Latin, Common and Inherited are kept: look-alikes within Latin (l and
// I) and styled letters (mathematical alphanumerics) are not the table's
// concern.
//
// It also writes the signs: every rune above ASCII that is not a decimal
// digit (category Nd) and is a punctuation mark or a symbol (category P
// or S) or of the Latin, Common or Inherited script, whose skeleton is
// ASCII, with that skeleton: the division slash ∕ and the fraction slash
// ⁄ (/), hyphens such as ‐ and – and the minus sign − (-), the ratio ∶
// (:), the Latin dental click ǀ (l), the dotless ı (i), æ (ae). Digits of
// other scripts stay out: ١ looks like l, yet an Arabic number is not to
// be quoted for it. Letters of other scripts are the first table's.
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
	src, err := render(entries, scripts, asciiSigns(protos), version, sha256.Sum256(data))
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
	latin  byte // the ASCII letter it looks like
	script string
}

// lookalikes returns the letters of scripts other than Latin, Common and
// Inherited whose base has the skeleton of an ASCII letter, in order, and
// the names of their scripts, in order.
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
	var entries []entry
	used := make(map[string]bool)
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if !unicode.IsLetter(r) {
			continue
		}
		i := slices.IndexFunc(names, func(n string) bool { return unicode.Is(unicode.Scripts[n], r) })
		if i < 0 {
			continue
		}
		base := []rune(norm.NFD.String(string(r)))[0]
		c, ok := ascii[skeleton(protos, string(base))]
		if !ok {
			continue
		}
		entries = append(entries, entry{r, c, names[i]})
		used[names[i]] = true
	}
	var scripts []string
	for _, n := range names {
		if used[n] {
			scripts = append(scripts, n)
		}
	}
	return entries, scripts
}

// sign is a rune whose skeleton is ASCII.
type sign struct {
	r     rune
	ascii string // its skeleton
}

// asciiSigns returns, in order, the runes above ASCII that are not
// decimal digits, are of category P or S or of the Latin, Common or
// Inherited script, and whose skeleton is ASCII.
func asciiSigns(protos map[rune][]rune) []sign {
	var signs []sign
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if unicode.Is(unicode.Nd, r) ||
			!unicode.In(r, unicode.P, unicode.S, unicode.Latin, unicode.Common, unicode.Inherited) {
			continue
		}
		sk := skeleton(protos, string(r))
		if sk == "" || strings.IndexFunc(sk, func(c rune) bool { return c >= 0x80 }) >= 0 {
			continue
		}
		signs = append(signs, sign{r, sk})
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
	for i, e := range entries {
		runes[i] = e.r
	}
	writeRunes(&b, "letters", runes)
	fmt.Fprintf(&b, "// latin holds the ASCII letter that each of letters looks like.\n")
	fmt.Fprintf(&b, "const latin = ")
	for i := 0; i < len(entries); i += 64 {
		if i > 0 {
			b.WriteString(" +\n\t")
		}
		var s []byte
		for _, e := range entries[i:min(i+64, len(entries))] {
			s = append(s, e.latin)
		}
		fmt.Fprintf(&b, "%q", s)
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "// signs holds the %d runes whose skeleton is ASCII, in order.\n", len(signs))
	runes = make([]rune, len(signs))
	for i, sg := range signs {
		runes[i] = sg.r
	}
	writeRunes(&b, "signs", runes)
	fmt.Fprintf(&b, "// signEnds holds where the skeleton of each of signs ends in\n// signASCII, which holds them one after the other.\n")
	fmt.Fprintf(&b, "var signEnds = [...]uint16{")
	end := 0
	var all []byte
	for i, sg := range signs {
		if i%8 == 0 {
			b.WriteString("\n\t")
		} else {
			b.WriteByte(' ')
		}
		end += len(sg.ascii)
		all = append(all, sg.ascii...)
		fmt.Fprintf(&b, "%d,", end)
	}
	if end > 0xffff {
		return nil, fmt.Errorf("%d bytes of skeletons do not fit uint16 ends", end)
	}
	fmt.Fprintf(&b, "\n}\n\n")
	fmt.Fprintf(&b, "// signASCII holds the skeletons of signs.\n")
	fmt.Fprintf(&b, "const signASCII = ")
	for i := 0; i < len(all); i += 64 {
		if i > 0 {
			b.WriteString(" +\n\t")
		}
		fmt.Fprintf(&b, "%q", all[i:min(i+64, len(all))])
	}
	b.WriteString("\n")
	return format.Source(b.Bytes())
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
