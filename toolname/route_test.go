package toolname

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRoute: a name of the table, or the own tool name of exactly one
// live key, byte for byte; otherwise a typed error, and a retired name is
// unknown.
func TestRoute(t *testing.T) {
	first, err := Assign(Portable, []Key{{"x", "gone"}})
	require.NoError(t, err)
	names, err := Assign(Portable, []Key{{"a", "search"}, {"b", "search"}, {"c", "fetch"}, {"srv", "do__it"}, {"y", "gone"}}, WithPrevious(first))
	require.NoError(t, err)
	for name, want := range map[string]Key{
		"fetch":       {"c", "fetch"},
		"a__search":   {"a", "search"},
		"srv__do__it": {"srv", "do__it"},
		"do__it":      {"srv", "do__it"}, // its own name, which the table qualified
	} {
		got, err := names.Route(name)
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}

	_, err = names.Route("search")
	var e *Error
	require.ErrorAs(t, err, &e)
	require.ErrorIs(t, err, ErrAmbiguousTool)
	assert.Equal(t, []string{"a__search", "b__search"}, e.Available)
	assert.Equal(t, "search", e.Input)

	for _, name := range []string{"nope", "Fetch", "fetch ", "gone"} { // "gone" is retired: x::gone held it
		_, err := names.Route(name)
		require.ErrorIs(t, err, ErrUnknownTool, name)
	}
	_, err = (*Table)(nil).Route("fetch")
	require.ErrorIs(t, err, ErrUnknownTool)
}

// TestLookAlikeNeverTakesABareName: a fullwidth "ｓｅａｒｃｈ" is qualified,
// whichever of it and "search" arrives first, and keeps its qualified name.
func TestLookAlikeNeverTakesABareName(t *testing.T) {
	evil, real := Key{"evil", "ｓｅａｒｃｈ"}, Key{"docs", "search"}
	for _, order := range [][]Key{{evil}, {real}} {
		first, err := Assign(Portable, order)
		require.NoError(t, err)
		both, err := Assign(Portable, []Key{evil, real}, WithPrevious(first))
		require.NoError(t, err)
		name, _ := both.Name(evil)
		assert.Equal(t, "evil__search", name)
		name, _ = both.Name(real)
		assert.Equal(t, "search", name)
		k, err := both.Route("search")
		require.NoError(t, err)
		assert.Equal(t, real, k)
	}
}
