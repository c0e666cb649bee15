package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEFirstCommands: the repository's README gives a newcomer, in its
// first 40 lines and before its program, the command that runs the demo
// and the ones that run the tests, and stays within 250 lines.
func TestREADMEFirstCommands(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) > 250 {
		t.Errorf("README.md has %d lines; want at most 250", len(lines))
	}
	top := lines[:min(40, len(lines))]
	for i, l := range top {
		if strings.TrimSpace(l) == "```go" {
			top = top[:i]
			break
		}
	}
	head := strings.Join(top, "\n")
	for _, cmd := range []string{"go run -C examples ./searchfetch", "make check", "make test"} {
		if !strings.Contains(head, cmd) {
			t.Errorf("README.md's first 40 lines, before its program, do not give %q", cmd)
		}
	}
}
