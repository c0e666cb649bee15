package gateway

import (
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid/toolname"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

// TestLookupByOwnName: a call by a downstream's own tool name, as MCP Apps
// and prompts make, reaches it when exactly one live tool has that name,
// and is an ambiguous_tool error naming the candidates otherwise.
func TestLookupByOwnName(t *testing.T) {
	_, c := startGateway(t, config{qualifyAll: true}, demoServers()...)
	assert.Equal(t, []string{"alpha__fetch", "alpha__search", "beta__create_issue", "beta__search"}, c.names(t))
	assert.Equal(t, `alpha answered fetch(query="q")`, resultText(c.call(t, "fetch", "q")))
	assert.Equal(t, `beta answered create_issue(query="q")`, resultText(c.call(t, "create_issue", "q")))

	res := c.call(t, "search", "q")
	assert.Equal(t, "ambiguous_tool", envelopeCode(t, res))
	assert.Contains(t, resultText(res), "alpha__search, beta__search")

	res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "Search", Arguments: map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, "unknown_tool", envelopeCode(t, res), "never a case-folded match")
}

// TestErrorEnvelopeChannels: the gateway's own error results carry the
// envelope as text always, and as structuredContent only for tools that
// declare no output schema, which a client would validate it against.
func TestErrorEnvelopeChannels(t *testing.T) {
	tools := `[{"name":"plain","inputSchema":{"type":"object"}},
		{"name":"typed","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}]`
	_, c := startGateway(t, config{}, downstreamSpec{"refusing", scripted{answersInitialize: true, tools: tools, refuseCall: "no"}})
	plain := c.call(t, "plain", "x")
	assert.Equal(t, "call_refused", envelopeCode(t, plain))
	require.NotNil(t, plain.StructuredContent)
	typed := c.call(t, "typed", "x")
	assert.Equal(t, "call_refused", envelopeCode(t, typed))
	assert.Nil(t, typed.StructuredContent, "the envelope does not match the tool's output schema")
	res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "typed", Arguments: []int{1}})
	require.NoError(t, err)
	assert.Equal(t, "invalid_arguments", envelopeCode(t, res))
	assert.Nil(t, res.StructuredContent)
}

// TestSchemaCap: a tool whose schemas exceed maxSchema is not served; the
// server's other tools are.
func TestSchemaCap(t *testing.T) {
	big := fmt.Sprintf(`{"type":"object","description":%q}`, strings.Repeat("x", maxSchema))
	tools := `[{"name":"small","inputSchema":{"type":"object"}},{"name":"huge","inputSchema":` + big + `}]`
	_, c := startGateway(t, config{}, downstreamSpec{"big", scripted{answersInitialize: true, tools: tools}})
	assert.Equal(t, []string{"small"}, c.names(t))
}

// TestDistinctToolCap: beyond maxEver distinct tools named for one server,
// its new tools are refused; the ones already named keep being served.
func TestDistinctToolCap(t *testing.T) {
	g, err := newGateway(config{})
	require.NoError(t, err)
	defer g.close()
	d := newChild(downstreamSpec{name: "many"})
	for i := range maxEver - 1 {
		d.ever[fmt.Sprint("old", i)] = true
	}
	tool := func(name string) *mcp.Tool {
		return &mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}
	}
	list := func(tools ...*mcp.Tool) listing { return g.servable(d.name, tools) }
	changed, _ := g.update(d, list(tool("new1"), tool("new2"), tool("old1")))
	assert.True(t, changed)
	assert.Equal(t, []string{"new1", "old1"}, toolNames(d.tools), "new1 is the last one the cap admits")
	changed, _ = g.update(d, list(tool("new1"), tool("new3"), tool("old1")))
	assert.False(t, changed, "new3 is refused: nothing changed")
	assert.Len(t, d.ever, maxEver)
}

func toolNames(tools []*mcp.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names
}

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
