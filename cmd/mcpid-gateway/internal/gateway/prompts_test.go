package gateway

import (
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
)

// TestPromptChainFiles: with a state file, the prompts' names live in the
// file beside it, "<FILE>.prompts", and a restart gives every prompt its
// name back; -seed seeds both chains, and needs both files.
func TestPromptChainFiles(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "names.json")
	cfg, _ := fromArgs(t, io.Discard)
	store, closeStore, err := chainstore.Open(t.Context(), promptState(state), "mcpid/prompts")
	require.NoError(t, err)
	cfg.promptStore = store
	g, _ := startGateway(t, cfg, inProcessServer("alpha", "search"),
		downstreamSpec{name: "a", transport: inProcess{docServer("a")}})
	require.Eventually(t, func() bool { return len(g.relayed.prompts.table.Load().byName) == 1 }, testTimeout, 10*time.Millisecond)
	g.close()
	closeStore()
	stored, err := chainstore.ReadTable(state + promptsSuffix)
	require.NoError(t, err)
	require.NotNil(t, stored, "the prompt chain is in %s", state+promptsSuffix)
	k, err := stored.Route("summarize")
	require.NoError(t, err)
	assert.Equal(t, toolname.Key{Server: "a", Tool: "summarize"}, k)
}
