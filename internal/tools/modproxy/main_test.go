package main

import (
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
	v, err := releaseVersion(repoWith(t, good))
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
			_, err := releaseVersion(repoWith(t, mods))
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
