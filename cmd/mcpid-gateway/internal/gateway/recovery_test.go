package gateway

import (
	"context"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
	"github.com/mcpid/mcpid/toolname"
)

// recoverySteps returns the commands that empty a chain in the README's
// recovery steps, for Redis and for PostgreSQL, as written there, and
// checks that docs/gateway-relay.md gives the same.
func recoverySteps(t *testing.T) (redisCmd, pgCmd string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "README.md"))
	require.NoError(t, err)
	docs, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "gateway-relay.md"))
	require.NoError(t, err)
	find := func(re string) string {
		m := regexp.MustCompile(re).FindSubmatch(readme)
		require.NotNil(t, m, "the README's recovery steps have %s", re)
		assert.Contains(t, string(docs), string(m[1]), "docs/gateway-relay.md gives the README's command")
		return string(m[1])
	}
	return find("`(DEL [^`]+)`"), find("`(DELETE FROM [^`]+)`")
}

// TestRecoveryAsWritten: the README's recovery steps, run as written on a
// real Redis and a real PostgreSQL. A replica names its tools and
// prompts, keeping both chains in its -backup; the store then holds a
// wrong table in both chains (another chain's, as a restore from
// elsewhere leaves it), which the replica refuses. The steps: the
// replicas stopped, both chains
// emptied with the README's command, one gateway started with -seed and
// the refusing replica's -backup, the others restarted: the seeded
// gateway serves the backup's names, and the replica that had refused
// starts on the store and serves them too.
func TestRecoveryAsWritten(t *testing.T) {
	redisCmd, pgCmd := recoverySteps(t)
	for _, tc := range []struct {
		name  string
		url   func(testing.TB) string
		open  func(t testing.TB, url, chain string) toolname.Store
		empty func(t *testing.T, url, chain string)
	}{
		{"redis", dbserver.RedisURL, openRedis, func(t *testing.T, url, chain string) {
			opts, err := redis.ParseURL(url)
			require.NoError(t, err)
			client := redis.NewClient(opts)
			defer client.Close()
			var args []any
			for _, f := range strings.Fields(strings.ReplaceAll(redisCmd, "CHAIN", chain)) {
				args = append(args, f)
			}
			require.NoError(t, client.Do(t.Context(), args...).Err(), "%v", args)
		}},
		{"postgres", dbserver.PostgresURL, openPostgres, func(t *testing.T, url, chain string) {
			pool, err := pgxpool.New(t.Context(), url)
			require.NoError(t, err)
			defer pool.Close()
			_, err = pool.Exec(t.Context(), strings.ReplaceAll(pgCmd, "CHAIN", chain))
			require.NoError(t, err)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := tc.url(t)
			chain := "recovery-" + strings.ReplaceAll(t.Name(), "/", "-") + "-" + time.Now().Format("150405.000000")
			dir := t.TempDir()
			backup := filepath.Join(dir, "replica.json")
			want := recoveryNames{tools: []string{"link", "touch"}, prompts: []string{"summarize"}}

			replica := startRecoveryGateway(t, "-state", url, "-chain", chain, "-backup", backup)
			assert.Equal(t, want, replica.names(t))
			require.Eventually(t, func() bool {
				tools, err1 := chainstore.ReadTable(backup)
				prompts, err2 := chainstore.ReadTable(backup + promptsSuffix)
				return err1 == nil && err2 == nil && tools != nil && prompts != nil && prompts.Len() == 1
			}, testTimeout, 10*time.Millisecond, "the backup keeps both chains")
			replica.stop(t)

			// The wrong table in both chains: another chain's.
			tc.empty(t, url, chain)
			for _, c := range []string{chain, chain + "/prompts"} {
				other, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "other", Tool: "delete_everything"}})
				require.NoError(t, err)
				_, err = toolname.Seed(t.Context(), tc.open(t, url, c), other)
				require.NoError(t, err)
			}

			refusing := startRecoveryGateway(t, "-state", url, "-chain", chain, "-backup", backup)
			assert.Equal(t, want, refusing.names(t), "a replica that refuses serves its backup's names")
			require.Eventually(t, func() bool { return strings.Contains(refusing.stderr.String(), string(toolname.CodeRollback)) }, testTimeout, 10*time.Millisecond,
				"the replica refuses the wrong table")
			refusing.stop(t)

			// The steps, as written.
			tc.empty(t, url, chain)
			seeded := startRecoveryGateway(t, "-state", url, "-chain", chain, "-backup", filepath.Join(dir, "seeded.json"), "-seed", backup)
			assert.Equal(t, want, seeded.names(t), "the seeded gateway serves the backup's names")
			restarted := startRecoveryGateway(t, "-state", url, "-chain", chain, "-backup", backup)
			assert.Equal(t, want, restarted.names(t), "the replica that refused serves them too")
			assert.NotContains(t, restarted.stderr.String(), string(toolname.CodeRollback))
			for _, c := range []struct{ chain, file string }{{chain, backup}, {chain + "/prompts", backup + promptsSuffix}} {
				stored, _, err := tc.open(t, url, c.chain).Load(t.Context())
				require.NoError(t, err)
				id, _ := stored.Chain()
				wantID, _ := mustReadTable(t, c.file).Chain()
				assert.Equal(t, wantID, id, "the chain %s is the backup's", c.chain)
			}
		})
	}
}

// recoveryNames are the tool and prompt names a gateway lists.
type recoveryNames struct{ tools, prompts []string }

// recoveryGateway is a gateway process over one docServer downstream,
// and its client.
type recoveryGateway struct {
	cs     *mcp.ClientSession
	stderr *syncbuf.Buffer
}

// startRecoveryGateway starts a gateway process with args (and -stdio,
// over one docServer downstream named docs) and connects to it.
func startRecoveryGateway(t *testing.T, args ...string) *recoveryGateway {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	args = append([]string{"-stdio", "-timeout", "10s", "-start-timeout", "5s",
		"-server", "docs='" + exe + "'", "-env", "docs=" + testDocServerEnv + "=docs"}, args...)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), testGatewayEnv+"=1")
	g := &recoveryGateway{stderr: new(syncbuf.Buffer)}
	cmd.Stderr = g.stderr
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	g.cs, err = mcp.NewClient(&mcp.Implementation{Name: "recovery", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err, "the gateway's log:\n%s", g.stderr)
	t.Cleanup(func() {
		g.stop(t)
		if t.Failed() {
			t.Logf("the gateway's log (%v):\n%s", args, g.stderr)
		}
	})
	return g
}

// names returns the tools and prompts g lists.
func (g *recoveryGateway) names(t *testing.T) recoveryNames {
	t.Helper()
	tools, err := listNames(t.Context(), g.cs)
	require.NoError(t, err, "the gateway's log:\n%s", g.stderr)
	res, err := g.cs.ListPrompts(t.Context(), nil)
	require.NoError(t, err, "the gateway's log:\n%s", g.stderr)
	var prompts []string
	for _, p := range res.Prompts {
		prompts = append(prompts, p.Name)
	}
	return recoveryNames{tools: tools, prompts: prompts}
}

// stop ends g's process: its stdin closed, it exits.
func (g *recoveryGateway) stop(*testing.T) { _ = g.cs.Close() }
