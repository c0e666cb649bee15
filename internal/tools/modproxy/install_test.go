package main

import (
	"testing"
)

// TestIsCommand: a module under cmd/ is installed with go install, any
// other released module is gotten with go get.
func TestIsCommand(t *testing.T) {
	for dir, want := range map[string]bool{
		"cmd/mcpid-gateway":   true,
		".":                   false,
		"gosdk":               false,
		"toolname/redisstore": false,
		"examples/cmd":        false,
	} {
		if got := isCommand(dir); got != want {
			t.Errorf("isCommand(%q) = %v, want %v", dir, got, want)
		}
	}
}

// TestWithoutOwnSums: the lines of the repository's own modules leave a
// go.sum, and nothing else does, a module whose path only starts like the
// root's included.
func TestWithoutOwnSums(t *testing.T) {
	sum := "github.com/mcpid/mcpid v0.1.0 h1:a=\n" +
		"github.com/mcpid/mcpid v0.1.0/go.mod h1:b=\n" +
		"github.com/mcpid/mcpid/gosdk v0.1.0 h1:c=\n" +
		"github.com/mcpid/mcpidx v1.0.0 h1:d=\n" +
		"github.com/redis/go-redis/v9 v9.22.0 h1:e=\n"
	want := "github.com/mcpid/mcpidx v1.0.0 h1:d=\n" +
		"github.com/redis/go-redis/v9 v9.22.0 h1:e=\n"
	if got := string(withoutOwnSums([]byte(sum))); got != want {
		t.Errorf("withoutOwnSums:\n%s\nwant:\n%s", got, want)
	}
}
