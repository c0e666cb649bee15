package gateway

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
	"github.com/mcpid/mcpid/toolname"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
)

// callLine is one per-call line of the gateway's JSON log.
type callLine struct {
	Level    string        `json:"level"`
	Server   string        `json:"server"`
	Tool     string        `json:"tool"`
	Name     string        `json:"name"`
	Outcome  string        `json:"outcome"`
	Duration time.Duration `json:"duration"`
	Err      string        `json:"err"`
}

// TestCallLog: every relayed call logs one JSON line naming the
// downstream, its tool, the name called, the outcome and the duration;
// a call that failed on the way (refused, or to a downstream that is down)
// is a warning with its error.
func TestCallLog(t *testing.T) {
	logs := new(syncbuf.Buffer)
	tool := `[{"name":"search","inputSchema":{"type":"object"}}]`
	g, c := startGateway(t, config{logger: slog.New(slog.NewJSONHandler(logs, nil))},
		inProcessServer("alpha", "search"),
		downstreamSpec{"refusing", scripted{answersInitialize: true, tools: tool, refuseCall: "no"}},
	)
	c.call(t, "alpha__search", "q")
	c.call(t, "refusing__search", "q")
	res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "alpha__search", Arguments: []int{1}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	// A tool whose downstream is down: it has no session.
	down := servedTool{key: toolname.Key{Server: "down", Tool: "search"}, d: downstream.NewChild("down", nil), tool: &mcp.Tool{Name: "search"}}
	res = g.forward(t.Context(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "down__search"}}, down)
	require.Equal(t, "resource_unavailable", envelopeCode(t, res))

	var got []callLine
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	for sc.Scan() {
		var line struct {
			Msg string `json:"msg"`
			callLine
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "a log line: %s", sc.Text())
		if line.Msg == "gateway: call" {
			assert.Positive(t, line.Duration, "the duration of %+v", line.callLine)
			got = append(got, line.callLine)
		}
	}
	want := []callLine{
		{Level: "INFO", Server: "alpha", Tool: "search", Name: "alpha__search", Outcome: "ok"},
		{Level: "WARN", Server: "refusing", Tool: "search", Name: "refusing__search", Outcome: "call_refused", Err: `calling "tools/call": no`},
		{Level: "INFO", Server: "alpha", Tool: "search", Name: "alpha__search", Outcome: "invalid_arguments"},
		{Level: "WARN", Server: "down", Tool: "search", Name: "down__search", Outcome: "resource_unavailable", Err: `the server "down" is not connected`},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(callLine{}, "Duration")); diff != "" {
		t.Errorf("the call lines (-want +got):\n%s", diff)
	}
}

// TestStatelessSessionLines: a -stateless gateway, which opens and closes
// a session for every request, logs the SDK's session open and close
// lines at Debug: at Info a request logs only what it did.
func TestStatelessSessionLines(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		logs := new(syncbuf.Buffer)
		g, _ := startGateway(t, config{stateless: true, logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: level}))},
			inProcessServer("alpha", "search"))
		hs := httptest.NewServer(g.handler(serve.DefaultLimits, true))
		t.Cleanup(hs.Close)
		before := len(logs.String()) // the lines of the test's own client end here
		c := &rawClient{t: t, url: hs.URL + "/mcp", version: "2025-11-25"}
		a, _ := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{}}}`)
		require.Nil(t, a.Error)
		if level == slog.LevelDebug {
			// The session may close after its answer is read.
			require.Eventually(t, func() bool { return strings.Contains(logs.String()[before:], "server session disconnected") }, testTimeout, 5*time.Millisecond)
		}
		var got []string
		for line := range strings.Lines(logs.String()[before:]) {
			if _, rest, ok := strings.Cut(line, " level="); ok {
				got = append(got, strings.TrimSpace(strings.SplitN(rest, " server=", 2)[0]))
			}
		}
		want := []string{`INFO msg="gateway: call"`}
		if level == slog.LevelDebug {
			want = []string{`DEBUG msg="server connecting"`, `DEBUG msg="server session connected" session_id=""`,
				`INFO msg="gateway: call"`, `DEBUG msg="server session disconnected" session_id=""`}
		}
		assert.Equal(t, want, got, "at %v", level)
	}
}
