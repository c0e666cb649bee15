package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
)

// TestRestartBackoffBounded: the wait before each restart of a downstream
// never exceeds -timeout, and starts again from its first step once a
// session has listed its tools and answered a call. Two downstreams crash
// every 300 ms under a timeout of 1 s (the 3 s under 5 s, scaled
// down): one whose calls the client keeps making, and one never called.
// The waits are read from the gateway's log, not from a clock.
func TestRestartBackoffBounded(t *testing.T) {
	skipShort(t)
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
	d := downstream.NewChild("many", nil)
	for i := range maxEver - 1 {
		d.Ever[fmt.Sprint("old", i)] = true
	}
	tool := func(name string) *mcp.Tool {
		return &mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}
	}
	list := func(tools ...*mcp.Tool) listing { return g.servable(d.Name, tools) }
	changed, _ := g.update(d, list(tool("new1"), tool("new2"), tool("old1")))
	assert.True(t, changed)
	assert.Equal(t, []string{"new1", "old1"}, toolNames(d.Tools), "new1 is the last one the cap admits")
	changed, _ = g.update(d, list(tool("new1"), tool("new3"), tool("old1")))
	assert.False(t, changed, "new3 is refused: nothing changed")
	assert.Len(t, d.Ever, maxEver)
}

func toolNames(tools []*mcp.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names
}

// fromArgs parses a gateway command line as main does and returns its
// config, logging to logs, and its downstreams.
func fromArgs(t *testing.T, logs io.Writer, args ...string) (config, []downstreamSpec) {
	t.Helper()
	o, err := parseArgs(append([]string{"-stdio"}, args...), io.Discard)
	require.NoError(t, err)
	logger := slog.New(slog.NewTextHandler(logs, nil))
	o.cfg.logger = logger
	o.cfg.timeout = testTimeout
	var specs []downstreamSpec
	for _, s := range o.servers {
		specs = append(specs, s.spec(os.Environ(), io.Discard, logger))
	}
	return o.cfg, specs
}

// TestHungDownstream: a downstream that stops reading its stdin costs
// only its own tools, each call answered resource_unavailable within the
// timeout, even once its stdin pipe is full; the other server's calls go
// on.
func TestHungDownstream(t *testing.T) {
	skipShort(t)
	hung, hungEnv := testServer(t, "hung", "hang")
	ok, okEnv := testServer(t, "ok", "tools=lookup")
	cfg, specs := fromArgs(t, io.Discard, "-server", hung, "-env", hungEnv, "-server", ok, "-env", okEnv)
	cfg.timeout = 2 * time.Second
	_, c := startGateway(t, cfg, specs...)
	// On a loaded machine a server may take longer than the timeout to
	// start, and is started again.
	require.Eventually(t, c.hasNames(t.Context(), 2), testTimeout, 20*time.Millisecond)
	require.Equal(t, []string{"lookup", "search"}, c.names(t))

	// Far more than a pipe holds, all at once.
	big := strings.Repeat("x", 100<<10)
	codes := make([]string, 24)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() { codes[i] = boundedCall(t, c, "search", big) })
	}
	wg.Wait()
	for i, code := range codes {
		assert.Equal(t, "resource_unavailable", code, "call %d", i)
	}
	assert.Equal(t, "resource_unavailable", boundedCall(t, c, "search", "again"))
	assert.Equal(t, "test answered lookup", resultText(c.call(t, "lookup", "q")))
}

// boundedCall calls name and returns the code of its tool error, or
// "no answer" when the gateway has not answered within testTimeout, ten
// times the gateway's own bound on a call: a call the gateway failed to
// bound.
func boundedCall(t *testing.T, c *client, name, query string) string {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"query": query}})
	if err != nil {
		return "no answer"
	}
	return codeOf(res)
}

// TestHungStart: a downstream that never finishes starting delays neither
// the others' start nor the gateway's.
func TestHungStart(t *testing.T) {
	skipShort(t)
	silent, silentEnv := testServer(t, "silent", "silent")
	ok, okEnv := testServer(t, "ok", "tools=lookup")
	cfg, specs := fromArgs(t, io.Discard, "-server", silent, "-env", silentEnv, "-server", ok, "-env", okEnv, "-start-timeout", "3s")
	cfg.timeout = 10 * time.Minute
	_, c := startGateway(t, cfg, specs...)
	assert.Equal(t, []string{"lookup"}, c.names(t), "the first listing waits for the silent server no longer than -start-timeout")
}

// TestDownstreamRestarts: a downstream that dies is started again with
// backoff; its tools stay listed meanwhile and answer
// resource_unavailable, and when it comes back with other tools the
// client is told.
func TestDownstreamRestarts(t *testing.T) {
	srv, env := testServer(t, "flaky", "restart="+filepath.Join(t.TempDir(), "starts"))
	cfg, specs := fromArgs(t, io.Discard, "-server", srv, "-env", env)
	_, c := startGateway(t, cfg, specs...)
	require.Equal(t, []string{"search"}, c.names(t))

	assert.Equal(t, "resource_unavailable", envelopeCode(t, c.call(t, "search", "x")), "it dies mid-call")
	// Its second start takes two seconds to fail.
	assert.Equal(t, []string{"search"}, c.names(t), "its tools stay listed while it is down")
	assert.Equal(t, "resource_unavailable", envelopeCode(t, c.call(t, "search", "x")))

	waitChanged(t, c)
	require.Eventually(t, c.hasNames(t.Context(), 2), testTimeout, 20*time.Millisecond)
	assert.Equal(t, []string{"extra", "search"}, c.names(t))
	assert.Equal(t, "test answered search", resultText(c.call(t, "search", "x")))
}

