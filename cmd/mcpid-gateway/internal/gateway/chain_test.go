package gateway

import (
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
)

// TestBackupRefusesALostChain: a gateway whose store holds less than its
// backup (the chain gone, or an older table put back) refuses it: it
// serves the backup's names and names no new tool, until the store is
// seeded again from the backup.
func TestBackupRefusesALostChain(t *testing.T) {
	for _, tc := range []struct {
		name string
		lose func(t *testing.T, state string, older []byte)
	}{
		{"emptied", func(t *testing.T, state string, _ []byte) { require.NoError(t, os.Remove(state)) }},
		{"older table", func(t *testing.T, state string, older []byte) { require.NoError(t, os.WriteFile(state, older, 0o600)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			state, backup := filepath.Join(dir, "names.json"), filepath.Join(dir, "backup.json")
			alpha, beta := inProcessServer("alpha", "search"), inProcessServer("beta", "search")
			store := fileStore(t, state)
			g, c := startGateway(t, config{store: store, backupPath: backup}, alpha)
			require.Equal(t, []string{"search"}, c.names(t))
			older, err := os.ReadFile(state)
			require.NoError(t, err)
			require.NoError(t, g.join(t.Context(), beta))
			want := []string{"beta__search", "search"}
			require.Equal(t, want, c.names(t))
			require.NoError(t, g.flush(t.Context()))
			g.close()
			require.NoError(t, store.Close())
			stored, err := os.ReadFile(state)
			require.NoError(t, err)
			kept, err := os.ReadFile(backup)
			require.NoError(t, err)
			assert.JSONEq(t, string(stored), string(kept), "the backup holds the stored table")

			tc.lose(t, state, older)
			addEchoTool(alpha.transport.(inProcess).srv, "alpha", "fetch")
			store = fileStore(t, state)
			logs := new(syncbuf.Buffer)
			cfg := config{store: store, backupPath: backup, startTimeout: 300 * time.Millisecond, logger: slog.New(slog.NewTextHandler(logs, nil))}
			_, c = startGateway(t, cfg, beta, alpha)
			assert.Equal(t, want, c.names(t), "the backup's names, and no new one")
			assert.Equal(t, `alpha answered search(query="x")`, resultText(c.call(t, "search", "x")))
			assert.Contains(t, logs.String(), string(toolname.CodeRollback))
			if tc.name == "older table" {
				_, err := toolname.Seed(t.Context(), store, mustReadTable(t, backup))
				require.ErrorIs(t, err, toolname.ErrChainNotEmpty, "a chain is seeded only when empty")
				require.NoError(t, os.Remove(state))
			}

			require.NoError(t, seed(t.Context(), store, backup, testTimeout))
			require.Eventually(t, c.hasNames(t.Context(), 3), testTimeout, 20*time.Millisecond, "the gateway names tools once the store holds the chain")
			assert.Equal(t, []string{"beta__search", "fetch", "search"}, c.names(t))
		})
	}
}

func mustReadTable(t *testing.T, path string) *toolname.Table {
	t.Helper()
	n, err := chainstore.ReadTable(path)
	require.NoError(t, err)
	require.NotNil(t, n)
	return n
}

// TestSeedMovesAStateFile: -seed stores a state file's table as the
// first of an empty chain, which the gateway then continues with every
// name as it was; a chain that holds a table is never seeded over.
func TestSeedMovesAStateFile(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "names.json")
	store := fileStore(t, from)
	g, c := startGateway(t, config{store: store}, inProcessServer("alpha", "search"), inProcessServer("beta", "search"))
	require.NoError(t, g.join(t.Context(), inProcessServer("gamma", "search")))
	before := c.names(t)
	g.close()
	require.NoError(t, store.Close())

	to := fileStore(t, filepath.Join(dir, "moved.json"))
	require.NoError(t, seed(t.Context(), to, from, testTimeout))
	_, c = startGateway(t, config{store: to}, inProcessServer("gamma", "search"), inProcessServer("beta", "search"), inProcessServer("alpha", "search"))
	assert.Equal(t, before, c.names(t))
	require.ErrorIs(t, seed(t.Context(), to, from, testTimeout), toolname.ErrChainNotEmpty)
	require.ErrorContains(t, seed(t.Context(), to, filepath.Join(dir, "missing.json"), testTimeout), "missing.json")
}

