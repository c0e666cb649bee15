package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/toolname"
)

// echoServer starts an in-process MCP server named name with the given
// tools, each described as server/tool and answering server/tool(query),
// and returns it as a downstream to connect.
func echoServer(t *testing.T, name string, tools ...string) downstream {
	t.Helper()
	d, _ := echoSession(t, name, tools...)
	return d
}

// echoSession is echoServer that also returns the server's session, which
// closing disconnects.
func echoSession(t *testing.T, name string, tools ...string) (downstream, *mcp.ServerSession) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "v0"}, nil)
	for _, tool := range tools {
		type args struct {
			Query string `json:"query"`
		}
		mcp.AddTool(srv, &mcp.Tool{Name: tool, Description: name + "/" + tool},
			func(_ context.Context, _ *mcp.CallToolRequest, a args) (*mcp.CallToolResult, any, error) {
				text := fmt.Sprintf("%s/%s(%s)", name, tool, a.Query)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
			})
	}
	client, server := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), server, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	return downstream{name, client}, ss
}

// startGateway runs the gateway on the given downstreams, with its names
// in the file state, and returns a client session with it. stop closes
// the session, which ends the gateway, and returns run's error.
func startGateway(t *testing.T, state string, servers ...downstream) (cs *mcp.ClientSession, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	client, server := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- run(ctx, state, servers, server) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, client, nil)
	require.NoError(t, err)
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() {
			_ = cs.Close() // the client leaves: run returns
			runErr = <-done
			cancel()
		})
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	return cs, stop
}

// names lists the gateway's tools: each name with its description.
func names(t *testing.T, cs *mcp.ClientSession) map[string]string {
	t.Helper()
	got := map[string]string{}
	for tool, err := range cs.Tools(t.Context(), nil) {
		require.NoError(t, err)
		got[tool.Name] = tool.Description
	}
	return got
}

// call calls the tool name with a query and returns its text.
func call(t *testing.T, cs *mcp.ClientSession, name string) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"query": "q3"}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%s: %v", name, res.Content)
	require.Len(t, res.Content, 1)
	return res.Content[0].(*mcp.TextContent).Text
}

// TestNamesRoutingAndRestarts runs the gateway end to end, then again on
// its state file with the servers in another order, with one more, and
// with fewer: every tool keeps its name, calls reach the tool their name
// stands for, and no name is ever given to another tool.
func TestNamesRoutingAndRestarts(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	first := map[string]string{
		"alpha__search": "alpha/search",
		"beta__search":  "beta/search",
		"fetch":         "alpha/fetch",
		"report":        "gamma/report",
	}
	for _, run := range []struct {
		name    string
		servers []downstream
		want    map[string]string
	}{
		{"first start: colliding names qualified", []downstream{
			echoServer(t, "alpha", "search", "fetch"), echoServer(t, "beta", "search"), echoServer(t, "gamma", "report"),
		}, first},
		{"restart, servers in another order", []downstream{
			echoServer(t, "gamma", "report"), echoServer(t, "beta", "search"), echoServer(t, "alpha", "fetch", "search"),
		}, first},
		{"a server joins", []downstream{
			echoServer(t, "alpha", "search", "fetch"), echoServer(t, "beta", "search"), echoServer(t, "gamma", "report"),
			echoServer(t, "delta", "search", "summarize"),
		}, map[string]string{
			"alpha__search": "alpha/search",
			"beta__search":  "beta/search",
			"delta__search": "delta/search",
			"fetch":         "alpha/fetch",
			"report":        "gamma/report",
			"summarize":     "delta/summarize",
		}},
		{"alpha leaves: beta's search keeps its name", []downstream{
			echoServer(t, "beta", "search"),
		}, map[string]string{"beta__search": "beta/search"}},
	} {
		t.Run(run.name, func(t *testing.T) {
			cs, stop := startGateway(t, state, run.servers...)
			got := names(t, cs)
			if diff := cmp.Diff(run.want, got); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			for name, tool := range run.want {
				assert.Equal(t, tool+"(q3)", call(t, cs, name), "the call to %s reaches %s", name, tool)
			}
			require.NoError(t, stop())
		})
	}
}