// TestGarbageBetweenAnswers: lines that are not JSON-RPC messages on a
// downstream's stdout (a banner, cut JSON, a response with an object id at
// start, garbage between its answers) are logged and dropped; its session
// and calls go on.
func TestGarbageBetweenAnswers(t *testing.T) {
	srv, env := testServer(t, "noisy", "garbage")
	logs := new(syncbuf.Buffer)
	cfg, specs := fromArgs(t, logs, "-server", srv, "-env", env)
	_, c := startGateway(t, cfg, specs...)
	for range 3 {
		assert.Equal(t, "test answered search", resultText(c.call(t, "search", "x")))
	}
	assert.GreaterOrEqual(t, strings.Count(logs.String(), "dropped a line from a downstream"), 3+5, logs.String())
}

// TestDownstreamEnv: a downstream gets PATH, HOME and the locale from the
// gateway's environment, and its own -env variables, nothing else: not
// another server's, not the gateway's secrets.
func TestDownstreamEnv(t *testing.T) {
	t.Setenv("GATEWAY_SECRET", "s3cret")
	one, oneEnv := testServer(t, "one", "env")
	two, twoEnv := testServer(t, "two", "env")
	cfg, specs := fromArgs(t, io.Discard,
		"-server", one, "-env", oneEnv, "-env", "one=TOKEN=for one",
		"-server", two, "-env", twoEnv, "-env", "two=TOKEN=for=two")
	_, c := startGateway(t, cfg, specs...)
	env := strings.Split(resultText(c.call(t, "one__search", "")), "\n")
	assert.Contains(t, env, "TOKEN=for one")
	assert.Contains(t, env, "PATH="+os.Getenv("PATH"))
	assert.NotContains(t, env, "TOKEN=for=two")
	assert.NotContains(t, env, "GATEWAY_SECRET=s3cret")
	assert.Contains(t, strings.Split(resultText(c.call(t, "two__search", "")), "\n"), "TOKEN=for=two")
}

// TestProgressAndLogRelay: the progress notifications and log messages a
// downstream sends during a call reach the caller, under the caller's
// progress token and before the call's answer, in process and over
// streamable HTTP, where they must go out on the call's own stream (the
// client here opens no other).
func TestProgressAndLogRelay(t *testing.T) {
	srv, env := testServer(t, "busy", "progress")
	cfg, specs := fromArgs(t, io.Discard, "-server", srv, "-env", env)
	g, _ := startGateway(t, cfg, specs...)
	hs := httptest.NewServer(serve.Mount(gosdk.NewHTTPHandler(g.srv, httpOptions(serve.DefaultLimits))))
	t.Cleanup(hs.Close)

	for name, transport := range map[string]mcp.Transport{
		"in process": inProcess{g.srv},
		"http":       &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true},
	} {
		t.Run(name, func(t *testing.T) {
			var heard notes
			client := mcp.NewClient(&mcp.Implementation{Name: "watcher", Version: "v0"}, heard.options())
			cs, err := client.Connect(t.Context(), transport, nil)
			require.NoError(t, err)
			defer cs.Close()
			// The caller asks for logs at info and above: for the session
			// (before MCP 2026-07-28) and for this call (since).
			//lint:ignore SA1019 the gateway relays logs while hosts use them
			require.NoError(t, cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}))
			//lint:ignore SA1019 the gateway relays logs while hosts use them
			params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}, Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
			params.SetProgressToken("my-token")
			res, err := cs.CallTool(t.Context(), params)
			require.NoError(t, err)
			require.Equal(t, "test answered search", resultText(res))
			want := []string{"progress my-token 1", "progress my-token 2", "log working on search"}
			assert.Equal(t, want, heard.wait(t, len(want)))
		})
	}
}

// notes records the progress and log notifications a client hears.
type notes struct {
	mu  sync.Mutex
	got []string
}

// options returns client options whose handlers record into n.
func (n *notes) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			n.add(fmt.Sprintf("progress %v %v", req.Params.ProgressToken, req.Params.Progress))
		},
		//lint:ignore SA1019 the gateway relays logs while hosts use them
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			n.add(fmt.Sprint("log ", req.Params.Data))
		},
	}
}

func (n *notes) add(s string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, s)
}

// wait waits until n holds at least count notes, then returns them and
// forgets them.
func (n *notes) wait(t *testing.T, count int) []string {
	t.Helper()
	require.Eventually(t, func() bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		return len(n.got) >= count
	}, testTimeout, 10*time.Millisecond, "heard %v", n)
	n.mu.Lock()
	defer n.mu.Unlock()
	got := n.got
	n.got = nil
	return got
}

// String returns the notes heard so far.
func (n *notes) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return fmt.Sprint(n.got)
}

// skipShort skips a test that waits out the gateway's real timeouts and
// backoffs (seconds each) under -short, the quick loop of make test; make
// check runs it.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("waits out real timeouts; make check runs it")
	}
}
