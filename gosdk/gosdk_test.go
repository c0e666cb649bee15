package gosdk_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// client is the go-sdk's own client, connected over its in-memory
// transport.
type client struct {
	session *mcp.ClientSession
}

// connect serves the tools over b on a go-sdk server and connects a go-sdk
// client to it.
func connect(t testing.TB, b searchfetch.Backend, opts *searchfetch.Options) adaptertest.Client {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	require.NoError(t, gosdk.Register(server, b, opts))
	return client{session: connectTo(t, server)}
}

// connectTo connects a go-sdk client to server in process.
func connectTo(t testing.TB, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func (c client) ListTools(t testing.TB) []adaptertest.ToolInfo {
	t.Helper()
	res, err := c.session.ListTools(context.Background(), nil)
	require.NoError(t, err)
	out := make([]adaptertest.ToolInfo, len(res.Tools))
	for i, tool := range res.Tools {
		out[i] = adaptertest.ToolInfo{
			Name:        tool.Name,
			InputSchema: adaptertest.Decode(t, tool.InputSchema),
			Annotations: adaptertest.Decode(t, tool.Annotations),
		}
		if tool.OutputSchema != nil {
			out[i].OutputSchema = adaptertest.Decode(t, tool.OutputSchema)
		}
	}
	return out
}

func (c client) Call(t testing.TB, name string, args any) adaptertest.Answer {
	t.Helper()
	res, err := c.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return answer(t, res)
}

// answer returns the SDK-independent form of res.
func answer(t testing.TB, res *mcp.CallToolResult) adaptertest.Answer {
	return adaptertest.NewAnswer(t, res.IsError, res.Content, textOf, res.StructuredContent)
}

// textOf returns the text of a text content item.
func textOf(c mcp.Content) (string, bool) {
	tc, ok := c.(*mcp.TextContent)
	if !ok {
		return "", false
	}
	return tc.Text, true
}

func TestJourneys(t *testing.T) {
	adaptertest.Run(t, connect)
}

// TestRegisterRefusesBadNames: options that cannot configure the tools
// are an error, and nothing is registered.
func TestRegisterRefusesBadNames(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	err := gosdk.Register(server, &adaptertest.Backend{}, &searchfetch.Options{SearchName: "x", FetchName: "x"})
	require.ErrorContains(t, err, `both named "x"`)
	res, err := connectTo(t, server).ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Empty(t, res.Tools)
}

// TestStdioHostileLines: a line the go-sdk cannot decode, which would end
// the session over its own transports, is answered with a JSON-RPC error,
// and the session goes on.
func TestStdioHostileLines(t *testing.T) {
	adaptertest.RunHostileStdio(t, func(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
		server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
		if err := gosdk.Register(server, &adaptertest.Backend{}, nil); err != nil {
			return err
		}
		return server.Run(ctx, gosdk.NewStdioTransport(in, out))
	})
}

// connectAs is connect with caller in the context of every call the
// server handles, put there by a receiving middleware as a server's
// authentication would.
func connectAs(t testing.TB, b searchfetch.Backend, opts *searchfetch.Options, caller searchfetch.Caller) adaptertest.Client {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return next(searchfetch.WithCaller(ctx, caller), method, req)
		}
	})
	require.NoError(t, gosdk.Register(server, b, opts))
	return client{session: connectTo(t, server)}
}

func TestAuthorization(t *testing.T) {
	adaptertest.RunAuthorization(t, connectAs)
}

func TestOnCall(t *testing.T) {
	adaptertest.RunOnCall(t, connectAs)
}

// TestFetchOffsetBeyondFloat64: the go-sdk hands the arguments on as the
// client wrote them, so an offset no float64 holds is still the tools'
// invalid_arguments about offset, never computed with.
func TestFetchOffsetBeyondFloat64(t *testing.T) {
	c := connect(t, &adaptertest.Backend{}, nil)
	for _, offset := range []string{`1e400`, `1e999999999999999999`, `-1e400`} {
		a := c.Call(t, searchfetch.FetchName, json.RawMessage(`{"id":"`+adaptertest.WantIDs[0]+`","offset":`+offset+`}`))
		e := adaptertest.RequireToolError(t, a, searchfetch.CodeInvalidArguments)
		assert.Equal(t, searchfetch.FieldOffset, e.Field, "offset %s", offset)
	}
}

// TestCallerContext: a server's own handler gets the caller the tools
// see: the call's TokenInfo as a searchfetch.Caller, and none without.
func TestCallerContext(t *testing.T) {
	expires := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	req := &mcp.CallToolRequest{Extra: &mcp.RequestExtra{TokenInfo: &auth.TokenInfo{
		UserID: "ana", Scopes: []string{"read"}, Expiration: expires, Extra: map[string]any{"org": "acme"}}}}
	got, ok := searchfetch.CallerFrom(gosdk.CallerContext(context.Background(), req))
	require.True(t, ok)
	assert.Equal(t, searchfetch.Caller{UserID: "ana", Scopes: []string{"read"}, Expiration: expires, Extra: map[string]any{"org": "acme"}}, got)
	for _, req := range []*mcp.CallToolRequest{nil, {}, {Extra: &mcp.RequestExtra{}}} {
		_, ok := searchfetch.CallerFrom(gosdk.CallerContext(context.Background(), req))
		assert.False(t, ok)
	}
}

// TestAddToolsNil: AddTools without Tools is an error, and adds nothing.
func TestAddToolsNil(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	require.Error(t, gosdk.AddTools(server, nil))
	res, err := connectTo(t, server).ListTools(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, res.Tools)
}
