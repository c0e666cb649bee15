package gateway

import (
	"encoding/json"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
)

// recoveryKind is one of the gateway's chains, as a test of it sees it.
type recoveryKind struct {
	kind   string // "tool" or "prompt"
	suffix string // of the chain's state and backup files
	server func(name string, items ...string) downstreamSpec
	names  func(c *client, t *testing.T) []string
	answer func(c *client, t *testing.T, name string) string
}

var recoveryKinds = []recoveryKind{
	{
		kind:   "tool",
		server: inProcessServer,
		names:  (*client).names,
		answer: func(c *client, t *testing.T, name string) string { return resultText(c.call(t, name, "x")) },
	},
	{
		kind:   "prompt",
		suffix: promptsSuffix,
		server: promptServer,
		names:  (*client).promptNames,
		answer: (*client).getPrompt,
	},
}

// TestForkRefusedAtStartRecovers: a replica that restarts on a store
// holding a fork of its backup (see TestBackupRefusesAFork) refuses it at
// its first load and never holds it: once the chain is put back from the
// backup by another process (another replica's -seed, or the operator),
// not through the refusing store value, the gateway names the new tools
// and prompts without a restart. The refusal names the fork's tool as the
// store's and the backup's as the table held, not the other way round.
func TestForkRefusedAtStartRecovers(t *testing.T) {
	for _, k := range recoveryKinds {
		for _, tc := range forks {
			t.Run(k.kind+"s/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				state, backup := filepath.Join(dir, "names.json"), filepath.Join(dir, "backup.json")
				file, kept := state+k.suffix, backup+k.suffix
				alpha, beta, gamma := k.server("alpha", "search"), k.server("beta", "delete"), k.server("gamma", "delete", "list")
				store, pstore := fileStore(t, state), fileStore(t, state+promptsSuffix)
				g, c := startGateway(t, config{store: store, promptStore: pstore, backupPath: backup}, alpha)
				require.Eventually(t, func() bool { return slices.Equal([]string{"search"}, k.names(c, t)) }, testTimeout, 20*time.Millisecond)
				older := mustReadTable(t, file)
				require.NoError(t, g.join(t.Context(), beta))
				want := []string{"delete", "search"}
				require.Eventually(t, func() bool { return slices.Equal(want, k.names(c, t)) }, testTimeout, 20*time.Millisecond)
				require.Eventually(t, func() bool {
					b, err := chainstore.ReadTable(kept)
					return err == nil && b != nil && nameOf(b, toolname.Key{Server: "beta", Tool: "delete"}) == "delete"
				}, testTimeout, 20*time.Millisecond, "the backup keeps the table")
				g.close()
				require.NoError(t, store.Close())
				require.NoError(t, pstore.Close())

				tampered := tc.tamper(t, older, readFile(t, file))
				require.NoError(t, os.WriteFile(file, []byte(tampered), 0o600))
				store, pstore = fileStore(t, state), fileStore(t, state+promptsSuffix)
				logs := new(syncbuf.Buffer)
				cfg := config{store: store, promptStore: pstore, backupPath: backup, startTimeout: 300 * time.Millisecond, logger: slog.New(slog.NewTextHandler(logs, nil))}
				_, c = startGateway(t, cfg, alpha, beta, gamma)
				refusal := "names no new " + k.kind
				require.Eventually(t, func() bool { return strings.Contains(logs.String(), refusal) }, testTimeout, 20*time.Millisecond)
				assert.Equal(t, want, k.names(c, t), "the backup's names, and no new one")
				assert.Contains(t, logs.String(), "the store's table gives the name to gamma::delete")
				assert.Contains(t, logs.String(), "gives it to beta::delete", "the table held is the backup's")
				assert.NotContains(t, logs.String(), "gives it to gamma::delete", "the fork is never the table held")

				// Put back by another process: the backup's table, written
				// over the fork.
				require.NoError(t, os.WriteFile(file, []byte(readFile(t, kept)), 0o600))
				require.Eventually(t, func() bool { return len(k.names(c, t)) == 4 }, testTimeout, 20*time.Millisecond,
					"the gateway names %ss once the store holds the chain, without a restart", k.kind)
				assert.Equal(t, []string{"delete", "gamma__delete", "list", "search"}, k.names(c, t))
				assert.Contains(t, k.answer(c, t, "delete"), "beta answered delete")
				assert.Contains(t, k.answer(c, t, "list"), "gamma answered list")
				assert.Contains(t, k.answer(c, t, "gamma__delete"), "gamma answered delete")
			})
		}
	}
}

// TestForkRefusedAtStartRecoversProcess: the same, through a gateway
// process (run), whose start checks load the store before the gateway
// is built: the store value holds the backup's table before any of them,
// so a fork is refused there too, and the chain written back by this
// process is named without a restart.
func TestForkRefusedAtStartRecoversProcess(t *testing.T) {
	dir := t.TempDir()
	state, backup := filepath.Join(dir, "names.json"), filepath.Join(dir, "backup.json")
	search, del := toolname.Key{Server: "alpha", Tool: "search"}, toolname.Key{Server: "beta", Tool: "delete"}
	older, err := toolname.Assign(toolname.Portable, []toolname.Key{search})
	require.NoError(t, err)
	kept, err := toolname.Assign(toolname.Portable, []toolname.Key{search, del}, toolname.WithPrevious(older))
	require.NoError(t, err)
	data, err := json.Marshal(kept)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(backup, data, 0o600))
	require.NoError(t, os.WriteFile(state, []byte(forks[0].tamper(t, older, string(data))), 0o600))

	exe, err := os.Executable()
	require.NoError(t, err)
	args := []string{"-stdio", "-state", state, "-backup", backup, "-timeout", "10s", "-start-timeout", "1s"}
	for _, s := range []struct{ name, tools string }{{"alpha", "search"}, {"beta", "delete"}, {"gamma", "delete+list"}} {
		server, env := testServer(t, s.name, "tools="+s.tools+",who="+s.name)
		args = append(args, "-server", server, "-env", env)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), testGatewayEnv+"=1")
	stderr := new(syncbuf.Buffer)
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fork-recovery", Version: "v0"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		if t.Failed() {
			t.Logf("the gateway's log:\n%s", stderr.String())
		}
	})
	names := func() []string {
		got, err := listNames(t.Context(), cs)
		require.NoError(t, err)
		return got
	}
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "names no new tool") }, testTimeout, 20*time.Millisecond)
	assert.Equal(t, []string{"delete", "search"}, names(), "the backup's names, and no new one")
	assert.Contains(t, stderr.String(), "the store's table gives the name to gamma::delete")

	require.NoError(t, os.WriteFile(state, data, 0o600))
	require.Eventually(t, func() bool { return len(names()) == 4 }, testTimeout, 20*time.Millisecond,
		"the gateway names tools once the store holds the chain, without a restart")
	assert.Equal(t, []string{"delete", "gamma__delete", "list", "search"}, names())
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "delete", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, "beta answered delete", resultText(res))
}
