package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// clone returns a fresh clone of the repository, so that the release
// script runs where it can change nothing that matters.
func clone(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("git", "clone", "-q", repo, dir).CombinedOutput(); err != nil {
		t.Skipf("no git clone of %s here: %v\n%s", repo, err, out)
	}
	return dir
}

// release runs release.sh in dir with args and returns its output and
// whether it succeeded.
func release(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("./release.sh", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RELEASE_CHECK=true",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func TestReleaseScript(t *testing.T) {
	dir := clone(t)
	before, _ := exec.Command("git", "-C", dir, "tag").Output()

	mods, err := readModules(dir)
	if err != nil {
		t.Fatal(err)
	}
	// tags are the tags the release makes, in the order of modules.txt.
	var tags []string
	for _, m := range mods {
		switch {
		case !m.release:
		case m.dir == ".":
			tags = append(tags, "v9.8.7")
		default:
			tags = append(tags, m.dir+"/v9.8.7")
		}
	}
	if len(tags) < 3 || tags[1] != "gosdk/v9.8.7" {
		t.Fatalf("modules.txt releases %q; want the root, gosdk, ...", tags)
	}

	out, ok := release(t, dir, "v9.8.7", "--dry-run")
	if !ok {
		t.Fatalf("dry run failed:\n%s", out)
	}
	want := []string{"would run: true", "gosdk mod edit -require=github.com/mcpid/mcpid@v9.8.7"}
	for _, tag := range tags {
		want = append(want, "would run: git tag -a "+tag+" ")
	}
	want = append(want, "git push origin HEAD "+strings.Join(tags, " "))
	at := 0
	for _, w := range want {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("the dry run does not say %q (after what came before):\n%s", w, out)
		}
		at += i
	}
	if tags, _ := exec.Command("git", "-C", dir, "tag").Output(); string(tags) != string(before) {
		t.Fatalf("the dry run tagged: %s", tags)
	}

	for name, args := range map[string][]string{"bad version": {"9.8.7"}, "bad flag": {"v9.8.7", "--now"}} {
		if out, ok := release(t, dir, args...); ok {
			t.Errorf("%s: accepted:\n%s", name, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, ok := release(t, dir, "v9.8.7"); ok || !strings.Contains(out, "not clean") {
		t.Errorf("a dirty tree: %v\n%s", ok, out)
	}
	if out, err := exec.Command("git", "-C", dir, "checkout", "-q", "README.md").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	out, ok = release(t, dir, "v9.8.7")
	if !ok {
		t.Fatalf("release failed:\n%s", out)
	}
	made, _ := exec.Command("git", "-C", dir, "tag", "--points-at", "HEAD").Output()
	got := strings.Fields(string(made))
	sort.Strings(got)
	sort.Strings(tags)
	if strings.Join(got, " ") != strings.Join(tags, " ") {
		t.Errorf("tags %q; want %q", got, tags)
	}
	gomod, _ := os.ReadFile(filepath.Join(dir, "examples/go.mod"))
	if !strings.Contains(string(gomod), "github.com/mcpid/mcpid/mcpgo v9.8.7") {
		t.Errorf("examples/go.mod does not require v9.8.7:\n%s", gomod)
	}
	newest, _ := os.ReadFile(filepath.Join(dir, "gosdk/newest.mod"))
	if !strings.Contains(string(newest), "github.com/mcpid/mcpid v9.8.7") {
		t.Errorf("gosdk/newest.mod does not require v9.8.7:\n%s", newest)
	}
	if out, ok := release(t, dir, "v9.8.7"); ok || !strings.Contains(out, "exists already") {
		t.Errorf("a second release of one version: %v\n%s", ok, out)
	}
}
