package gateway

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