// TestNameNotServedYet: a replica that lists a tool it could not name yet
// (its own swaps fail) routes a call by the name another replica stored
// for that very tool, after one look in the store; a name stored for a
// tool it does not list is unknown there, even when it lists a tool of
// that own name.
func TestNameNotServedYet(t *testing.T) {
	shared := new(chainstore.Mem)
	alphaA := inProcessServer("alpha", "search", "fetch")
	_, ca := startGateway(t, config{store: shared}, alphaA)
	require.Equal(t, []string{"fetch", "search"}, ca.names(t))

	stuck := &flakyStore{Store: shared}
	stuck.fail.Store(true)
	alphaB := inProcessServer("alpha", "fetch")
	b, cb := startGateway(t, config{store: stuck, startTimeout: 300 * time.Millisecond}, alphaB, inProcessServer("beta", "search"))
	require.Equal(t, []string{"fetch"}, cb.names(t), "beta's search is not named: b cannot store")
	// b's failed rounds back off to seconds apart: b reloads the store
	// only with its next change.
	require.Eventually(t, func() bool { return stuck.failures.Load() >= 5 }, testTimeout, 10*time.Millisecond)

	// alpha gets a tool on b first, which b cannot name, then on a.
	failures := stuck.failures.Load()
	addEchoTool(alphaB.transport.(inProcess).srv, "alpha", "list")
	require.Eventually(t, func() bool { return stuck.failures.Load() > failures }, testTimeout, 10*time.Millisecond)
	live, _ := b.liveTools()
	require.Contains(t, live, toolname.Key{Server: "alpha", Tool: "list"})
	addEchoTool(alphaA.transport.(inProcess).srv, "alpha", "list")
	require.Eventually(t, ca.hasNames(t.Context(), 3), testTimeout, 10*time.Millisecond)

	require.NotContains(t, cb.names(t), "list", "b has not reloaded")
	assert.Equal(t, `alpha answered list(query="q")`, resultText(cb.call(t, "list", "q")), "looked up in the store")
	res, err := cb.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, "unknown_tool", envelopeCode(t, res), "alpha's search, which b does not list, is never beta's")
}

// TestStoreLostWhileServing: a store that loses the chain under a running
// gateway (here the state file removed, as a Redis restarted without
// persistence loses its key) is refused: the stored names keep routing,
// and a new tool is not named, so that no name can go to a second tool.
func TestStoreLostWhileServing(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	logs := new(syncbuf.Buffer)
	alpha := inProcessServer("alpha", "search")
	g, c := startGateway(t, config{store: fileStore(t, state), logger: slog.New(slog.NewTextHandler(logs, nil))}, alpha)
	require.Equal(t, []string{"search"}, c.names(t))

	require.NoError(t, os.Remove(state))
	addEchoTool(alpha.transport.(inProcess).srv, "alpha", "fetch")
	require.Eventually(t, func() bool { live, _ := g.liveTools(); return len(live) == 2 }, testTimeout, 10*time.Millisecond)
	require.NoError(t, g.flush(t.Context()))
	assert.Equal(t, []string{"search"}, c.names(t))
	assert.Equal(t, `alpha answered search(query="x")`, resultText(c.call(t, "search", "x")))
	assert.Contains(t, logs.String(), string(toolname.CodeRollback))
	assert.NoFileExists(t, state, "nothing is written over a lost chain")
}

// TestChainMismatch: a gateway whose naming options differ from those its
// chain records (here -qualify all on a chain of -qualify collision)
// names no new tool and says why; it never renames the stored ones.
func TestChainMismatch(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	store := fileStore(t, state)
	g, _ := startGateway(t, config{store: store}, inProcessServer("alpha", "search"))
	g.close()

	logs := new(syncbuf.Buffer)
	cfg := config{store: store, qualifyAll: true, startTimeout: 300 * time.Millisecond, logger: slog.New(slog.NewTextHandler(logs, nil))}
	_, c := startGateway(t, cfg, inProcessServer("alpha", "search", "fetch"))
	assert.Equal(t, []string{"search"}, c.names(t), "the stored name, and no new one")
	assert.Contains(t, logs.String(), string(toolname.CodeChainMismatch))
}

// TestBackupFile: the backup is a file store of its own, so that it is
// held by one gateway: a backup that another gateway holds, or that is
// the state file itself, or that is not a table, stops the start with a
// typed error and is left as it is.
func TestBackupFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) (config, string)
		want  error
	}{
		{"held by another gateway", func(t *testing.T, dir string) (config, string) {
			backup := filepath.Join(dir, "backup.json")
			startGateway(t, config{store: fileStore(t, filepath.Join(dir, "a.json")), backupPath: backup}, inProcessServer("alpha", "search"))
			return config{store: fileStore(t, filepath.Join(dir, "b.json")), backupPath: backup}, backup
		}, toolname.ErrStoreLocked},
		{"the state file", func(t *testing.T, dir string) (config, string) {
			state := filepath.Join(dir, "names.json")
			return config{store: fileStore(t, state), backupPath: state}, state
		}, toolname.ErrStoreLocked},
		{"not a table", func(t *testing.T, dir string) (config, string) {
			backup := filepath.Join(dir, "backup.json")
			require.NoError(t, os.WriteFile(backup, []byte(`{"version":1,"names":[`), 0o600))
			return config{store: fileStore(t, filepath.Join(dir, "names.json")), backupPath: backup}, backup
		}, toolname.ErrInvalidTable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, backup := tc.setup(t, t.TempDir())
			before, _ := os.ReadFile(backup)
			g, err := newGateway(cfg)
			if g != nil {
				g.close()
			}
			require.ErrorIs(t, err, tc.want)
			after, _ := os.ReadFile(backup)
			assert.Equal(t, string(before), string(after), "the file is left as it was")
		})
	}
}
