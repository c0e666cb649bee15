package gateway

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
)

// TestBackupRefusesAFork: a gateway whose store holds a table that does
// not continue its backup, even at the backup's generation (a fork that a
// replica started after a restore wrote, or a table edited by hand),
// refuses it as it refuses a lost chain: it serves the backup's names,
// routes no call through the store and names no new tool, until the chain
// is seeded again from the backup.
func TestBackupRefusesAFork(t *testing.T) {
	for _, tc := range forks {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			state, backup := filepath.Join(dir, "names.json"), filepath.Join(dir, "backup.json")
			alpha, beta, gamma := inProcessServer("alpha", "search"), inProcessServer("beta", "delete"), inProcessServer("gamma", "delete", "list")
			store := fileStore(t, state)
			g, c := startGateway(t, config{store: store, backupPath: backup}, alpha)
			require.Equal(t, []string{"search"}, c.names(t))
			older := mustReadTable(t, state)
			require.NoError(t, g.join(t.Context(), beta))
			want := []string{"delete", "search"}
			require.Equal(t, want, c.names(t))
			require.NoError(t, g.flush(t.Context()))
			g.close()
			require.NoError(t, store.Close())
			stored, err := os.ReadFile(state)
			require.NoError(t, err)

			tampered := tc.tamper(t, older, string(stored))
			require.NoError(t, new(toolname.Table).UnmarshalJSON([]byte(tampered)), "a well-formed table")
			require.NoError(t, os.WriteFile(state, []byte(tampered), 0o600))
			store = fileStore(t, state)
			logs := new(syncbuf.Buffer)
			cfg := config{store: store, backupPath: backup, startTimeout: 300 * time.Millisecond, logger: slog.New(slog.NewTextHandler(logs, nil))}
			_, c = startGateway(t, cfg, alpha, beta, gamma)
			assert.Equal(t, want, c.names(t), "the backup's names, and no new one")
			assert.Equal(t, `beta answered delete(query="x")`, resultText(c.call(t, "delete", "x")), "delete is beta's, as the backup says")
			res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "list", Arguments: map[string]any{}})
			require.NoError(t, err)
			assert.Equal(t, "unknown_tool", envelopeCode(t, res), "the refused table routes nothing")
			assert.Contains(t, logs.String(), string(toolname.CodeRollback))
			assert.Contains(t, logs.String(), "does not continue")
			assert.Equal(t, tampered, readFile(t, state), "nothing is written over a refused table")
			kept := mustReadTable(t, backup)
			assert.Equal(t, "delete", nameOf(kept, toolname.Key{Server: "beta", Tool: "delete"}), "the backup keeps the chain")

			// Put back on purpose: the chain emptied, the backup seeded.
			require.NoError(t, os.Remove(state))
			require.NoError(t, seed(t.Context(), store, backup, testTimeout))
			require.Eventually(t, c.hasNames(t.Context(), 4), testTimeout, 20*time.Millisecond, "the gateway names tools once the store holds the chain")
			assert.Equal(t, []string{"delete", "gamma__delete", "list", "search"}, c.names(t))
			assert.Equal(t, `beta answered delete(query="x")`, resultText(c.call(t, "delete", "x")))
		})
	}
}

// forks are the tables that do not continue one of the chain
// {alpha/search: search} then {alpha/search: search, beta/delete: delete}
// (older, then stored), each at its generation: written by a replica
// started after older was restored, which names gamma's delete and list,
// or by hand, giving delete to gamma's.
var forks = []struct {
	name   string
	tamper func(t *testing.T, older *toolname.Table, stored string) string
}{
	{"a fork from an older table", func(t *testing.T, older *toolname.Table, _ string) string {
		keys := []toolname.Key{{Server: "alpha", Tool: "search"}, {Server: "gamma", Tool: "delete"}, {Server: "gamma", Tool: "list"}}
		fork, err := toolname.Assign(toolname.Portable, keys, toolname.WithPrevious(older))
		require.NoError(t, err)
		_, gen := fork.Chain()
		require.Equal(t, uint64(2), gen, "the fork claims the backup's generation")
		data, err := json.Marshal(fork)
		require.NoError(t, err)
		return string(data)
	}},
	{"a name edited to another server's", func(t *testing.T, _ *toolname.Table, stored string) string {
		entry := `{"server":"beta","tool":"delete","name":"delete"}`
		require.Contains(t, stored, entry)
		return strings.Replace(stored, entry, `{"server":"gamma","tool":"delete","name":"delete"},{"server":"gamma","tool":"list","name":"list"}`, 1)
	}},
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

func nameOf(n *toolname.Table, k toolname.Key) string {
	name, _ := n.Name(k)
	return name
}
