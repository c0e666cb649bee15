package gateway

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/cmdtest"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/serve"
	"github.com/mcpid/mcpid/toolname"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{"docs", []string{"/bin/docs-mcp", "--stdio", "-v", "--root", "/srv/my docs", "--name", "it's"}, []string{"TOKEN=a=b", "EMPTY="}},
		{"a", []string{"b=c"}, nil},
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
