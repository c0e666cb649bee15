package main

import (
	"testing"
	"time"

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
	store, closeStore, err := openStore(t.Context(), srv.URL, "hung")
	require.NoError(t, err)
	t.Cleanup(closeStore)
	g, c := startGateway(t, config{store: store, timeout: 5 * time.Second}, inProcessServer("alpha", "search"))
	require.Equal(t, []string{"search"}, c.names(t))

	srv.Pause()
	defer srv.Resume()
	for i, bound := range []time.Duration{3 * time.Second, time.Second} {
		began := time.Now()
		_, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "guessed", Arguments: map[string]any{}})
		took := time.Since(began)
		require.ErrorContains(t, err, "unknown tool")
		assert.Less(t, took, bound, "guess %d answered after %v", i, took)
	}
	assert.Equal(t, `alpha answered search(query="q")`, resultText(c.call(t, "search", "q")), "a served name routes without the store")
	srv.Resume()

	// Once the store answers again, a miss is remembered for a while, and
	// forgotten when the store tells of a new table.
	require.Eventually(t, func() bool {
		_, err := c.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "guessed", Arguments: map[string]any{}})
		return err != nil && !g.tools.misses.missed("nope", time.Now()) && g.tools.misses.missed("guessed", time.Now())
	}, testTimeout, 100*time.Millisecond, "the store answers again, and its miss is remembered")
	later := time.Now().Add(time.Hour)
	g.tools.misses.miss("guessed", later) // remembered far longer than missTTL: only a clear forgets it
	require.True(t, g.tools.misses.missed("guessed", later))
	_, _, err = toolname.Update(t.Context(), openRedis(t, srv.URL, "hung"), toolname.Portable,
		[]toolname.Key{{Server: "alpha", Tool: "search"}, {Server: "beta", Tool: "guessed"}})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !g.tools.misses.missed("guessed", later) }, testTimeout, 10*time.Millisecond,
		"the watched table clears the misses")
}

// TestMisses: a miss is remembered for missTTL, the store's failure makes
// every name miss for missTTL, clear forgets both, and the memory is
// bounded.
func TestMisses(t *testing.T) {
	var m misses
	now := time.Now()
	assert.False(t, m.missed("a", now))
	m.miss("a", now)
	assert.True(t, m.missed("a", now.Add(missTTL-time.Millisecond)))
	assert.False(t, m.missed("a", now.Add(missTTL)), "forgotten after missTTL")
	assert.False(t, m.missed("b", now))

	m.storeFailed(now)
	assert.True(t, m.missed("b", now.Add(missTTL-time.Millisecond)), "every name misses while the store failed")
	assert.False(t, m.missed("b", now.Add(missTTL)))

	m.miss("a", now)
	m.storeFailed(now)
	m.clear()
	assert.False(t, m.missed("a", now))
	assert.False(t, m.missed("b", now))

	for i := range maxMisses + 1 {
		m.miss(string(rune('a'+i%26))+time.Duration(i).String(), now)
	}
	assert.LessOrEqual(t, len(m.names), maxMisses)
}
