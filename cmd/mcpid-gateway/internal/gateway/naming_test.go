package gateway

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/toolname"
)

// chainKeys are the keys of the tables the mismatch tests store.
var chainKeys = []toolname.Key{{Server: "alpha", Tool: "search"}, {Server: "beta", Tool: "search"}}

// TestMismatchedReplicaExits: a gateway process started with other naming
// options than its chain records does not start: it exits with status 1,
// naming both sets of options.
func TestMismatchedReplicaExits(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	store := fileStore(t, state)
	_, _, err := toolname.Update(t.Context(), store, toolname.Portable, chainKeys)
	require.NoError(t, err)
	require.NoError(t, store.Close())

	exe, err := os.Executable()
	require.NoError(t, err)
	for _, args := range [][]string{{"-qualify", "all"}, {"-max-len", "40"}, {"-profile", "openai"}} {
		t.Run(args[0], func(t *testing.T) {
			cmd := exec.Command(exe, append([]string{"-http", "127.0.0.1:0", "-state", state}, args...)...)
			cmd.Env = append(os.Environ(), testGatewayEnv+"=1")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "the gateway exits with an error: %v\n%s", err, out)
			assert.Equal(t, 1, exit.ExitCode())
			assert.Contains(t, string(out), string(toolname.CodeChainMismatch))
			assert.Contains(t, string(out), "records other naming options: profile=Portable MaxLen=63 QualifyAll=false", "the chain's options")
			assert.Regexp(t, `options="profile=\w+ MaxLen=\d+ QualifyAll=\w+`, string(out), "the replica's options")
		})
	}
}

// TestMismatchWhileStoreDown: with the store down at start, a replica with
// other naming options than the chain's is refused by its -backup; with no
// backup it starts, and stops with the chain_mismatch error once the store
// is back and a round loads the chain.
func TestMismatchWhileStoreDown(t *testing.T) {
	srv := dbserver.StartRedis(t)
	names, _, err := toolname.Update(t.Context(), openRedis(t, srv.URL, "mcpid"), toolname.Portable, chainKeys)
	require.NoError(t, err)
	backup := filepath.Join(t.TempDir(), "backup.json")
	file := fileStore(t, backup)
	_, err = file.Swap(t.Context(), "", names)
	require.NoError(t, err)
	require.NoError(t, file.Close())
	srv.Stop()

	err = Run(t.Context(), []string{"-http", "127.0.0.1:0", "-state", srv.URL, "-backup", backup, "-qualify", "all"}, io.Discard, io.Discard)
	require.ErrorIs(t, err, toolname.ErrChainMismatch)
	assert.ErrorContains(t, err, "the backup "+backup)

	done := make(chan error, 1)
	go func() {
		done <- Run(t.Context(), []string{"-http", "127.0.0.1:0", "-state", srv.URL, "-qualify", "all", "-timeout", "2s"}, io.Discard, io.Discard)
	}()
	select {
	case err := <-done:
		t.Fatalf("with neither the store nor a backup, the replica starts; it ended: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
	srv.Start()
	select {
	case err := <-done:
		require.ErrorIs(t, err, toolname.ErrChainMismatch)
	case <-time.After(testTimeout):
		t.Fatal("the replica serves on after loading a chain of other options")
	}
}
