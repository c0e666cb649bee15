package gateway

import (
	"context"
	"fmt"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/serve"
	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/toolname"
)

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
	hs := httptest.NewServer(serve.Mount(gosdk.NewHTTPHandler(g.srv, serve.DefaultLimits.GoSDK())))
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

// TestStateLocked: two gateways never share a state file: the second
// one's -state is refused, naming the file, until the first one closes it.
func TestStateLocked(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	_, closeFirst, err := chainstore.Open(t.Context(), state, "mcpid")
	require.NoError(t, err)
	_, _, err = chainstore.Open(t.Context(), state, "mcpid")
	require.ErrorIs(t, err, toolname.ErrStoreLocked)
	assert.Contains(t, err.Error(), state)
	closeFirst()
	_, closeSecond, err := chainstore.Open(t.Context(), state, "mcpid")
	require.NoError(t, err, "the lock is released at close")
	closeSecond()
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
