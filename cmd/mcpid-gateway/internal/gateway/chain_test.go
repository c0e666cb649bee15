package gateway

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/pgstore"
	"github.com/mcpid/mcpid/toolname/redisstore"
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

// TestReplicas: three gateway processes share one chain in a real Redis,
// or a real PostgreSQL, each over downstream processes of its own, through
// staggered starts, one tool added to two servers in opposite orders on
// different replicas, a replica killed (SIGKILL) while it names a tool and
// started again, and the store stopped and started again. Each name a
// replica lists is called on every replica as soon as it is seen, and
// again at the end: no tool has two names across replicas, no call reaches
// another tool than the one its name was listed for, and no name is ever
// given to two tools.
func TestReplicas(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(testing.TB) *dbserver.Server
		open  func(t testing.TB, url, chain string) toolname.Store
	}{
		{"redis", dbserver.StartRedis, openRedis},
		{"postgres", dbserver.StartPostgres, openPostgres},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.start(t)
			rs := newReplicaSet(t, srv.URL)
			rs.run(srv)
			stored, _, err := tc.open(t, srv.URL, rs.chain).Load(t.Context())
			require.NoError(t, err)
			rs.checkStored(stored)
		})
	}
}

func openRedis(t testing.TB, url, chain string) toolname.Store {
	opts, err := redis.ParseURL(url)
	require.NoError(t, err)
	client := redis.NewClient(opts)
	t.Cleanup(func() { _ = client.Close() })
	return redisstore.New(client, chain)
}

