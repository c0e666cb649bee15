package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// modulesFile lists the repository's modules, one a line, in release
// order: the directory, then "release" or "test" (see the file's own
// comment); a '#' starts a comment. The Makefile and the release and API scripts read it too.
const modulesFile = "modules.txt"

// repoModule is one line of modulesFile, with the path its go.mod
// declares.
type repoModule struct {
	dir     string // relative to the repository root, "." for the root
	path    string // the module path
	release bool   // tagged by a release, installed by users
}

// readModules returns the modules that modulesFile in repo lists, in its
// order, or an error naming the line at fault: a kind other than release
// or test, a directory listed twice or without a go.mod, or no root
// module listed first.
func readModules(repo string) ([]repoModule, error) {
	name := filepath.Join(repo, modulesFile)
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var mods []repoModule
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 || (fields[1] != "release" && fields[1] != "test") {
			return nil, fmt.Errorf("%s:%d: want a directory and release or test, not %q", name, n, sc.Text())
		}
		dir := filepath.Clean(fields[0])
		if seen[dir] {
			return nil, fmt.Errorf("%s:%d: %s is listed twice", name, n, dir)
		}
		seen[dir] = true
		gomod := filepath.Join(repo, dir, "go.mod")
		data, err := os.ReadFile(gomod)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		path := modfile.ModulePath(data)
		if path == "" {
			return nil, fmt.Errorf("%s:%d: %s declares no module", name, n, gomod)
		}
		if len(mods) == 0 && (dir != "." || fields[1] != "release") {
			return nil, fmt.Errorf("%s:%d: the first module must be the root, released: . release", name, n)
		}
		mods = append(mods, repoModule{dir: dir, path: path, release: fields[1] == "release"})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("%s lists no module", name)
	}
	return mods, nil
}
