package cmdtest

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Build builds the command in the directory dir, relative to the test's
// package, in the module that holds dir (which may be another module of
// the repository than the test's), and returns the path of the binary, in a directory that is
// removed when the test ends. It skips the test in -short mode.
func Build(t *testing.T, dir string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a command")
	}
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), filepath.Base(abs))
	out, err := exec.Command("go", "build", "-C", abs, "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build %s: %s", dir, out)
	return bin
}