func openPostgres(t testing.TB, url, chain string) toolname.Store {
	pool, err := pgxpool.New(t.Context(), url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	s, err := pgstore.New(t.Context(), pool, chain)
	require.NoError(t, err)
	return s
}

// replicaServers are the downstreams of every replica: the test binary as
// a server, its tools in a file of the replica's own that the test edits.
var replicaServers = []string{"s1", "s2", "s3"}

// replicaSet is three gateway processes on one store and chain.
type replicaSet struct {
	t        *testing.T
	exe      string
	dir      string
	state    string
	chain    string
	replicas [3]*replica

	mu        sync.Mutex
	keyOf     map[string]toolname.Key          // every name a replica listed, with the tool a call by it reached there
	nameOf    map[toolname.Key]map[string]bool // every name each tool was listed under, on any replica
	misroutes []string                         // calls that reached another tool than their name's
	called    map[int]map[string]bool          // the names already called across the replicas, by the replica that listed them
	listed    map[int]map[string]toolname.Key  // the last listing of each replica
}

// replica is one gateway process and its client.
type replica struct {
	cmd    *exec.Cmd
	cs     *mcp.ClientSession
	stderr *syncbuf.Buffer
}

func newReplicaSet(t *testing.T, state string) *replicaSet {
	exe, err := os.Executable()
	require.NoError(t, err)
	rs := &replicaSet{
		t: t, exe: exe, dir: t.TempDir(), state: state, chain: "replicas",
		keyOf:  map[string]toolname.Key{},
		nameOf: map[toolname.Key]map[string]bool{},
		called: map[int]map[string]bool{},
		listed: map[int]map[string]toolname.Key{},
	}
	t.Cleanup(func() {
		for i, r := range rs.replicas {
			if r != nil {
				_ = r.cs.Close()
				if t.Failed() {
					t.Logf("replica %d's log:\n%s", i, r.stderr.String())
				}
			}
		}
	})
	return rs
}

// run plays the scenario; srv is the store's server.
func (rs *replicaSet) run(srv *dbserver.Server) {
	t := rs.t
	for i := range rs.replicas {
		for _, s := range replicaServers {
			rs.setTools(i, s, map[string][]string{"s1": {"fetch", "search"}, "s2": {"list", "search"}, "s3": {"echo"}}[s]...)
		}
	}
	// Staggered starts, each replica with another slow server, and the
	// second without s1's search at first: alone, it would call s2's
	// search "search".
	rs.setTools(1, "s1", "fetch")
	rs.start(0, "s1")
	time.Sleep(100 * time.Millisecond)
	rs.start(1, "s2")
	time.Sleep(100 * time.Millisecond)
	rs.start(2, "")
	rs.settle(5, 4, 5)
	rs.setTools(1, "s1", "fetch", "search")
	rs.settle(5, 5, 5)

	// One tool added to two servers in opposite orders.
	rs.setTools(0, "s1", "fetch", "report", "search")
	rs.setTools(1, "s2", "list", "report", "search")
	rs.setTools(2, "s1", "fetch", "report", "search")
	rs.setTools(2, "s2", "list", "report", "search")
	time.Sleep(300 * time.Millisecond)
	rs.setTools(0, "s2", "list", "report", "search")
	rs.setTools(1, "s1", "fetch", "report", "search")
	rs.settle(7, 7, 7)

	// A replica killed while it names a new tool, and started again.
	for i := range rs.replicas {
		rs.setTools(i, "s3", "echo", "late")
	}
	time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
	rs.kill(2)
	rs.start(2, "")
	rs.settle(8, 8, 8)

	// The store stopped: the stored names keep routing, a new tool waits
	// unlisted; once the store is back, it is named.
	srv.Stop()
	rs.setTools(0, "s3", "echo", "late", "offline")
	time.Sleep(time.Second)
	assert.Len(t, rs.listing(0), 8, "a tool named while the store is down is not listed")
	for name, k := range rs.listing(0) {
		got, ok := rs.call(0, name)
		assert.True(t, ok && got == k, "%q routes while the store is down", name)
	}
	srv.Start()
	rs.setTools(1, "s3", "echo", "late", "offline")
	rs.setTools(2, "s3", "echo", "late", "offline")
	rs.settle(9, 9, 9)

	rs.checkAgreement()
}

// toolsFile is the file that lists the tools of server on replica i.
func (rs *replicaSet) toolsFile(i int, server string) string {
	return filepath.Join(rs.dir, fmt.Sprintf("r%d-%s.txt", i, server))
}

// setTools sets the tools of server on replica i, in one rename.
func (rs *replicaSet) setTools(i int, server string, tools ...string) {
	path := rs.toolsFile(i, server)
	require.NoError(rs.t, os.WriteFile(path+".new", []byte(strings.Join(tools, "\n")), 0o600))
	require.NoError(rs.t, os.Rename(path+".new", path))
}

// start starts replica i, whose server slow answers initialize late.
func (rs *replicaSet) start(i int, slow string) {
	t := rs.t
	args := []string{"-stdio", "-state", rs.state, "-chain", rs.chain,
		"-backup", filepath.Join(rs.dir, fmt.Sprintf("r%d-backup.json", i)), "-timeout", "10s", "-start-timeout", "5s"}
	for _, s := range replicaServers {
		mode := "toolsfile=" + rs.toolsFile(i, s) + ",who=" + s
		if s == slow {
			mode += ",delay=300ms"
		}
		args = append(args, "-server", s+"='"+rs.exe+"'", "-env", s+"="+testServerEnv+"="+mode)
	}
	r := &replica{cmd: exec.Command(rs.exe, args...), stderr: new(syncbuf.Buffer)}
	r.cmd.Env = append(os.Environ(), testGatewayEnv+"=1")
	r.cmd.Stderr = r.stderr
	var err error
	r.cs, err = mcp.NewClient(&mcp.Implementation{Name: "replica-test", Version: "v0"}, nil).Connect(t.Context(), &mcp.CommandTransport{Command: r.cmd}, nil)
	require.NoError(t, err)
	rs.replicas[i] = r
}

// kill kills replica i with SIGKILL.
func (rs *replicaSet) kill(i int) {
	r := rs.replicas[i]
	require.NoError(rs.t, r.cmd.Process.Kill())
	_ = r.cs.Close()
	rs.replicas[i] = nil
}

// listing returns the names replica i lists, each with the tool a call by
// it reaches there. Every name it lists is called at once on the other
// replicas too (see crossCall).
func (rs *replicaSet) listing(i int) map[string]toolname.Key {
	t := rs.t
	names, err := listNames(t.Context(), rs.replicas[i].cs)
	require.NoError(t, err)
	got := map[string]toolname.Key{}
	for _, name := range names {
		k, ok := rs.call(i, name)
		if !ok {
			continue // listed, then gone: a relist in between
		}
		got[name] = k
		rs.record(name, k)
		rs.crossCall(i, name, k)
	}
	rs.mu.Lock()
	rs.listed[i] = got
	rs.mu.Unlock()
	return got
}

// record notes that name was listed for k.
func (rs *replicaSet) record(name string, k toolname.Key) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if prev, ok := rs.keyOf[name]; ok && prev != k {
		rs.t.Errorf("%q was given to %v and to %v", name, prev, k)
	}
	rs.keyOf[name] = k
	if rs.nameOf[k] == nil {
		rs.nameOf[k] = map[string]bool{}
	}
	rs.nameOf[k][name] = true
}

