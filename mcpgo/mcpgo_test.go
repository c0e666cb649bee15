package mcpgo_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/mcpgo"
	"github.com/mcpid/mcpid/searchfetch"
)

// mcpClient is mcp-go's own client, connected over its in-process
// transport.
type mcpClient struct {
	c *client.Client
}

// connect serves the tools over b on an mcp-go server and connects an
// mcp-go client to it.
func connect(t testing.TB, b searchfetch.Backend, opts *searchfetch.Options) adaptertest.Client {
	t.Helper()
	s := server.NewMCPServer("test-server", "v0.0.1")
	require.NoError(t, mcpgo.Register(s, b, opts))
	return mcpClient{c: connectTo(t, s)}
}

// connectTo connects an mcp-go client to s in process.
func connectTo(t testing.TB, s *server.MCPServer) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(s)
	require.NoError(t, err)
	start(t, c, mcp.LATEST_PROTOCOL_VERSION)
	return c
}

// start starts c and initializes its session at protocol version; c is
// closed when t ends.
func start(t testing.TB, c *client.Client, version string) {
	t.Helper()
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcp.Implementation{Name: "test-client", Version: "v0.0.1"}
	_, err := c.Initialize(ctx, init)
	require.NoError(t, err)
}

func (m mcpClient) ListTools(t testing.TB) []adaptertest.ToolInfo {
	t.Helper()
	res, err := m.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	require.NoError(t, err)
	out := make([]adaptertest.ToolInfo, len(res.Tools))
	for i, tool := range res.Tools {
		var schema any = tool.InputSchema
		if tool.RawInputSchema != nil {
			schema = tool.RawInputSchema
		}
		out[i] = adaptertest.ToolInfo{
			Name:        tool.Name,
			InputSchema: adaptertest.Decode(t, schema),
			Annotations: adaptertest.Decode(t, tool.Annotations),
		}
	}
	return out
}

func (m mcpClient) Call(t testing.TB, name string, args any) adaptertest.Answer {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := m.c.CallTool(context.Background(), req)
	require.NoError(t, err)
	return answer(t, res)
}

// answer returns the SDK-independent form of res.
func answer(t testing.TB, res *mcp.CallToolResult) adaptertest.Answer {
	return adaptertest.NewAnswer(t, res.IsError, res.Content, func(c mcp.Content) (string, bool) {
		tc, ok := mcp.AsTextContent(c)
		if !ok {
			return "", false
		}
		return tc.Text, true
	}, res.StructuredContent)
}

func TestJourneys(t *testing.T) {
	adaptertest.Run(t, connect)
}

// TestRegisterRefusesTakenNames: a server that already has a tool of
// either name gets an error and no new tool.
func TestRegisterRefusesTakenNames(t *testing.T) {
	for _, taken := range []string{"search", "kb_fetch"} {
		s := server.NewMCPServer("test-server", "v0.0.1")
		own := mcp.NewTool(taken, mcp.WithDescription("the server's own"))
		s.AddTool(own, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
		err := mcpgo.Register(s, &adaptertest.Backend{}, &searchfetch.Options{FetchName: "kb_fetch"})
		require.ErrorContains(t, err, `already has a tool named "`+taken+`"`)
		assert.Len(t, s.ListTools(), 1, "nothing registered")
		assert.Equal(t, "the server's own", s.GetTool(taken).Tool.Description)
	}
	err := mcpgo.Register(server.NewMCPServer("test-server", "v0.0.1"), &adaptertest.Backend{}, &searchfetch.Options{SearchName: "a b"})
	require.ErrorContains(t, err, "not a valid MCP tool name")
}

// TestStdioHostileLines: every line that is not an acceptable message is
// answered with a JSON-RPC error, and serving goes on.
func TestStdioHostileLines(t *testing.T) {
	adaptertest.RunHostileStdio(t, func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
		s := server.NewMCPServer("test-server", "v0.0.1")
		if err := mcpgo.Register(s, &adaptertest.Backend{}, nil); err != nil {
			return err
		}
		return mcpgo.ServeStdio(ctx, s, in, out)
	})
}

// callerClient is an mcp-go client whose calls carry a caller in their
// context, which the in-process transport hands on to the server.
type callerClient struct {
	mcpClient
	caller searchfetch.Caller
}

func (m callerClient) Call(t testing.TB, name string, args any) adaptertest.Answer {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := m.c.CallTool(searchfetch.WithCaller(context.Background(), m.caller), req)
	require.NoError(t, err)
	return answer(t, res)
}

// connectAs is connect with caller in the context of every call.
func connectAs(t testing.TB, b searchfetch.Backend, opts *searchfetch.Options, caller searchfetch.Caller) adaptertest.Client {
	t.Helper()
	s := server.NewMCPServer("test-server", "v0.0.1")
	require.NoError(t, mcpgo.Register(s, b, opts))
	return callerClient{mcpClient{c: connectTo(t, s)}, caller}
}

func TestAuthorization(t *testing.T) {
	adaptertest.RunAuthorization(t, connectAs)
}

func TestOnCall(t *testing.T) {
	adaptertest.RunOnCall(t, connectAs)
}

// TestStdioDrain: at the end of its input ServeStdio answers every request
// it read, a tool call still running included, before it returns; past
// its drain limit it returns and logs what it left unanswered.
func TestStdioDrain(t *testing.T) {
	adaptertest.RunStdioDrain(t, func(ctx context.Context, b searchfetch.Backend, tools *searchfetch.Options, in io.ReadCloser, out io.Writer, drain time.Duration) error {
		s := server.NewMCPServer("test-server", "v0.0.1")
		if err := mcpgo.Register(s, b, tools); err != nil {
			return err
		}
		return mcpgo.ServeStdio(ctx, s, in, out, mcpgo.WithDrainLimit(drain))
	})
}

// TestAddTools: AddTools adds the tools of the Tools a server holds, and
// refuses, adding nothing, nil Tools or a name the server has taken.
func TestAddTools(t *testing.T) {
	s := server.NewMCPServer("test-server", "v0.0.1")
	require.Error(t, mcpgo.AddTools(s, nil))
	assert.Empty(t, s.ListTools())
	tools := searchfetch.New(&adaptertest.Backend{}, &searchfetch.Options{SearchName: "search_dashboards", FetchName: "get_dashboard_by_uid"})
	require.NoError(t, mcpgo.AddTools(s, tools))
	assert.NotNil(t, s.GetTool("search_dashboards"))
	assert.NotNil(t, s.GetTool("get_dashboard_by_uid"))
	require.ErrorContains(t, mcpgo.AddTools(s, tools), `already has a tool named "search_dashboards"`)
}

// TestCallerContext: the caller a tool call's context carries is the one
// CallerContext gives a server's own handler.
func TestCallerContext(t *testing.T) {
	ctx := searchfetch.WithCaller(context.Background(), searchfetch.Caller{UserID: "ana"})
	got, ok := searchfetch.CallerFrom(mcpgo.CallerContext(ctx))
	require.True(t, ok)
	assert.Equal(t, "ana", got.UserID)
}
