// Command docdensity prints how many lines of doc comment a package spends
// per exported declaration, to keep API docs short: what an identifier is
// and the rule a caller must know, with specifications in docs/*.md.
//
// It counts, in the non-test .go files of each package directory:
//
//   - each exported top-level func, and each exported method of an
//     exported type;
//   - each exported type; its lines are its doc comment and the comments
//     of its exported fields and interface methods;
//   - each const or var spec that declares an exported name; a grouped
//     block counts each such spec, and the block's own doc comment counts
//     once, toward the first of them.
//
// A line is a line of comment text, blank comment lines included. The
// average is the lines over the declarations. It prints and never fails.
//
// Usage, from the repository root:
//
//	go run -C internal/tools ./docdensity -repo ../.. [-top N] [dir ...]
//
// The dirs default to the root package, searchfetch and toolname; -top
// lists each package's N longest docs. With -wps it prints instead the mean
// words per sentence of each package's doc comment: its prose and list
// items, without headings, code blocks or doc links' brackets. A sentence
// ends at '.', '!' or '?' before a space or the end of a paragraph, or at
// the end of a list item; a word is a run of non-space characters.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	repo := flag.String("repo", ".", "the repository root; dirs are relative to it")
	top := flag.Int("top", 0, "list each package's `N` longest docs")
	wps := flag.Bool("wps", false, "print the mean words per sentence of each package doc")
	flag.Parse()
	dirs := flag.Args()
	if len(dirs) == 0 {
		dirs = []string{".", "searchfetch", "toolname"}
	}
	if *wps {
		fmt.Println("words per sentence of the package doc:")
		for _, dir := range dirs {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(*repo, dir)
			}
			words, sentences, err := packageDoc(dir)
			if err != nil {
				fmt.Fprintf(os.Stderr, "docdensity: %v\n", err)
				os.Exit(1)
			}
			avg := 0.0
			if sentences > 0 {
				avg = float64(words) / float64(sentences)
			}
			rel, err := filepath.Rel(*repo, dir)
			if err != nil || strings.HasPrefix(rel, "..") {
				rel = dir
			}
			fmt.Printf("  %-12s %5.1f  (%d words, %d sentences)\n", rel, avg, words, sentences)
		}
		return
	}
	fmt.Println("doc comment lines per exported declaration (about 3 is the aim):")
	for _, dir := range dirs {
		decls, err := count(filepath.Join(*repo, dir))
		if err != nil {
			fmt.Fprintf(os.Stderr, "docdensity: %v\n", err)
			os.Exit(1)
		}
		lines := 0
		for _, d := range decls {
			lines += d.lines
		}
		avg := 0.0
		if len(decls) > 0 {
			avg = float64(lines) / float64(len(decls))
		}
		fmt.Printf("  %-12s %5.1f  (%d lines, %d declarations)\n", dir, avg, lines, len(decls))
		sort.SliceStable(decls, func(i, j int) bool { return decls[i].lines > decls[j].lines })
		for _, d := range decls[:min(*top, len(decls))] {
			fmt.Printf("      %4d  %s\n", d.lines, d.name)
		}
	}
}

// decl is one counted declaration and its doc lines.
type decl struct {
	name  string
	lines int
}

// count returns the exported declarations of the package in dir: those of
// its .go files but the tests.
func count(dir string) ([]decl, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var decls []decl
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		decls = append(decls, fileDecls(f)...)
	}
	return decls, nil
}

// fileDecls returns the exported declarations of one file.
func fileDecls(f *ast.File) []decl {
	var decls []decl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil {
				recv := receiver(d.Recv.List[0].Type)
				if !ast.IsExported(recv) {
					continue
				}
				name = recv + "." + name
			}
			if d.Name.IsExported() {
				decls = append(decls, decl{name, lines(d.Doc)})
			}
		case *ast.GenDecl:
			groupDoc := lines(d.Doc)
			for _, spec := range d.Specs {
				var name string
				n := 0
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					name, n = s.Name.Name, lines(s.Doc)+memberLines(s.Type)
				case *ast.ValueSpec:
					for _, id := range s.Names {
						if id.IsExported() {
							name = id.Name
							break
						}
					}
					if name == "" {
						continue
					}
					n = lines(s.Doc)
				default:
					continue
				}
				decls = append(decls, decl{name, n + groupDoc})
				groupDoc = 0
			}
		}
	}
	return decls
}

// receiver returns the name of a method's receiver type.
func receiver(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.StarExpr:
		return receiver(t.X)
	case *ast.IndexExpr:
		return receiver(t.X)
	case *ast.IndexListExpr:
		return receiver(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// memberLines returns the comment lines of the exported fields of a
// struct type and the methods of an interface type.
func memberLines(t ast.Expr) int {
	var fields *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return 0
	}
	n := 0
	for _, f := range fields.List {
		exported := len(f.Names) == 0 // an embedded field or interface
		for _, id := range f.Names {
			exported = exported || id.IsExported()
		}
		if exported {
			n += lines(f.Doc) + lines(f.Comment)
		}
	}
	return n
}

// lines returns the lines of comment text in g.
func lines(g *ast.CommentGroup) int {
	if g == nil {
		return 0
	}
	n := 0
	for _, c := range g.List {
		n += strings.Count(c.Text, "\n") + 1
	}
	return n
}

// packageDoc returns the words and sentences of the package doc comment of
// the non-test .go files in dir.
func packageDoc(dir string) (words, sentences int, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return 0, 0, err
		}
		if f.Doc != nil {
			w, s := sentenceCount(f.Doc.Text())
			words, sentences = words+w, sentences+s
		}
	}
	return words, sentences, nil
}

// sentenceCount returns the words and sentences of a doc comment's text,
// leaving out headings, code blocks (indented lines) and the brackets of
// doc links.
func sentenceCount(text string) (words, sentences int) {
	var para []string
	flush := func() {
		w := strings.Fields(strings.NewReplacer("[", "", "]", "").Replace(strings.Join(para, " ")))
		para = para[:0]
		for i, word := range w {
			words++
			if i == len(w)-1 || strings.ContainsAny(word[len(word)-1:], ".!?") {
				sentences++
			}
		}
	}
	inList := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		indented := trimmed != line
		switch {
		case trimmed == "" || strings.HasPrefix(line, "# "):
			flush()
			inList = false
		case indented && (strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ")):
			flush()
			para = append(para, trimmed[2:])
			inList = true
		case indented && inList && !strings.HasPrefix(line, "\t"):
			para = append(para, trimmed)
		case indented:
			// a code block
		default:
			para = append(para, trimmed)
		}
	}
	flush()
	return words, sentences
}
