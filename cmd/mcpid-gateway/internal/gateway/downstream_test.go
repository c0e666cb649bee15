package gateway

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
)

// TestRestartBackoffBounded: the wait before each restart of a downstream
// never exceeds -timeout, and starts again from its first step once a
// session has listed its tools and answered a call. Two downstreams crash
// every 300 ms under a timeout of 1 s (the 3 s under 5 s, scaled
// down): one whose calls the client keeps making, and one never called.
// The waits are read from the gateway's log, not from a clock.
func TestRestartBackoffBounded(t *testing.T) {
	busy, busyEnv := testServer(t, "busy", "tools=work,lifetime=300ms")
	idle, idleEnv := testServer(t, "idle", "tools=rest,lifetime=300ms")
	cfg, specs := fromArgs(t, io.Discard, "-server", busy, "-env", busyEnv, "-server", idle, "-env", idleEnv)
	logs := new(syncbuf.Buffer)
	cfg.logger = slog.New(slog.NewJSONHandler(logs, nil))
	cfg.timeout = time.Second
	_, c := startGateway(t, cfg, specs...)

	const restarts = 6
	require.Eventually(t, func() bool {
		c.call(t, "work", "")
		return len(restartWaits(t, logs.String())["idle"]) >= restarts
	}, testTimeout, 20*time.Millisecond, "the idle server is restarted %d times", restarts)

	waits := restartWaits(t, logs.String())
	for server, ws := range waits {
		for i, w := range ws {
			assert.LessOrEqual(t, w, cfg.timeout, "wait %d before restarting %s", i, server)
		}
	}
	assert.Contains(t, waits["idle"], cfg.timeout, "the idle server's waits double up to the timeout: %v", waits["idle"])
	first := 0
	for _, w := range waits["busy"] {
		if w == retryMin {
			first++
		}
	}
	assert.GreaterOrEqual(t, first, restarts/2, "after sessions that answered, the busy server's waits start again from the first step: %v", waits["busy"])
}

// restartWaits returns the waits before each restart that the gateway's
// JSON log records, by server, in order.
func restartWaits(t *testing.T, log string) map[string][]time.Duration {
	t.Helper()
	waits := map[string][]time.Duration{}
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		var line struct {
			Msg    string        `json:"msg"`
			Server string        `json:"server"`
			Wait   time.Duration `json:"wait"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "a log line: %s", sc.Text())
		if line.Msg == "gateway: downstream unavailable; restarting it" {
			waits[line.Server] = append(waits[line.Server], line.Wait)
		}
	}
	return waits
}

// TestRestartBackoffResetByAnyAnswer: the backoff starts again from its
// first step once a session has answered any relayed request, not only a
// tool call: a downstream whose callers only read its resources (or get
// its prompts) is not in a crash loop either.
func TestRestartBackoffResetByAnyAnswer(t *testing.T) {
	reader, env := testServer(t, "reader", "tools=rest,lifetime=300ms")
	cfg, specs := fromArgs(t, io.Discard, "-server", reader, "-env", env)
	logs := new(syncbuf.Buffer)
	cfg.logger = slog.New(slog.NewJSONHandler(logs, nil))
	cfg.timeout = time.Second
	_, c := startGateway(t, cfg, specs...)

	const restarts = 6
	require.Eventually(t, func() bool {
		// The test server answers a read with an empty result.
		_, _ = c.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "file:///notes"})
		return len(restartWaits(t, logs.String())["reader"]) >= restarts
	}, testTimeout, 20*time.Millisecond, "the server is restarted %d times", restarts)
	first := 0
	waits := restartWaits(t, logs.String())["reader"]
	for _, w := range waits {
		if w == retryMin {
			first++
		}
	}
	assert.GreaterOrEqual(t, first, restarts/2, "after sessions that answered a read, the waits start again from the first step: %v", waits)
}

// TestStorm: a downstream announces 1,000 new tools every 20 ms for a
// minute (GATEWAY_STORM sets another duration). The gateway's memory and
// state file stay bounded by the caps, and a healthy server's calls go on
// without error; their latency before and during the storm is reported,
// not asserted (the machine's load is not the gateway's).
func TestStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute long")
	}
	dur := time.Minute
	if v := os.Getenv("GATEWAY_STORM"); v != "" {
		var err error
		dur, err = time.ParseDuration(v)
		require.NoError(t, err)
	}
	state := filepath.Join(t.TempDir(), "names.json")
	srv, env := testServer(t, "storm", "storm")
	cfg, specs := fromArgs(t, io.Discard, "-server", srv, "-env", env)
	cfg.store = fileStore(t, state)
	g, c := startGateway(t, cfg, inProcessServer("calm", "lookup"))

	calm := callTimes(t, c, 300, 0)
	require.NoError(t, g.join(t.Context(), specs[0]))
	storm := callTimes(t, c, 0, dur)

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	info, err := os.Stat(state)
	require.NoError(t, err)
	named := stormNamed(t, state)
	live := len(g.table.Load().tools)
	t.Logf("calm calls p50 %v p99 %v; during the storm (%d calls) p50 %v p99 %v: p99 %.2fx",
		calm[len(calm)/2], calm[len(calm)*99/100], len(storm), storm[len(storm)/2], storm[len(storm)*99/100],
		float64(storm[len(storm)*99/100])/float64(calm[len(calm)*99/100]))
	t.Logf("heap in use %d MiB, state file %d KiB, %d tools of the storm named, %d served", ms.HeapInuse>>20, info.Size()>>10, named, live)
	assert.LessOrEqual(t, named, maxEver, "the distinct tools named for the storm server")
	assert.LessOrEqual(t, live, maxTools+1, "the tools served")
	assert.Less(t, info.Size(), int64(4<<20), "the state file")
	assert.Less(t, ms.HeapInuse, uint64(256<<20), "the gateway's heap")
}

// callTimes calls the calm server's tool n times, or for d, and returns
// the calls' durations, sorted. Every call must succeed.
func callTimes(t *testing.T, c *client, n int, d time.Duration) []time.Duration {
	var times []time.Duration
	end := time.Now().Add(d)
	for i := 0; i < n || time.Now().Before(end); i++ {
		began := time.Now()
		res := c.call(t, "lookup", "q")
		times = append(times, time.Since(began))
		require.False(t, res.IsError, resultText(res))
	}
	slices.Sort(times)
	return times
}

// stormNamed counts the storm server's tools that the saved table names,
// live or retired.
func stormNamed(t *testing.T, state string) int {
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	var table struct {
		Names, Retired []struct{ Server string }
	}
	require.NoError(t, json.Unmarshal(data, &table))
	n := 0
	for _, e := range append(table.Names, table.Retired...) {
		if e.Server == "storm" {
			n++
		}
	}
	return n
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
