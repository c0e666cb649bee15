package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runMainEnv, when set to 1, makes the test binary run main instead of
// the tests, so that tests can start the server as a subprocess.
const runMainEnv = "SEARCHFETCH_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serverCommand returns a command that runs this binary as the server.
func serverCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// TestStdioSubprocess: the -stdio mode, run as a subprocess, answers
// initialize and tools/list, and its tools work, through the SDK's
// CommandTransport.
func TestStdioSubprocess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := serverCommand(ctx, "-stdio")
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	require.NoError(t, err, "stderr: %s", &stderr)

	init := cs.InitializeResult()
	require.NotNil(t, init)
	assert.Equal(t, "mcpid-searchfetch", init.ServerInfo.Name)
	require.NotNil(t, init.Capabilities.Tools)

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	assert.ElementsMatch(t, []string{"search", "fetch"}, names)

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: searchInput{Query: "grinder"}})
	require.NoError(t, err)
	require.False(t, res.IsError, textOf(res))
	ids := mcpid.ExtractIDs(textOf(res))
	require.NotEmpty(t, ids)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: fetchInput{ID: ids[0]}})
	require.NoError(t, err)
	require.False(t, res.IsError, textOf(res))
	var doc fetchOutput
	require.NoError(t, decodeStructured(res, &doc))
	assert.Equal(t, ids[0], doc.ID)

	require.NoError(t, cs.Close())
	assert.Contains(t, stderr.String(), "MCP on stdio; resource server http://127.0.0.1:")
}

