package downstream

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStaleCallEndsWithConnection: a call the gateway stopped waiting for
// counts, as its caller's, until the downstream answers it; one that the
// downstream never answers counts until the connection it was sent on
// ends, and no longer: a hung downstream holds its logs from other
// callers until it is restarted, not for good.
func TestStaleCallEndsWithConnection(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	srv := mcp.NewServer(&mcp.Implementation{Name: "hung", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "hang"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		<-block // ignores cancellation
		return &mcp.CallToolResult{}, nil, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	_, err := srv.Connect(t.Context(), st, nil)
	require.NoError(t, err)
	var r Relay
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "gateway", Version: "v0"}, nil).Connect(t.Context(), r.Transport(ct), nil)
	require.NoError(t, err)

	// Two callers: distinct sessions, no verified user.
	bob := &mcp.CallToolRequest{Session: &mcp.ServerSession{}, Params: &mcp.CallToolParamsRaw{}}
	alice := &mcp.CallToolRequest{Session: &mcp.ServerSession{}, Params: &mcp.CallToolParamsRaw{}}

	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	params := &mcp.CallToolParams{Name: "hang"}
	ctx, bobs := r.Start(ctx, bob, params, true, time.Second)
	_, err = cs.CallTool(ctx, params)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	r.End(bobs)

	_, alices := r.Start(t.Context(), alice, &mcp.CallToolParams{Name: "hang"}, true, time.Second)
	assert.Nil(t, r.Owner(), "bob's call is stale, not over: the downstream may still log for it")
	require.NoError(t, cs.Close())
	assert.Same(t, alices, r.Owner(), "the connection bob's call was sent on ended")
	r.End(alices)
	assert.Nil(t, r.Owner())
}

// TestCallWithoutNotificationsAllocs: a call that gets no progress and no
// log message (most calls) costs no goroutine and no queue: Start and End
// allocate the call, its context and its _meta, and nothing that waits
// for a notification. (It allocated 10 times when every call started its
// forwarding goroutine and made its three channels.)
func TestCallWithoutNotificationsAllocs(t *testing.T) {
	var r Relay
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "search"}}
	allocs := testing.AllocsPerRun(100, func() {
		_, c := r.Start(context.Background(), req, &mcp.CallToolParams{Name: "search"}, true, time.Second)
		r.End(c)
	})
	assert.LessOrEqual(t, allocs, 5.0)
}

// TestMetaLevel: a call asks its downstream for logs in its _meta only on
// a session of MCP 2026-07-28 or later, which reads a request's level
// there; on 2025-11-25 the session's level applies, and the call carries
// no _meta the downstream would decode for nothing.
func TestMetaLevel(t *testing.T) {
	for _, tt := range []struct {
		version string
		want    any // the level in the _meta the downstream got
	}{
		{"2025-11-25", nil},
		{"2026-07-28", "debug"},
	} {
		t.Run(tt.version, func(t *testing.T) {
			got := make(chan mcp.Meta, 1)
			srv := mcp.NewServer(&mcp.Implementation{Name: "down", Version: "v0"}, nil)
			mcp.AddTool(srv, &mcp.Tool{Name: "search"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				got <- req.Params.Meta
				return &mcp.CallToolResult{}, nil, nil
			})
			ct, st := mcp.NewInMemoryTransports()
			_, err := srv.Connect(t.Context(), st, nil)
			require.NoError(t, err)
			var r Relay
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "gateway", Version: "v0"}, nil).Connect(t.Context(), r.Transport(ct),
				&mcp.ClientSessionOptions{ProtocolVersion: tt.version})
			require.NoError(t, err)
			defer cs.Close()
			require.Equal(t, tt.version, cs.InitializeResult().ProtocolVersion)

			caller := &mcp.CallToolRequest{Session: &mcp.ServerSession{}, Params: &mcp.CallToolParamsRaw{Name: "search"}}
			params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}}
			ctx, c := r.Start(t.Context(), caller, params, MetaLevel(cs, false), time.Second)
			_, err = cs.CallTool(ctx, params)
			r.End(c)
			require.NoError(t, err)
			//lint:ignore SA1019 the gateway relays logs while hosts use them
			assert.Equal(t, tt.want, (<-got)[mcp.MetaKeyLogLevel])
		})
	}
}