// crossCall calls name, which replica i listed for k, on the other
// replicas, once: each must reach k, or answer unknown tool.
func (rs *replicaSet) crossCall(i int, name string, k toolname.Key) {
	rs.mu.Lock()
	if rs.called[i] == nil {
		rs.called[i] = map[string]bool{}
	}
	done := rs.called[i][name]
	rs.called[i][name] = true
	rs.mu.Unlock()
	if done {
		return
	}
	for j, r := range rs.replicas {
		if j == i || r == nil {
			continue
		}
		if got, ok := rs.call(j, name); ok && got != k {
			rs.mu.Lock()
			rs.misroutes = append(rs.misroutes, fmt.Sprintf("%q listed on replica %d for %v reached %v on replica %d", name, i, k, got, j))
			rs.mu.Unlock()
		}
	}
}

// call calls name on replica i, and returns the tool that answered; it
// reports false for an unknown tool, or a tool error (its server is
// restarting).
func (rs *replicaSet) call(i int, name string) (toolname.Key, bool) {
	res, err := rs.replicas[i].cs.CallTool(rs.t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err != nil {
		require.ErrorContains(rs.t, err, "unknown tool", "calling %q on replica %d", name, i)
		return toolname.Key{}, false
	}
	if res.IsError {
		return toolname.Key{}, false
	}
	server, tool, ok := strings.Cut(resultText(res), " answered ")
	require.True(rs.t, ok, "the answer of %q: %q", name, resultText(res))
	return toolname.Key{Server: server, Tool: tool}, true
}

// settle waits until each replica lists as many names as told.
func (rs *replicaSet) settle(want ...int) {
	for i, n := range want {
		require.Eventually(rs.t, func() bool { return len(rs.listing(i)) == n }, testTimeout, 50*time.Millisecond,
			"replica %d lists %d names", i, n)
	}
}

// checkAgreement checks that every replica lists the same names for the
// same tools, that no tool was ever listed under two names, no name given
// to two tools (record checks that as it goes) and no call misrouted.
func (rs *replicaSet) checkAgreement() {
	t := rs.t
	for i := range rs.replicas {
		for name, k := range rs.listing(i) {
			for j := range rs.replicas {
				got, ok := rs.call(j, name)
				assert.True(t, ok && got == k, "%q listed on replica %d for %v: on replica %d, %v (%v)", name, i, k, j, got, ok)
			}
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i := 1; i < len(rs.replicas); i++ {
		if diff := cmp.Diff(rs.listed[0], rs.listed[i]); diff != "" {
			t.Errorf("replica %d lists other names than replica 0 (-0 +%d):\n%s", i, i, diff)
		}
	}
	var renamed []string
	for k, names := range rs.nameOf {
		if len(names) > 1 {
			renamed = append(renamed, fmt.Sprintf("%v: %v", k, slices.Sorted(maps.Keys(names))))
		}
	}
	assert.Empty(t, renamed, "tools listed under two names")
	assert.Empty(t, rs.misroutes, "calls that reached another tool")
	t.Logf("%d names over %d tools, each called on every replica: 0 renamed, 0 misrouted, 0 reused", len(rs.keyOf), len(rs.nameOf))
}

// checkStored checks that the store's table gives every name the replicas
// list to the tool they route it to.
func (rs *replicaSet) checkStored(stored *toolname.Table) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	require.NotNil(rs.t, stored)
	for name, k := range rs.listed[0] {
		got, ok := stored.Name(k)
		assert.True(rs.t, ok && got == name, "the store names %v %q, the replicas %q", k, got, name)
	}
}

// TestChurnNeverReusesNames: servers add and remove tools, saves fail at
// random as on a full disk, and the gateway restarts from its state file
// now and then. Every name the gateway ever serves stays its key's: no
// name is ever served for two keys, and no key is ever served under two
// names.
func TestChurnNeverReusesNames(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 22))
	state := filepath.Join(t.TempDir(), "names.json")
	store := &flakyStore{}
	cfg := config{store: store, timeout: testTimeout}
	servers := map[string]*mcp.Server{}
	var specs []downstreamSpec
	for _, name := range []string{"alpha", "beta", "gamma"} {
		spec := inProcessServer(name, "search")
		servers[name] = spec.transport.(inProcess).srv
		specs = append(specs, spec)
	}
	// Few tools, so that they move between servers: a bare name is
	// what a chain could give to another server's tool of that name.
	pool := []string{"fetch", "list", "ｓｅａｒｃｈ", "a__search"}
	has := map[toolname.Key]bool{}
	for _, s := range []string{"alpha", "beta", "gamma"} {
		has[toolname.Key{Server: s, Tool: "search"}] = true
	}

	nameOf := map[toolname.Key]string{}
	keyOf := map[string]toolname.Key{}
	observe := func(g *gateway) {
		for name, st := range g.table.Load().tools {
			if k, ok := keyOf[name]; ok && k != st.key {
				t.Fatalf("%q served for %v, then for %v", name, k, st.key)
			}
			if n, ok := nameOf[st.key]; ok && n != name {
				t.Fatalf("%v served as %q, then as %q", st.key, n, name)
			}
			keyOf[name], nameOf[st.key] = st.key, name
		}
	}

	// Each gateway opens the state file; closing it releases the file.
	var file *toolname.FileStore
	open := func() *gateway {
		var err error
		file, err = toolname.NewFileStore(state)
		require.NoError(t, err)
		store.Store = file
		g, err := newGateway(cfg)
		require.NoError(t, err)
		return g
	}
	closeAll := func(g *gateway) {
		g.close()
		require.NoError(t, file.Close())
	}
	g := open()
	require.NoError(t, g.start(t.Context(), specs))
	restarts, failed := 0, 0
	for range 150 {
		store.fail.Store(rng.IntN(2) == 0)
		switch op := rng.IntN(4); {
		case op == 0:
			closeAll(g)
			g = open()
			require.NoError(t, g.start(t.Context(), specs))
			restarts++
		default:
			server := []string{"alpha", "beta", "gamma"}[rng.IntN(3)]
			tool := pool[rng.IntN(len(pool))]
			k := toolname.Key{Server: server, Tool: tool}
			if has[k] {
				servers[server].RemoveTools(tool)
			} else {
				addEchoTool(servers[server], server, tool)
			}
			has[k] = !has[k]
		}
		time.Sleep(15 * time.Millisecond) // the change reaches the gateway, or not yet
		require.NoError(t, g.flush(t.Context()))
		observe(g)
	}
	failed = int(store.failures.Load())
	closeAll(g)
	t.Logf("%d names served for %d keys; %d restarts, %d failed saves", len(keyOf), len(nameOf), restarts, failed)
	require.Positive(t, restarts)
	require.Positive(t, failed)
	assert.Greater(t, len(keyOf), 10, "the churn served a good many names")
}

