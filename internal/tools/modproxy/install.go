package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// isCommand reports whether the module in dir (as modules.txt writes it)
// is a command that users install with go install, not a library they
// go get: a module under cmd/.
func isCommand(dir string) bool { return strings.HasPrefix(filepath.ToSlash(dir), "cmd/") }

// modulePath returns the path of the module of mods in dir.
func modulePath(mods []repoModule, dir string) string {
	for _, m := range mods {
		if m.dir == dir {
			return m.path
		}
	}
	return ""
}

// commandProbe is what installCommand runs the installed command with, and
// what its output must hold: the gateway's demo, which needs no downstream.
var commandProbe = map[string]string{"cmd/mcpid-gateway": "same names: true"}

// installCommand proves that the command module in dir installs as a
// user installs it, go install <path>@version, from the packed proxy with
// no workspace and no replace, and runs it; then that the module as
// committed is tidy against the packed modules: go mod tidy, in a copy of
// it, changes neither its go.mod nor its go.sum, but for the checksums of
// the repository's own modules, which no go.sum can hold before their
// tags (the release adds them; see RELEASING.md).
func installCommand(repo, tmp, proxy, dir, version string) error {
	data, err := os.ReadFile(filepath.Join(repo, dir, "go.mod"))
	if err != nil {
		return err
	}
	path := modulePathOf(data)
	bin := filepath.Join(tmp, "bin")
	env, err := proxyEnv(proxy, tmp, "")
	if err != nil {
		return err
	}
	install := exec.Command("go", "install", path+"@"+version)
	install.Dir, install.Env = tmp, append(env, "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		return fmt.Errorf("go install %s@%s: %w\n%s", path, version, err, out)
	}
	out, err := exec.Command(filepath.Join(bin, filepath.Base(dir))).CombinedOutput()
	if want := commandProbe[filepath.ToSlash(dir)]; err != nil || !bytes.Contains(out, []byte(want)) {
		return fmt.Errorf("the installed %s did not print %q (%v):\n%s", filepath.Base(dir), want, err, out)
	}
	return checkTidy(repo, tmp, proxy, dir)
}

// modulePathOf returns the module path a go.mod declares.
func modulePathOf(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
			return f[1]
		}
	}
	return ""
}

// checkTidy runs go mod tidy in a copy of the module in dir against the
// packed proxy and compares the result with the module as committed.
func checkTidy(repo, tmp, proxy, dir string) error {
	src := filepath.Join(repo, dir)
	cp := filepath.Join(tmp, "tidy", filepath.Base(dir))
	if err := os.CopyFS(cp, os.DirFS(src)); err != nil {
		return err
	}
	env, err := proxyEnv(proxy, tmp, "-mod=mod")
	if err != nil {
		return err
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir, tidy.Env = cp, env
	if out, err := tidy.CombinedOutput(); err != nil {
		return fmt.Errorf("go mod tidy in a copy of %s: %w\n%s", dir, err, out)
	}
	for _, name := range []string{"go.mod", "go.sum"} {
		want, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			return err
		}
		got, err := os.ReadFile(filepath.Join(cp, name))
		if err != nil {
			return err
		}
		if name == "go.sum" {
			got = withoutOwnSums(got)
		}
		if !bytes.Equal(want, got) {
			return fmt.Errorf("%s/%s is not what go mod tidy makes of it against the modules at HEAD; it makes:\n%s", dir, name, got)
		}
	}
	return nil
}

// withoutOwnSums returns go.sum without the lines of the repository's own
// modules.
func withoutOwnSums(sum []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(sum, []byte("\n")) {
		if f := bytes.Fields(l); len(f) > 0 && (string(f[0]) == rootPath || strings.HasPrefix(string(f[0]), rootPath+"/")) {
			continue
		}
		out = append(out, l...)
	}
	return out
}