// TestServerGone: a call to the tool of a server that disconnected is a
// tool error with the mcpid envelope, resource_unavailable; the other
// server's tools still answer.
func TestServerGone(t *testing.T) {
	alpha, ss := echoSession(t, "alpha", "search")
	cs, _ := startGateway(t, filepath.Join(t.TempDir(), "names.json"), alpha, echoServer(t, "beta", "search"))
	require.NoError(t, ss.Close())
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "alpha__search", Arguments: map[string]any{"query": "q3"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Len(t, res.Content, 1)
	var envelope struct{ Type, Code string }
	require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &envelope))
	assert.Equal(t, struct{ Type, Code string }{"adapter_error", "resource_unavailable"}, envelope)
	assert.Nil(t, res.StructuredContent)
	assert.Equal(t, "beta/search(q3)", call(t, cs, "beta__search"))
}

// TestLockedState: a second gateway on a state file in use does not
// start.
func TestLockedState(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	_, stop := startGateway(t, state, echoServer(t, "alpha", "search"))
	defer stop()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, server := mcp.NewInMemoryTransports()
	err := run(ctx, state, []downstream{echoServer(t, "beta", "search")}, server)
	require.ErrorIs(t, err, toolname.ErrStoreLocked)
}

// TestToolNotServable: a downstream's tool that the SDK cannot serve is
// an error of addTool, never a panic.
func TestToolNotServable(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "gateway", Version: "v0"}, nil)
	for name, schema := range map[string]any{
		"no schema":     nil,
		"a string":      json.RawMessage(`{"type":"string"}`),
		"not an object": []any{1, 2},
	} {
		err := addTool(srv, &mcp.Tool{Name: "t", InputSchema: schema}, nil)
		assert.Error(t, err, name)
	}
	require.NoError(t, addTool(srv, &mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, nil))
}

// TestRouteErrors: a call by a name that is no tool's is Route's own
// error, unknown_tool; a call by an own tool name that two servers share
// is ambiguous_tool, whose hint names the tools to call instead.
func TestRouteErrors(t *testing.T) {
	cs, _ := startGateway(t, filepath.Join(t.TempDir(), "names.json"),
		echoServer(t, "alpha", "search"), echoServer(t, "beta", "search"))
	for _, tc := range []struct {
		name string
		want mcpid.Error
	}{
		{"search", mcpid.Error{Code: "ambiguous_tool", Input: "search"}},
		{"nope", mcpid.Error{Code: "unknown_tool", Input: "nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tc.name, Arguments: map[string]any{"query": "q3"}})
			require.NoError(t, err)
			require.True(t, res.IsError)
			require.Len(t, res.Content, 1)
			var got mcpid.Error
			require.NoError(t, json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got))
			assert.Equal(t, tc.want.Code, got.Code)
			assert.Equal(t, tc.want.Input, got.Input)
			if tc.want.Code == "ambiguous_tool" {
				assert.Equal(t, "2 tools have this own name", got.Message())
				assert.Equal(t, "call one of the available names: alpha__search, beta__search", got.Hint())
			} else {
				assert.Equal(t, "no tool has this name", got.Message())
			}
		})
	}
}

// TestCallByOwnName: once alpha has left, beta's search keeps the name
// beta__search, and a call by its own name, search, still reaches it.
func TestCallByOwnName(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	_, stop := startGateway(t, state, echoServer(t, "alpha", "search"), echoServer(t, "beta", "search"))
	require.NoError(t, stop())
	cs, _ := startGateway(t, state, echoServer(t, "beta", "search"))
	assert.Equal(t, map[string]string{"beta__search": "beta/search"}, names(t, cs))
	assert.Equal(t, "beta/search(q3)", call(t, cs, "search"))
}

// TestMainFitsOneFile: main.go, the file a reader copies to start a
// gateway, stays within 200 lines, as the README promises.
func TestMainFitsOneFile(t *testing.T) {
	data, err := os.ReadFile("main.go")
	require.NoError(t, err)
	assert.LessOrEqual(t, bytes.Count(data, []byte("\n")), 200, "lines of main.go")
}