// TestStdioRawJSONRPC: the -stdio mode speaks newline-delimited JSON-RPC
// on stdout and nothing else, and exits when stdin closes.
func TestStdioRawJSONRPC(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := serverCommand(ctx, "-stdio")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	// Reap the child however the test ends: a failed require stops the
	// test before the Wait below, and cancel alone would kill the child
	// without waiting for it.
	waited := false
	t.Cleanup(func() {
		if !waited {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	lines := bufio.NewScanner(stdout)

	send := func(msg string) {
		_, err := io.WriteString(stdin, msg+"\n")
		require.NoError(t, err)
	}
	// receive reads lines until the response with the given id; every line
	// must be a JSON-RPC 2.0 message.
	receive := func(id int) map[string]any {
		for lines.Scan() {
			var msg map[string]any
			require.NoError(t, json.Unmarshal(lines.Bytes(), &msg), "stdout line: %s", lines.Bytes())
			require.Equal(t, "2.0", msg["jsonrpc"])
			if msg["id"] == float64(id) {
				return msg
			}
		}
		t.Fatalf("stdout ended before response %d: %v", id, lines.Err())
		return nil
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	init := receive(1)
	require.Contains(t, init, "result", "%v", init)
	result := init["result"].(map[string]any)
	assert.Equal(t, "2025-06-18", result["protocolVersion"])
	assert.Equal(t, "mcpid-searchfetch", result["serverInfo"].(map[string]any)["name"])

	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	list := receive(2)
	require.Contains(t, list, "result", "%v", list)
	var names []string
	for _, tool := range list["result"].(map[string]any)["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	assert.ElementsMatch(t, []string{"search", "fetch"}, names)

	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"cin_a/orders:../../etc/passwd"}}}`)
	call := receive(3)
	require.Contains(t, call, "result", "%v", call)
	res := call["result"].(map[string]any)
	assert.Equal(t, true, res["isError"])
	assert.Equal(t, "invalid_id", res["structuredContent"].(map[string]any)["code"])

	require.NoError(t, stdin.Close())
	err = cmd.Wait()
	waited = true
	require.NoError(t, err, "the server exits cleanly when stdin closes")
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
}

// TestHTTPMode: the streamable HTTP handler serves the same tools.
func TestHTTPMode(t *testing.T) {
	fx := newFixture()
	rsrv := httptest.NewServer(fx)
	defer rsrv.Close()
	rc, err := newResourceClient(rsrv.URL, testTimeout)
	require.NoError(t, err)
	msrv := httptest.NewServer(httpHandler(newServer(rc)))
	defer msrv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: msrv.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch", Arguments: fetchInput{ID: "orders:o1"}})
	require.NoError(t, err)
	env := toolErrorOf(t, res)
	assert.Equal(t, "ambiguous_connection", env.Code)
	assert.Equal(t, []string{"cin_4f2a", "cin_9b7e"}, env.Available)
	assert.Len(t, fx.reads(), 1)
}

// TestDemoHonoursContext: the demo's tool calls run under runDemo's ctx,
// so cancelling it ends a call that waits on a stalled resource server at
// once, rather than when the resource client gives up after testTimeout.
func TestDemoHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var hits atomic.Int32
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		cancel() // the demo is now inside its first tool call
		stall(w, r)
	}))
	defer rs.Close()
	rc, err := newResourceClient(rs.URL, testTimeout)
	require.NoError(t, err)

	var out bytes.Buffer
	start := time.Now()
	err = runDemo(ctx, newServer(rc), nil, rs.URL, &out)
	require.ErrorIs(t, err, context.Canceled)
	assert.True(t, strings.HasPrefix(err.Error(), "search: "), err.Error())
	assert.Less(t, time.Since(start), testTimeout, "ended by ctx, not by the resource client's timeout")
	assert.EqualValues(t, 1, hits.Load())
	assert.Contains(t, out.String(), "→ search {\"query\":\"espresso\"}\n")
	assert.NotContains(t, out.String(), "←", "no answer was printed")
}

// TestCheckLoopback: -http listens on loopback addresses only.
func TestCheckLoopback(t *testing.T) {
	tests := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.1:0", true},
		{"127.1.2.3:80", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{":8080", false},
		{"0.0.0.0:8080", false},
		{"[::]:8080", false},
		{"192.168.1.10:8080", false},
		{"example.com:80", false},
		{"127.0.0.1", false},
	}
	for _, tt := range tests {
		err := checkLoopback(tt.addr)
		if tt.ok {
			assert.NoError(t, err, tt.addr)
		} else {
			assert.Error(t, err, tt.addr)
		}
	}
}

// TestRunFlags: bad flag combinations are refused before anything starts.
func TestRunFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"both modes", []string{"-stdio", "-http", "127.0.0.1:0"}, "usage"},
		{"stray argument", []string{"extra"}, "usage"},
		{"unknown flag", []string{"-nope"}, "usage"},
		{"public address", []string{"-http", "0.0.0.0:8080"}, "non-loopback"},
		{"bad resource server URL", []string{"-rs", "ftp://x"}, "resource server URL"},
		{"zero timeout", []string{"-timeout", "0s"}, "must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tt.args, &stdout, &stderr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Empty(t, stdout.String())
		})
	}
}

// TestDemo: the default mode prints the whole journey.
func TestDemo(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(t.Context(), nil, &stdout, &stderr))
	out := stdout.String()
	assert.Empty(t, stderr.String())
	for _, want := range []string{
		"→ search {\"query\":\"espresso\"}",
		"ExtractIDs(text)[0] = cin_4f2a/orders:o1",
		"→ fetch {\"id\":\"cin_4f2a/orders:o1\"}",
		"resource server saw: GET /v1/streams/orders/records/o1?connection_id=cin_4f2a",
		"→ fetch {\"id\":\"orders:o1\"}",
		`"code": "ambiguous_connection"`,
		"resource server saw: GET /v1/streams/orders/records/o1\n",
		"→ fetch {\"id\":\"orders:o1\",\"connection_id\":\"cin_9b7e\"}",
		`"id": "orders:o1"`,
		"→ fetch {\"id\":\"cin_4f2a/orders:o1\",\"connection_id\":\"cin_9b7e\"}",
		`"code": "conflicting_connection_id"`,
		"resource server saw: nothing",
	} {
		assert.Contains(t, out, want)
	}
	assert.Less(t, strings.Index(out, "ambiguous_connection"), strings.Index(out, "conflicting_connection_id"))
}
