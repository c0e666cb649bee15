// Command modproxy proves, without the network, that the repository's
// modules install with go get once tagged. It reads the modules from
// modules.txt and the version that the nested modules require the
// released ones at (the one the next release tags), packs every module
// marked release at HEAD into a file-system module proxy at that version
// with golang.org/x/mod/zip, and then, in a temporary directory outside
// the repository and with no replace directive, builds and runs a
// consumer module that go gets each of them (the SDKs, database clients
// and other dependencies come from the configured proxy). The consumer
// (testdata/consumer/main.go) is made of the go snippets marked
// <!-- consumer --> in the README and docs/tools.md, each of which must
// stand in it verbatim, and imports every released package; a marked
// snippet that is a whole program (package main) is built as it stands,
// beside it. It also gets the OpenTelemetry API that docs/tools.md's
// OnCall snippet imports, at the version the examples module requires.
//
// Usage, from the repository root:
//
//	go run -C internal/tools ./modproxy -repo ../..
//
// It fails with a message naming the go.mod at fault when a nested module
// requires a zero pseudo-version, or a version of the repository's modules
// other than the one that will be packed.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

// rootPath is the module path of the repository's root module.
const rootPath = "github.com/mcpid/mcpid"

func main() {
	repo := flag.String("repo", ".", "the repository's root directory")
	keep := flag.Bool("keep", false, "keep the proxy and consumer directories, and print where they are")
	flag.Parse()
	if err := run(*repo, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func run(repo string, keep bool) error {
	mods, err := readModules(repo)
	if err != nil {
		return err
	}
	var nested []string
	for _, m := range mods[1:] {
		nested = append(nested, m.dir)
	}
	version, err := releaseVersion(repo, nested)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "mcpid-modproxy-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("modproxy: kept in", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	proxy := filepath.Join(tmp, "proxy")
	var published, commands []string
	for _, m := range mods {
		if !m.release {
			continue
		}
		if isCommand(m.dir) {
			commands = append(commands, m.dir)
		} else {
			published = append(published, m.path)
		}
		if err := pack(proxy, filepath.Join(repo, m.dir), m.path, version); err != nil {
			return fmt.Errorf("packing %s: %w", m.path, err)
		}
	}
	consumer := filepath.Join(tmp, "consumer")
	if err := writeConsumer(repo, consumer); err != nil {
		return err
	}
	if err := writeSums(repo, mods, consumer); err != nil {
		return err
	}
	extra, err := extraRequires(repo, mods)
	if err != nil {
		return err
	}
	if err := buildConsumer(consumer, proxy, version, published, extra); err != nil {
		return err
	}
	for _, dir := range commands {
		if err := installCommand(repo, tmp, proxy, dir, version); err != nil {
			return err
		}
		published = append(published, "go install "+modulePath(mods, dir)+"@"+version)
	}
	fmt.Printf("modproxy: a consumer outside the repository built and ran the snippets of %s on %s at %s\n",
		strings.Join(snippetFiles, " and "), strings.Join(published, ", "), version)
	return nil
}

// releaseVersion returns the version that the modules in dirs (the nested
// ones) require the repository's modules at, or an error naming a go.mod
// that requires the zero pseudo-version or another version.
func releaseVersion(repo string, dirs []string) (string, error) {
	version := ""
	for _, dir := range dirs {
		name := filepath.Join(repo, dir, "go.mod")
		data, err := os.ReadFile(name)
		if err != nil {
			return "", err
		}
		f, err := modfile.ParseLax(name, data, nil)
		if err != nil {
			return "", err
		}
		for _, r := range f.Require {
			if r.Mod.Path != rootPath && !strings.HasPrefix(r.Mod.Path, rootPath+"/") {
				continue
			}
			v := r.Mod.Version
			switch {
			case module.IsPseudoVersion(v) || v == "":
				return "", fmt.Errorf("%s requires %s at %q, a pseudo-version no proxy serves: require the version the next release tags (make release sets it)", name, r.Mod.Path, v)
			case version == "":
				version = v
			case v != version:
				return "", fmt.Errorf("%s requires %s at %s, but other modules require %s: the packed modules have one version", name, r.Mod.Path, v, version)
			}
		}
	}
	if version == "" {
		return "", errors.New("no module requires " + rootPath)
	}
	return version, nil
}

// pack writes the module in dir, at version, into the file-system proxy.
func pack(proxy, dir, path, version string) error {
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	at := filepath.Join(proxy, escaped, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	var z bytes.Buffer
	if err := zip.CreateFromDir(&z, module.Version{Path: path, Version: version}, dir); err != nil {
		return err
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`, version, time.Now().UTC().Format(time.RFC3339))
	for name, content := range map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": []byte(info),
		version + ".mod":  mod,
		version + ".zip":  z.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, name), content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// snippetFiles are the documents, relative to the repository's root,
// whose go snippets marked <!-- consumer --> the consumer is made of. Each
// marks at least one.
var snippetFiles = []string{"README.md", "docs/tools.md"}

// snippets returns the marked snippets of every file of snippetFiles, in
// order, or an error naming a file that marks none.
func snippets(repo string) ([]string, error) {
	var out []string
	for _, name := range snippetFiles {
		doc, err := os.ReadFile(filepath.Join(repo, name))
		if err != nil {
			return nil, err
		}
		marked := markedSnippets(string(doc))
		if len(marked) == 0 {
			return nil, fmt.Errorf("%s marks no snippet %s", name, consumerMark)
		}
		out = append(out, marked...)
	}
	return out, nil
}

// writeConsumer writes the consumer module's main.go into dir, after
// checking that it holds each snippet marked for it.
func writeConsumer(repo, dir string) error {
	src, err := os.ReadFile(filepath.Join(repo, "internal/tools/modproxy/testdata/consumer/main.go"))
	if err != nil {
		return err
	}
	snippets, err := snippets(repo)
	if err != nil {
		return err
	}
	programs := 0
	for _, s := range snippets {
		if isProgram(s) {
			// A whole program is built as it stands, in a package of its own.
			programs++
			at := filepath.Join(dir, fmt.Sprintf("program%d", programs))
			if err := os.MkdirAll(at, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(at, "main.go"), []byte(s+"\n"), 0o644); err != nil {
				return err
			}
			continue
		}
		if !holds(string(src), s) {
			return fmt.Errorf("the consumer does not hold the snippet:\n%s", s)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "main.go"), src, 0o644)
}

// isProgram reports whether a README snippet is a whole program: its first
// line that is not a comment declares package main.
func isProgram(snippet string) bool {
	for _, l := range strings.Split(snippet, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		return l == "package main"
	}
	return false
}

// consumerMark marks a README code block that the consumer holds.
const consumerMark = "<!-- consumer -->"

// markedSnippets returns the body of each ```go block that follows a line
// holding only consumerMark.
func markedSnippets(readme string) []string {
	var out []string
	lines := strings.Split(readme, "\n")
	for i := 0; i+1 < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != consumerMark || strings.TrimSpace(lines[i+1]) != "```go" {
			continue
		}
		var body []string
		for j := i + 2; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			body = append(body, lines[j])
		}
		out = append(out, strings.Join(body, "\n"))
	}
	return out
}

// holds reports whether src holds each paragraph of snippet (its runs of
// lines between empty ones), in order, each line as it is but for its
// spacing: so a snippet may be placed inside a function, and the consumer
// may add imports and lines between paragraphs.
func holds(src, snippet string) bool {
	lines := trimmed(src)
	at := 0
	for _, para := range strings.Split(snippet, "\n\n") {
		want := trimmed(para)
		if len(want) == 0 {
			continue
		}
		found := false
		for ; at+len(want) <= len(lines); at++ {
			if equal(lines[at:at+len(want)], want) {
				at += len(want)
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// trimmed returns the lines of s with each run of white space made one
// space (gofmt aligns comments), and no empty ones.
func trimmed(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// equal reports whether a and b hold the same lines.
func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// writeSums gives the consumer the checksums the repository's modules
// already hold for their dependencies, so that go get asks no checksum
// database for them: the machines this runs on reach the module proxy
// only. (The repository's own modules are GONOSUMDB.)
func writeSums(repo string, mods []repoModule, dir string) error {
	var sums []byte
	for _, m := range mods {
		b, err := os.ReadFile(filepath.Join(repo, m.dir, "go.sum"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // a module without dependencies
		}
		if err != nil {
			return err
		}
		sums = append(sums, b...)
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sums, 0o644)
}

// extraModules are the modules the consumer imports that no released
// module requires: the OpenTelemetry API that docs/tools.md's OnCall
// snippet uses, which a user who copies it adds to their own module.
var extraModules = []string{"go.opentelemetry.io/otel", "go.opentelemetry.io/otel/metric", "go.opentelemetry.io/otel/trace"}

// extraRequires returns each of extraModules at the version a module of
// the repository (the examples) requires it at, as path@version: the
// version whose checksums writeSums gives the consumer, so that go get
// asks no checksum database for them. It is an error when no module
// requires one.
func extraRequires(repo string, mods []repoModule) ([]string, error) {
	versions := map[string]string{}
	for _, m := range mods {
		name := filepath.Join(repo, m.dir, "go.mod")
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := modfile.ParseLax(name, data, nil)
		if err != nil {
			return nil, err
		}
		for _, r := range f.Require {
			versions[r.Mod.Path] = r.Mod.Version
		}
	}
	var out []string
	for _, path := range extraModules {
		v, ok := versions[path]
		if !ok {
			return nil, fmt.Errorf("no module of the repository requires %s, which the consumer imports: require it in the examples module", path)
		}
		out = append(out, path+"@"+v)
	}
	return out, nil
}

// buildConsumer go gets the published modules, packed at version, and
// the extra ones (path@version) into the consumer module in dir, with the
// proxy first and no replace, then builds and runs it. It uses a module cache of its own, beside dir:
// the user's cache may hold the repository's modules at this very
// version from an earlier HEAD, and would serve them instead of the
// packed ones. The user's cache still serves every other module, as a
// file proxy, so that nothing is downloaded twice.
func buildConsumer(dir, proxy, version string, published, extra []string) error {
	gomod := "module example.com/consumer\n\ngo 1.25.5\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	env, err := proxyEnv(proxy, filepath.Dir(dir), "-mod=mod")
	if err != nil {
		return err
	}
	get := []string{"go", "get"}
	for _, path := range published {
		get = append(get, path+"@"+version)
	}
	get = append(get, extra...)
	steps := [][]string{
		get,
		{"go", "build", "-trimpath", "-o", "consumer", "."},
		{"go", "build", "./..."}, // the README's whole programs too
		{filepath.Join(dir, "consumer")},
	}
	for _, s := range steps {
		cmd := exec.Command(s[0], s[1:]...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s in the consumer module: %w\n%s", strings.Join(s, " "), err, out)
		}
		if len(s) == 1 && !bytes.Contains(out, []byte("consumer: ok")) {
			return fmt.Errorf("the consumer did not finish:\n%s", out)
		}
	}
	return nil
}

// proxyEnv returns the environment of a go command that takes the
// repository's modules from the packed proxy, with no workspace, a module
// cache of its own in tmp (see buildConsumer), and flags besides
// -modcacherw, which lets the temporary cache be deleted.
func proxyEnv(proxy, tmp, flags string) ([]string, error) {
	upstream, err := goEnv("GOPROXY")
	if err != nil {
		return nil, err
	}
	cache, err := goEnv("GOMODCACHE")
	if err != nil {
		return nil, err
	}
	return append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(cache, "cache", "download"))+","+upstream,
		"GOMODCACHE="+filepath.Join(tmp, "modcache"),
		"GONOSUMDB="+rootPath, // not published: no checksum database knows it
		"GOFLAGS="+strings.TrimSpace(flags+" -modcacherw"),
		"GOWORK=off",
	), nil
}

// goEnv returns the go command's value of an environment variable.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	return strings.TrimSpace(string(out)), err
}
