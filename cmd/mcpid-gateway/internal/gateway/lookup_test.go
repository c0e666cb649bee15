package gateway

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/toolname"
)

// TestGuessedNameDuringHungStore: while the store hangs (a Redis of the
// test's own, stopped with SIGSTOP), a called name this replica does not
// serve is answered unknown within about a second under -timeout 5s, and
// at once while its miss is remembered; the names it serves keep routing.
// A table the store then tells of clears the misses.
func TestGuessedNameDuringHungStore(t *testing.T) {
	srv := dbserver.StartRedis(t)
	store, closeStore, err := chainstore.Open(t.Context(), srv.URL, "hung")
	require.NoError(t, err)
	t.Cleanup(closeStore)
	g, c := startGateway(t, config{store: store, timeout: 5 * time.Second}, inProcessServer("alpha", "search"))
	require.Equal(t, []string{"search"}, c.names(t))

	srv.Pause()
	defer srv.Resume()
	for i, bound := range []time.Duration{3 * time.Second, time.Second} {
		began := time.Now()
		res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "guessed", Arguments: map[string]any{}})
		took := time.Since(began)
		require.NoError(t, err)
		assert.Equal(t, "unknown_tool", envelopeCode(t, res))
		assert.Less(t, took, bound, "guess %d answered after %v", i, took)
	}
	assert.Equal(t, `alpha answered search(query="q")`, resultText(c.call(t, "search", "q")), "a served name routes without the store")
	srv.Resume()

	// Once the store answers again, a miss is remembered for a while, and
	// forgotten when the store tells of a new table.
	require.Eventually(t, func() bool {
		res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "guessed", Arguments: map[string]any{}})
		return err == nil && codeOf(res) == "unknown_tool" && !g.tools.Missed("nope", time.Now()) && g.tools.Missed("guessed", time.Now())
	}, testTimeout, 100*time.Millisecond, "the store answers again, and its miss is remembered")
	later := time.Now().Add(time.Hour)
	g.tools.Miss("guessed", later) // remembered far longer than missTTL: only a clear forgets it
	require.True(t, g.tools.Missed("guessed", later))
	_, _, err = toolname.Update(t.Context(), openRedis(t, srv.URL, "hung"), toolname.Portable,
		[]toolname.Key{{Server: "alpha", Tool: "search"}, {Server: "beta", Tool: "guessed"}})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !g.tools.Missed("guessed", later) }, testTimeout, 10*time.Millisecond,
		"the watched table clears the misses")
}

// slowStore is a store whose loads take delay once armed: a store that
// answers, slowly.
type slowStore struct {
	chainstore.Mem
	delay atomic.Int64 // a time.Duration
}

func (s *slowStore) Load(ctx context.Context) (*toolname.Table, toolname.Revision, error) {
	select {
	case <-time.After(time.Duration(s.delay.Load())):
	case <-ctx.Done():
		return nil, "", ctx.Err()
	}
	return s.Mem.Load(ctx)
}

// TestLookupAndCallShareTimeout: a call by a name this replica does not
// serve is looked up in the store, then sent on, within one -timeout from
// its start: a slow lookup leaves the downstream the rest of it, not a
// whole -timeout more. The bound is halfway between the two.
func TestLookupAndCallShareTimeout(t *testing.T) {
	const timeout, lookup = 2 * time.Second, 900 * time.Millisecond
	hang := make(chan struct{})
	defer close(hang)
	srv := mcp.NewServer(&mcp.Implementation{Name: "alpha", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "search"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		<-hang
		return &mcp.CallToolResult{}, nil, nil
	})
	store := new(slowStore)
	_, c := startGateway(t, config{store: store, qualifyAll: true, timeout: timeout}, downstreamSpec{name: "alpha", transport: inProcess{srv}})
	require.Equal(t, []string{"alpha__search"}, c.names(t))
	store.delay.Store(int64(lookup))

	began := time.Now()
	res, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}})
	took := time.Since(began)
	require.NoError(t, err)
	assert.Equal(t, "resource_unavailable", envelopeCode(t, res), "routed by its own name, to a downstream that does not answer")
	assert.Less(t, took, timeout+lookup/2, "the call took %v", took)
}
