package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoWith writes a repository whose consumer modules require the
// repository's modules as the go.mod files given.
func repoWith(t *testing.T, gomods map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for sub, content := range gomods {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "go.mod"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReleaseVersion(t *testing.T) {
	good := map[string]string{
		"gosdk":    "module github.com/mcpid/mcpid/gosdk\nrequire github.com/mcpid/mcpid v0.1.0\nreplace github.com/mcpid/mcpid => ../\n",
		"mcpgo":    "module github.com/mcpid/mcpid/mcpgo\nrequire github.com/mcpid/mcpid v0.1.0\n",
		"examples": "module github.com/mcpid/mcpid/examples\nrequire (\n\tgithub.com/mcpid/mcpid v0.1.0\n\tgithub.com/mcpid/mcpid/gosdk v0.1.0\n\tgithub.com/mcpid/mcpid/mcpgo v0.1.0\n)\n",
	}
	nested := []string{"gosdk", "mcpgo", "examples"}
	v, err := releaseVersion(repoWith(t, good), nested)
	if err != nil || v != "v0.1.0" {
		t.Fatalf("releaseVersion = %q, %v; want v0.1.0", v, err)
	}
	for name, tc := range map[string]struct{ sub, gomod, want string }{
		"zero pseudo-version": {"gosdk", "module github.com/mcpid/mcpid/gosdk\nrequire github.com/mcpid/mcpid v0.0.0-00010101000000-000000000000\n", "pseudo-version"},
		"another version":     {"examples", "module github.com/mcpid/mcpid/examples\nrequire (\n\tgithub.com/mcpid/mcpid v0.1.0\n\tgithub.com/mcpid/mcpid/gosdk v0.2.0\n)\n", "requires github.com/mcpid/mcpid/gosdk at v0.2.0"},
	} {
		t.Run(name, func(t *testing.T) {
			mods := map[string]string{}
			for k, v := range good {
				mods[k] = v
			}
			mods[tc.sub] = tc.gomod
			_, err := releaseVersion(repoWith(t, mods), nested)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), filepath.Join(tc.sub, "go.mod")) {
				t.Fatalf("releaseVersion error %v; want one naming %s/go.mod and %q", err, tc.sub, tc.want)
			}
		})
	}
}

func TestHolds(t *testing.T) {
	src := "import (\n\t\"context\"\n\t\"fmt\"\n\n\t\"a\"\n\t\"b\"\n)\n\nfunc f() {\n\tx := 1    // one\n\t_ = x\n}\n"
	for snippet, want := range map[string]bool{
		"import (\n\t\"context\"\n\n\t\"a\"\n\t\"b\"\n)": true,
		"x := 1 // one":                 true,
		"x := 2":                        false,
		"\"a\"\n\"context\"":            false,
		"func f() {\nx := 1 // one\n}":  false, // a line between that the snippet lacks
		"import (\n\t\"b\"\n\t\"a\"\n)": false,
	} {
		if got := holds(src, snippet); got != want {
			t.Errorf("holds(%q) = %v, want %v", snippet, got, want)
		}
	}
}

func TestReadModules(t *testing.T) {
	gomods := map[string]string{
		".":     "module github.com/mcpid/mcpid\n",
		"a":     "module github.com/mcpid/mcpid/a\n",
		"b/c":   "module github.com/mcpid/mcpid/b/c\n",
		"tools": "module github.com/mcpid/mcpid/tools\n",
		"anon":  "go 1.24\n",
	}
	for name, tc := range map[string]struct {
		list string
		want string // the modules read, as dir:path:release, or the error's text
	}{
		"release order, comments and blank lines": {
			list: "# the modules\n. release\n\na   release # a comment\n  b/c release\ntools test\n",
			want: ".:github.com/mcpid/mcpid:true a:github.com/mcpid/mcpid/a:true b/c:github.com/mcpid/mcpid/b/c:true tools:github.com/mcpid/mcpid/tools:false",
		},
		"another kind":       {list: ". release\na publish\n", want: "modules.txt:2: want a directory and release or test"},
		"no kind":            {list: ". release\na\n", want: "modules.txt:2: want a directory and release or test"},
		"listed twice":       {list: ". release\na release\n./a test\n", want: "modules.txt:3: a is listed twice"},
		"no go.mod":          {list: ". release\nmissing release\n", want: "modules.txt:2: open"},
		"no module declared": {list: ". release\nanon test\n", want: "declares no module"},
		"root not first":     {list: "a release\n. release\n", want: "modules.txt:1: the first module must be the root"},
		"root not released":  {list: ". test\n", want: "modules.txt:1: the first module must be the root"},
		"nothing listed":     {list: "# nothing\n", want: "lists no module"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := repoWith(t, gomods)
			if err := os.WriteFile(filepath.Join(dir, modulesFile), []byte(tc.list), 0o644); err != nil {
				t.Fatal(err)
			}
			mods, err := readModules(dir)
			var got string
			if err != nil {
				got = err.Error()
				if !strings.Contains(got, tc.want) {
					t.Fatalf("readModules error %q; want one holding %q", got, tc.want)
				}
				return
			}
			var parts []string
			for _, m := range mods {
				parts = append(parts, fmt.Sprintf("%s:%s:%v", m.dir, m.path, m.release))
			}
			if got = strings.Join(parts, " "); got != tc.want {
				t.Fatalf("readModules = %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestRepositoryModules reads the repository's own list: every module it
// names exists and declares the path its directory gives it.
func TestRepositoryModules(t *testing.T) {
	mods, err := readModules("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mods {
		if m.path != rootPath && m.path != rootPath+"/"+filepath.ToSlash(m.dir) {
			t.Errorf("%s declares module %s; want %s/%s", m.dir, m.path, rootPath, m.dir)
		}
	}
}

// TestRepositorySnippets: the consumer is made of the snippets of every
// file of snippetFiles, docs/tools.md's OpenTelemetry lines among them,
// and holds each of them.
func TestRepositorySnippets(t *testing.T) {
	got, err := snippets("../../..")
	if err != nil {
		t.Fatal(err)
	}
	otel := 0
	for _, s := range got {
		if strings.Contains(s, "func onCallOTel(") {
			otel++
		}
	}
	if otel != 1 {
		t.Fatalf("%d snippets define onCallOTel; want docs/tools.md's one", otel)
	}
	if err := writeConsumer("../../..", t.TempDir()); err != nil {
		t.Fatal(err)
	}
}

// TestExtraRequires: the consumer gets the OpenTelemetry API at the
// version the repository requires, and a module nobody requires is an
// error that says where to require it.
func TestExtraRequires(t *testing.T) {
	mods, err := readModules("../../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := extraRequires("../../..", mods)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(extraModules) || !strings.HasPrefix(got[0], "go.opentelemetry.io/otel@v1.") {
		t.Fatalf("extraRequires = %v; want each of %v at a v1 version", got, extraModules)
	}
	_, err = extraRequires(repoWith(t, map[string]string{".": "module github.com/mcpid/mcpid\n"}), []repoModule{{dir: ".", path: rootPath, release: true}})
	if err == nil || !strings.Contains(err.Error(), "require it in the examples module") {
		t.Fatalf("extraRequires without a requirement: %v", err)
	}
}