// TestNoReuseAfterFailedSave: a tool that arrives while the disk is full
// is not served, so that after a restart its name can go to another tool
// without any client having seen it given twice.
func TestNoReuseAfterFailedSave(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	store := &flakyStore{Store: fileStore(t, state)}
	cfg := config{store: store}
	alpha, beta := inProcessServer("alpha", "search"), inProcessServer("beta", "search")
	served := map[string]toolname.Key{}
	record := func(g *gateway) {
		for name, st := range g.table.Load().tools {
			if k, ok := served[name]; ok && k != st.key {
				t.Errorf("%q was served for %v, and now for %v", name, k, st.key)
			}
			served[name] = st.key
		}
	}

	g, _ := startGateway(t, cfg, alpha, beta)
	store.fail.Store(true)
	addEchoTool(alpha.transport.(inProcess).srv, "alpha", "fetch")
	require.Eventually(t, func() bool { return store.failures.Load() >= 1 }, testTimeout, 10*time.Millisecond)
	require.NoError(t, g.flush(t.Context()))
	record(g)
	g.close()

	alpha.transport.(inProcess).srv.RemoveTools("fetch")
	addEchoTool(beta.transport.(inProcess).srv, "beta", "fetch")
	store.fail.Store(false)
	g, _ = startGateway(t, cfg, alpha, beta)
	record(g)
	assert.Equal(t, toolname.Key{Server: "beta", Tool: "fetch"}, served["fetch"])
}

// TestSaveFailureServesSaved: while the table cannot be stored, the
// gateway serves the last stored one; the new tool gets its name once a
// swap succeeds.
func TestSaveFailureServesSaved(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	store := &flakyStore{Store: fileStore(t, state)}
	alpha := inProcessServer("alpha", "search")
	g, c := startGateway(t, config{store: store}, alpha)
	require.Equal(t, []string{"search"}, c.names(t))

	store.fail.Store(true)
	addEchoTool(alpha.transport.(inProcess).srv, "alpha", "late")
	require.Eventually(t, func() bool { return store.failures.Load() >= 1 }, testTimeout, 10*time.Millisecond)
	require.NoError(t, g.flush(t.Context()))
	assert.Equal(t, []string{"search"}, c.names(t), "a name not stored is not served")
	saved, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.NotContains(t, string(saved), "late")

	store.fail.Store(false)
	require.Eventually(t, c.hasNames(t.Context(), 2), testTimeout, 20*time.Millisecond, "the swap is tried again")
	assert.Equal(t, []string{"late", "search"}, c.names(t))
	saved, err = os.ReadFile(state)
	require.NoError(t, err)
	assert.Contains(t, string(saved), `"late"`)
}

