package dbserver

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnvShortWinsOverCI: under -short a test that needs a server skips,
// CI=true or not and the server named or not, so that make test passes
// in CI; without -short and with CI=true it fails. The test runs this
// binary again, on TestEnvChild, in each environment.
func TestEnvShortWinsOverCI(t *testing.T) {
	for _, tc := range []struct {
		name  string
		short bool
		url   string
		pass  bool
		want  string
	}{
		{"short, CI, no server", true, "", true, "--- SKIP: TestEnvChild"},
		{"short, CI, server named", true, "redis://127.0.0.1:1/0", true, "--- SKIP: TestEnvChild"},
		{"CI, no server", false, "", false, "--- FAIL: TestEnvChild"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-test.run=^TestEnvChild$", "-test.v"}
			if tc.short {
				args = append(args, "-test.short")
			}
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "MCPID_DBSERVER_CHILD=1", "CI=true", "MCPID_REDIS_URL="+tc.url)
			out, err := cmd.CombinedOutput()
			if tc.pass {
				require.NoError(t, err, "%s", out)
			} else {
				require.Error(t, err, "%s", out)
			}
			assert.Contains(t, string(out), tc.want)
		})
	}
}

// TestEnvChild asks for the shared Redis server, as a store test does; it
// runs only as TestEnvShortWinsOverCI's child.
func TestEnvChild(t *testing.T) {
	if os.Getenv("MCPID_DBSERVER_CHILD") != "1" {
		t.Skip("the child of TestEnvShortWinsOverCI")
	}
	RedisURL(t)
}
