package gateway

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/naming"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/internal/testkit/cmdtest"
	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
	"github.com/mcpid/mcpid/toolname"
)

func TestParseArgs(t *testing.T) {
	o, err := parseArgs([]string{
		"-env", "docs=TOKEN=a=b",
		"-server", `docs=/bin/docs-mcp  --stdio -v --root '/srv/my docs' --name "it's"`,
		"-server", "a=b=c",
		"-env", "docs=EMPTY=",
		"-profile", "openai", "-qualify", "all", "-state", "redis://127.0.0.1:6379/0", "-stdio", "-max-len", "50",
		"-chain", "prod", "-backup", "backup.json", "-seed", "names.json", "-start-timeout", "3s",
	}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []serverFlag{
		{name: "docs", argv: []string{"/bin/docs-mcp", "--stdio", "-v", "--root", "/srv/my docs", "--name", "it's"}, env: []string{"TOKEN=a=b", "EMPTY="}},
		{name: "a", argv: []string{"b=c"}},
	}, o.servers)
	want := toolname.OpenAI
	want.MaxLen = 50
	assert.Equal(t, want, o.cfg.profile)
	assert.True(t, o.cfg.qualifyAll)
	assert.Equal(t, "redis://127.0.0.1:6379/0", o.state)
	assert.Equal(t, "prod", o.chain)
	assert.Equal(t, "backup.json", o.cfg.backupPath)
	assert.Equal(t, "names.json", o.seed)
	assert.Equal(t, 3*time.Second, o.cfg.startTimeout)
	assert.True(t, o.Stdio)

	o, err = parseArgs(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, toolname.Portable, o.cfg.profile, "the default profile")
	assert.False(t, o.cfg.qualifyAll, "the default qualify mode")
	assert.Equal(t, "mcpid", o.chain, "the default chain")
	assert.Equal(t, defaultStartTimeout, o.cfg.startTimeout, "the default -start-timeout")
	assert.Equal(t, "warn", o.logLevel, "the demo logs warnings and errors only")
	assert.False(t, o.cfg.unknownToolError, "an unknown tool is a tool result by default")
	o, err = parseArgs([]string{"-unknown-tool", "error"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, o.cfg.unknownToolError)

	o, err = parseArgs([]string{"-http", "127.0.0.1:0", "-stateless", "-log-format", "json", "-log-level", "debug"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, o.cfg.stateless)
	assert.Equal(t, []string{"json", "debug"}, []string{o.logFormat, o.logLevel})
	o, err = parseArgs([]string{"-stdio"}, io.Discard)
	require.NoError(t, err)
	assert.False(t, o.cfg.stateless)
	assert.Equal(t, []string{"text", "info"}, []string{o.logFormat, o.logLevel}, "the defaults")

	for _, args := range [][]string{
		{"-server", "noequals"},
		{"-server", "=cmd"},
		{"-server", "name="},
		{"-server", "name=   "},
		{"-server", "name='unclosed"},
		{"-server", "a=x", "-env", "b=K=V"},
		{"-server", "a=x", "-env", "a=K"},
		{"-server", "a=x", "-env", "a==V"},
		{"-max-len", "12"},
		{"-max-len", "65", "-profile", "openai"},
		{"-server", "a=x", "-server", "a=y"},
		{"-profile", "claude"},
		{"-qualify", "some"},
		{"-stdio", "-http", "127.0.0.1:0"},
		{"-http", "0.0.0.0:8080"},
		{"-http", "example.com:80"},
		{"-timeout", "0s"},
		{"-session-timeout", "0s"},
		{"-start-timeout", "0s"},
		{"-chain", ""},
		{"-chain", "prod/eu"},
		{"-seed", "names.json"},
		{"-backup", "backup.json"},
		{"-server", "a=x"},
		{"extra"},
		{"-stdio", "-stateless"},
		{"-log-format", "xml"},
		{"-log-level", "loud"},
		{"-log-level", "info+2"},
		{"-unknown-tool", "refuse"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stderr bytes.Buffer
			_, err := parseArgs(args, &stderr)
			require.ErrorIs(t, err, serve.ErrUsage)
			assert.Contains(t, stderr.String(), "Usage of gateway")
		})
	}
}

func TestDemo(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, Run(t.Context(), nil, &stdout, &stderr))
	assert.Empty(t, stderr.String())
	out := stdout.String()
	for _, line := range []string{
		"  alpha__search    -> alpha::search\n",
		"  beta answered search(query=\"q3 report\")\n",
		"  gamma__search    -> gamma::search  (new)\n",
		"  renamed: 0\n",
		"same names: true\n",
	} {
		assert.Contains(t, out, line)
	}
}