// TestStartOnUnwritableState: a state file that can be read but not
// written does not stop the start: the gateway serves the stored names,
// holds back the new ones, and stores them once it can.
func TestStartOnUnwritableState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	first := fileStore(t, state)
	g, _ := startGateway(t, config{store: first}, inProcessServer("alpha", "search"), inProcessServer("beta", "search"))
	g.close()
	require.NoError(t, first.Close())

	store := &flakyStore{Store: fileStore(t, state)}
	store.fail.Store(true)
	logs := new(syncbuf.Buffer)
	cfg := config{store: store, logger: slog.New(slog.NewTextHandler(logs, nil)), startTimeout: 300 * time.Millisecond}
	_, c := startGateway(t, cfg, inProcessServer("alpha", "search"), inProcessServer("beta", "search"), inProcessServer("gamma", "search"))
	assert.Equal(t, []string{"alpha__search", "beta__search"}, c.names(t))
	assert.Contains(t, logs.String(), errDiskFull.Error())

	store.fail.Store(false)
	require.Eventually(t, c.hasNames(t.Context(), 3), testTimeout, 20*time.Millisecond)
	assert.Equal(t, []string{"alpha__search", "beta__search", "gamma__search"}, c.names(t))
}

// TestLockNotCreatable: a state whose lock file cannot be created (here a
// directory stands in its place, as a read-only directory would refuse
// it) still starts: the gateway serves the stored names and holds back
// the new one, which it stores once it can take the lock, and never while
// another gateway holds it.
func TestLockNotCreatable(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	first := fileStore(t, state)
	g, _ := startGateway(t, config{store: first}, inProcessServer("alpha", "search"))
	g.close()
	require.NoError(t, first.Close())
	require.NoError(t, os.Remove(state+".lock"))
	require.NoError(t, os.Mkdir(state+".lock", 0o700))

	cfg := config{store: fileStore(t, state), startTimeout: 300 * time.Millisecond}
	g, c := startGateway(t, cfg, inProcessServer("alpha", "search"), inProcessServer("beta", "fetch"))
	assert.Equal(t, []string{"search"}, c.names(t), "beta's fetch is not stored, so not served")

	require.NoError(t, os.Remove(state+".lock"))
	second := fileStore(t, state)
	require.NoError(t, g.flush(t.Context()))
	assert.Equal(t, []string{"search"}, c.names(t), "another store holds the lock: nothing is stored")

	require.NoError(t, second.Close())
	require.Eventually(t, c.hasNames(t.Context(), 2), testTimeout, 20*time.Millisecond, "the lock is taken and the name stored")
	assert.Equal(t, []string{"fetch", "search"}, c.names(t))
}

// BenchmarkWatch measures how soon a table that one replica stores is in
// another replica's served table, which the store tells it of (Redis
// pub/sub, PostgreSQL LISTEN/NOTIFY): from the start of the writer's
// Update (its load and swap included: the swap tells the reader before
// Update returns) to the reader's table holding the new generation,
// polled every 50 µs. It reports the median and the slowest, in ms.
func BenchmarkWatch(b *testing.B) {
	for _, tc := range []struct {
		name string
		url  func(testing.TB) string
		open func(testing.TB, string, string) toolname.Store
	}{
		{"redis", dbserver.RedisURL, openRedis},
		{"postgres", dbserver.PostgresURL, openPostgres},
	} {
		b.Run(tc.name, func(b *testing.B) {
			url := tc.url(b)
			chain := fmt.Sprintf("watch-%d", time.Now().UnixNano())
			writer := tc.open(b, url, chain)
			reader, _ := startGateway(b, config{store: tc.open(b, url, chain)}, inProcessServer("alpha", "search"))
			var took []time.Duration
			for i := 0; b.Loop(); i++ {
				stored := time.Now()
				names, _, err := toolname.Update(b.Context(), writer, toolname.Portable, []toolname.Key{{Server: "writer", Tool: fmt.Sprint("t", i)}})
				if err != nil {
					b.Fatal(err)
				}
				_, gen := names.Chain()
				for deadline := stored.Add(testTimeout); ; time.Sleep(50 * time.Microsecond) {
					// The reader's table continues the stored one: its
					// generation is one more.
					if _, got := reader.table.Load().names.Chain(); got > gen {
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("the reader never loaded generation %d", gen)
					}
				}
				took = append(took, time.Since(stored))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
			b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "ms-max")
		})
	}
}
