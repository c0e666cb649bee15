package chainstore

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
)

// TestStateLocked: two gateways never share a state file: the second
// one's -state is refused, naming the file, until the first one closes it.
func TestStateLocked(t *testing.T) {
	state := filepath.Join(t.TempDir(), "names.json")
	_, closeFirst, err := Open(t.Context(), state, "mcpid")
	require.NoError(t, err)
	_, _, err = Open(t.Context(), state, "mcpid")
	require.ErrorIs(t, err, toolname.ErrStoreLocked)
	assert.Contains(t, err.Error(), state)
	closeFirst()
	_, closeSecond, err := Open(t.Context(), state, "mcpid")
	require.NoError(t, err, "the lock is released at close")
	closeSecond()
}
