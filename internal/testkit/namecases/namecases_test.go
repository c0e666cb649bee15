package namecases

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type testKey struct{ Server, Tool string }

type testReason uint8

const testQualified testReason = 1

type testFallback struct {
	Key    testKey
	Name   string
	Reason testReason
}

// testTable is a table of names written out by hand.
type testTable struct {
	names     map[testKey]string
	fallbacks []testFallback
}

func (n testTable) Len() int                      { return len(n.names) }
func (n testTable) Name(k testKey) (string, bool) { name, ok := n.names[k]; return name, ok }
func (n testTable) Fallbacks() []testFallback     { return n.fallbacks }
func (n testTable) Key(name string) (testKey, bool) {
	for k, v := range n.names {
		if v == name {
			return k, true
		}
	}
	return testKey{}, false
}

func TestCheckNames(t *testing.T) {
	a, b := testKey{"a", "search"}, testKey{"b", "search"}
	re := Rules[0].Re
	tests := []struct {
		name  string
		table testTable
		want  string // a part of the error, or "" for none; | divides alternatives
	}{
		{"qualified on collision", testTable{
			names:     map[testKey]string{a: "a__search", b: "b__search"},
			fallbacks: []testFallback{{a, "a__search", testQualified}, {b, "b__search", testQualified}},
		}, ""},
		{"shared name", testTable{
			names: map[testKey]string{a: "search", b: "search"},
		}, "both named|resolving"},
		{"renamed without a fallback", testTable{
			names:     map[testKey]string{a: "a__search", b: "b__search"},
			fallbacks: []testFallback{{b, "b__search", testQualified}},
		}, "without a fallback"},
		{"__ without qualification", testTable{
			names:     map[testKey]string{a: "a__search", b: "b__search"},
			fallbacks: []testFallback{{a, "a__search", 2}, {b, "b__search", testQualified}},
		}, "not qualified"},
		{"a bare name of another tool", testTable{
			names:     map[testKey]string{a: "find", b: "b__search"},
			fallbacks: []testFallback{{b, "b__search", testQualified}, {a, "find", 2}},
		}, "not its own tool name"},
		{"invalid name", testTable{
			names:     map[testKey]string{a: "a.search", b: "b__search"},
			fallbacks: []testFallback{{a, "a.search", testQualified}, {b, "b__search", testQualified}},
		}, "not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckNames(tt.table, []testKey{a, b, a}, re, 64, testQualified)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			found := false
			for _, want := range strings.Split(tt.want, "|") {
				found = found || strings.Contains(err.Error(), want)
			}
			assert.True(t, found, "error %q, want %q", err, tt.want)
		})
	}
	t.Run("valid", func(t *testing.T) {
		ok := testTable{names: map[testKey]string{a: "search"}}
		require.NoError(t, CheckNames(ok, []testKey{a}, re, 64, testQualified))
		err := CheckNames(ok, []testKey{a}, re, 64, testQualified, func(s string) bool { return !strings.Contains(s, "search") })
		require.Error(t, err)
	})
}

func TestReferenceSplit(t *testing.T) {
	for _, k := range RoutingKeys {
		server, tool, ok := ReferenceSplit(k.Key)
		require.True(t, ok, k.Name)
		assert.Equal(t, k.Server, server, k.Name)
		assert.Equal(t, k.Tool, tool, k.Name)
	}
	for _, k := range BadRoutingKeys {
		_, _, ok := ReferenceSplit(k.Key)
		assert.False(t, ok, k.Name)
	}
}
