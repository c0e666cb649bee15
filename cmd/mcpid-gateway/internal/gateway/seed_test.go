package gateway

import (
	"context"
	"fmt"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
)

// seed stores the table in the file at path as the first table of one
// store's chain, as -seed does for each of the two.
func seed(ctx context.Context, store toolname.Store, path string, timeout time.Duration) error {
	names, err := chainstore.ReadTable(path)
	if err == nil && names == nil {
		err = fmt.Errorf("%s: no such file", path)
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err = toolname.Seed(ctx, store, names)
	return err
}

// TestSeedChecksBothChains: -seed checks that both chains are empty before
// it writes either: with the prompts' chain still holding a table (the
// operator emptied the tools' chain alone), it fails naming that chain's
// file and seeds neither, so that once both are emptied the same -seed
// succeeds; with both empty it seeds both.
func TestSeedChecksBothChains(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "backup.json")
	tools, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "alpha", Tool: "search"}})
	require.NoError(t, err)
	prompts, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "alpha", Tool: "summarize"}})
	require.NoError(t, err)
	writeTable(t, path, tools)
	writeTable(t, path+promptsSuffix, prompts)

	toolStore, promptStore := new(chainstore.Mem), new(chainstore.Mem)
	_, err = toolname.Seed(t.Context(), promptStore, prompts)
	require.NoError(t, err)
	err = seedChains(t.Context(), path, testTimeout, toolStore, promptStore)
	require.ErrorIs(t, err, toolname.ErrChainNotEmpty)
	assert.ErrorContains(t, err, path+promptsSuffix, "the error names the chain that is not empty")
	held, _, err := toolStore.Load(t.Context())
	require.NoError(t, err)
	assert.Nil(t, held, "the tools' chain is not seeded")

	promptStore = new(chainstore.Mem)
	require.NoError(t, seedChains(t.Context(), path, testTimeout, toolStore, promptStore))
	for _, s := range []toolname.Store{toolStore, promptStore} {
		held, _, err := s.Load(t.Context())
		require.NoError(t, err)
		assert.NotNil(t, held)
	}
}

// TestSeedWithoutPrompts: -seed FILE with no FILE.prompts (no downstream
// ever served a prompt, so the gateway kept none) seeds the tools' chain
// and leaves the prompts' chain empty, instead of failing on the file.
func TestSeedWithoutPrompts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "backup.json")
	tools, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "alpha", Tool: "search"}})
	require.NoError(t, err)
	writeTable(t, path, tools)

	toolStore, promptStore := new(chainstore.Mem), new(chainstore.Mem)
	require.NoError(t, seedChains(t.Context(), path, testTimeout, toolStore, promptStore))
	held, _, err := toolStore.Load(t.Context())
	require.NoError(t, err)
	require.NotNil(t, held)
	k, err := held.Route("search")
	require.NoError(t, err)
	assert.Equal(t, toolname.Key{Server: "alpha", Tool: "search"}, k)
	held, _, err = promptStore.Load(t.Context())
	require.NoError(t, err)
	assert.Nil(t, held, "the prompts' chain stays empty")
}

// writeTable writes n to path as a backup holds it.
func writeTable(t *testing.T, path string, n *toolname.Table) {
	t.Helper()
	data, err := n.MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))
}