// TestSubprocessDownstreams runs two instances of the searchfetch example
// as stdio subprocesses under different names, as -server starts them,
// beside a -server whose command does not exist.
func TestSubprocessDownstreams(t *testing.T) {
	bin := cmdtest.Build(t, "../../../../examples/searchfetch")
	o, err := parseArgs([]string{"-stdio",
		"-server", "one=" + bin + " -stdio",
		"-server", "two=" + bin + " -stdio",
		"-server", "gone=" + filepath.Join(t.TempDir(), "no-such-command"),
	}, io.Discard)
	require.NoError(t, err)
	var specs []downstreamSpec
	for _, s := range o.servers {
		specs = append(specs, s.spec(os.Environ(), io.Discard, slog.New(slog.DiscardHandler)))
	}
	o.cfg.timeout = testTimeout // two processes start on a busy machine
	_, c := startGateway(t, o.cfg, specs...)
	assert.Equal(t, []string{"one__fetch", "one__search", "two__fetch", "two__search"}, c.names(t))

	res := c.call(t, "one__search", "")
	require.False(t, res.IsError, resultText(res))
	assert.Contains(t, resultText(res), "id=")
	res, err = c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "two__fetch", Arguments: map[string]any{"id": "../etc:passwd"}})
	require.NoError(t, err)
	assert.Equal(t, "invalid_id", envelopeCode(t, res), "the downstream's own tool error comes back as it is")

	// One subprocess dies: its tools fail, the other's still work.
	require.NoError(t, specs[0].transport.(*downstream.Command).Process().Kill())
	require.Eventually(t, func() bool {
		res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "one__search", Arguments: map[string]any{"query": ""}})
		return err == nil && codeOf(res) == "resource_unavailable"
	}, testTimeout, 100*time.Millisecond, "a call to the dead server's tool is a resource_unavailable tool error")
	assert.False(t, c.call(t, "two__search", "").IsError)
}

// seed stores the table in the file at path as the first table of one
// store's chain, as -seed does for each of the two.
func seed(ctx context.Context, store toolname.Store, path string, timeout time.Duration) error {
	names, err := chainstore.ReadTable(path)
	if err == nil && names == nil {
		err = fmt.Errorf("%s: no such file", path)
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err = toolname.Seed(ctx, store, names)
	return err
}

// TestSeedChecksBothChains: -seed checks that both chains are empty before
// it writes either: with the prompts' chain still holding a table (the
// operator emptied the tools' chain alone), it fails naming that chain's
// file and seeds neither, so that once both are emptied the same -seed
// succeeds; with both empty it seeds both.
func TestSeedChecksBothChains(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "backup.json")
	tools, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "alpha", Tool: "search"}})
	require.NoError(t, err)
	prompts, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "alpha", Tool: "summarize"}})
	require.NoError(t, err)
	writeTable(t, path, tools)
	writeTable(t, path+promptsSuffix, prompts)

	toolStore, promptStore := new(chainstore.Mem), new(chainstore.Mem)
	_, err = toolname.Seed(t.Context(), promptStore, prompts)
	require.NoError(t, err)
	err = naming.Seed(t.Context(), path, path+promptsSuffix, testTimeout, toolStore, promptStore)
	require.ErrorIs(t, err, toolname.ErrChainNotEmpty)
	assert.ErrorContains(t, err, path+promptsSuffix, "the error names the chain that is not empty")
	held, _, err := toolStore.Load(t.Context())
	require.NoError(t, err)
	assert.Nil(t, held, "the tools' chain is not seeded")

	promptStore = new(chainstore.Mem)
	require.NoError(t, naming.Seed(t.Context(), path, path+promptsSuffix, testTimeout, toolStore, promptStore))
	for _, s := range []toolname.Store{toolStore, promptStore} {
		held, _, err := s.Load(t.Context())
		require.NoError(t, err)
		assert.NotNil(t, held)
	}
}

// TestSeedWithoutPrompts: -seed FILE with no FILE.prompts (no downstream
// ever served a prompt, so the gateway kept none) seeds the tools' chain
// and leaves the prompts' chain empty, instead of failing on the file.
func TestSeedWithoutPrompts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "backup.json")
	tools, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "alpha", Tool: "search"}})
	require.NoError(t, err)
	writeTable(t, path, tools)

	toolStore, promptStore := new(chainstore.Mem), new(chainstore.Mem)
	require.NoError(t, naming.Seed(t.Context(), path, path+promptsSuffix, testTimeout, toolStore, promptStore))
	held, _, err := toolStore.Load(t.Context())
	require.NoError(t, err)
	require.NotNil(t, held)
	k, err := held.Route("search")
	require.NoError(t, err)
	assert.Equal(t, toolname.Key{Server: "alpha", Tool: "search"}, k)
	held, _, err = promptStore.Load(t.Context())
	require.NoError(t, err)
	assert.Nil(t, held, "the prompts' chain stays empty")
}

// writeTable writes n to path as a backup holds it.
func writeTable(t *testing.T, path string, n *toolname.Table) {
	t.Helper()
	data, err := n.MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))
}

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

// TestMaxLen: -max-len bounds every name, leaving room for a client's own
// prefix, and a long server's tool keeps its own name in it.
func TestMaxLen(t *testing.T) {
	const prefix = "mcp__gateway__" // Claude Code's, within 64 in all
	o, err := parseArgs([]string{"-stdio", "-profile", "anthropic", "-max-len", fmt.Sprint(64 - len(prefix))}, io.Discard)
	require.NoError(t, err)
	long := strings.Repeat("L", 80)
	_, c := startGateway(t, o.cfg, inProcessServer(long, "search"), inProcessServer("short", "search"))
	names := c.names(t)
	require.Len(t, names, 2)
	for _, name := range names {
		assert.LessOrEqual(t, len(prefix+name), 64, name)
		assert.True(t, strings.HasSuffix(name, "search") || strings.Contains(name, "__search"), "%q keeps the tool's own name", name)
	}
	assert.True(t, slices.Contains(names, "short__search"))
}
