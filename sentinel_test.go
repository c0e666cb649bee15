package mcpid_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/sentinel"
)

// TestSentinelsRecorded checks that the sentinel other packages' tests look up
// for a code is the one the table of codes holds, for every code and no
// other.
func TestSentinelsRecorded(t *testing.T) {
	table := mcpid.TableSentinels()
	require.NotEmpty(t, table)
	for c, s := range table {
		assert.True(t, sentinel.For(c) == s, c)
	}
	assert.ElementsMatch(t, sentinel.Codes(), mapKeys(table))
	assert.Nil(t, sentinel.For(mcpid.Code("other")))
}

// mapKeys returns m's keys.
func mapKeys[K comparable, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
