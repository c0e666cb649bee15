package toolname_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
)

// assign runs Assign under Portable with WithPrevious(prev).
func assign(t testing.TB, prev *toolname.Table, keys ...toolname.Key) *toolname.Table {
	t.Helper()
	n, err := toolname.Assign(toolname.Portable, keys, toolname.WithPrevious(prev))
	require.NoError(t, err)
	return n
}

// edited returns n's JSON with each old replaced by its new, decoded: a
// well-formed table written by hand.
func edited(t *testing.T, n *toolname.Table, oldNew ...string) *toolname.Table {
	t.Helper()
	data, err := json.Marshal(n)
	require.NoError(t, err)
	text := string(data)
	for i := 0; i < len(oldNew); i += 2 {
		require.Contains(t, text, oldNew[i])
		text = strings.Replace(text, oldNew[i], oldNew[i+1], 1)
	}
	out := new(toolname.Table)
	require.NoError(t, out.UnmarshalJSON([]byte(text)), text)
	return out
}

func TestContinues(t *testing.T) {
	ax, bx, by := toolname.Key{Server: "a", Tool: "x"}, toolname.Key{Server: "b", Tool: "x"}, toolname.Key{Server: "b", Tool: "y"}
	first := assign(t, nil, ax, by)                    // x, y
	second := assign(t, first, ax, bx)                 // x, b__x; y retired
	third := assign(t, second, bx, by)                 // b__x, y back; x retired
	other := assign(t, assign(t, nil, ax, by), ax, bx) // another chain, the same names
	tests := []struct {
		name      string
		held, got *toolname.Table
		wantName  string // the first name that differs; "" when got continues held
	}{
		{"nothing held", nil, first, ""},
		{"the same table", second, second, ""},
		{"the next table", first, second, ""},
		{"two tables on", first, third, ""},
		{"a name retired, then given back", second, third, ""},
		{"a table of its own decoded again", third, edited(t, third), ""},
		{"an older table", third, first, "b__x"},
		{"nothing", first, nil, "x"},
		{"the same names on another chain", second, other, ""},
		{"a live name moved to another key", second,
			edited(t, second, `"server":"a","tool":"x","name":"x"}`, `"server":"a","tool":"x","name":"a__x","reason":"qualified"}`,
				`"server":"b","tool":"x","name":"b__x","reason":"qualified"}`, `"server":"b","tool":"x","name":"x"}`), "b__x"},
		{"a retired name dropped", second,
			edited(t, second, `"retired":[{"server":"b","tool":"y","name":"y"}]`, `"retired":[]`), "y"},
		{"a retired name given to another key", second,
			edited(t, second, `{"server":"b","tool":"y","name":"y"}`, `{"server":"c","tool":"y","name":"y"}`), "y"},
		{"a live name dropped", second,
			edited(t, second, `{"server":"a","tool":"x","name":"x"},`, ``), "x"},
		{"a fork from the first table", second, assign(t, first, ax, toolname.Key{Server: "c", Tool: "x"}), "b__x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.got.Continues(tt.held)
			if tt.wantName == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, toolname.ErrRollback)
			var e *toolname.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, toolname.CodeRollback, e.Code)
			assert.Equal(t, "name", e.Field)
			assert.Equal(t, tt.wantName, e.Input)
		})
	}
}

// TestContinuesNamesTheFirstName: of several names a table gives to other
// keys, the error names the first in byte order, whatever the order of
// the table's entries, live or retired.
func TestContinuesNamesTheFirstName(t *testing.T) {
	tools := []string{"m", "B", "z", "a", "Z"}
	var mine, theirs []toolname.Key
	for _, tool := range tools {
		mine = append(mine, toolname.Key{Server: "s", Tool: tool})
		theirs = append(theirs, toolname.Key{Server: "t", Tool: tool})
	}
	held := assign(t, assign(t, nil, mine...), mine[:1]...) // only m stays live
	err := assign(t, nil, theirs...).Continues(held)
	var e *toolname.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "B", e.Input, "B is first in byte order")
	assert.Equal(t, "the store's table gives the name to t::B, where the table held (generation 2 of chain "+chainID(held)+") gives it to s::B",
		e.Message())
}

func chainID(n *toolname.Table) string {
	id, _ := n.Chain()
	return id
}

// TestAssignContinuesItsPrevious: every table Assign builds with
// WithPrevious continues it, over random joins and leaves, and a table
// that moves one name to another key does not.
func TestAssignContinuesItsPrevious(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := make([]toolname.Key, 24)
	for i := range pool {
		pool[i] = toolname.Key{Server: fmt.Sprintf("s%d", i%4), Tool: fmt.Sprintf("t%d", i%7)}
	}
	var chain []*toolname.Table
	var prev *toolname.Table
	for range 40 {
		var keys []toolname.Key
		for _, k := range pool {
			if rng.IntN(2) == 0 {
				keys = append(keys, k)
			}
		}
		next := assign(t, prev, keys...)
		for i, older := range chain {
			require.NoError(t, next.Continues(older), "generation %d", i+1)
		}
		chain = append(chain, next)
		prev = next
	}
}

// BenchmarkContinues checks a table of 10,000 live and 100,000 retired
// names, decoded, against the one it was decoded from, as a store value
// checks each new revision; "decode" is the decode that each new revision
// costs already, measured in the same run.
func BenchmarkContinues(b *testing.B) {
	held := longTable(b, 10_000, 100_000)
	data, err := json.Marshal(held)
	require.NoError(b, err)
	got := new(toolname.Table)
	require.NoError(b, got.UnmarshalJSON(data))
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := new(toolname.Table).UnmarshalJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := got.Continues(held); err != nil {
				b.Fatal(err)
			}
		}
	})
}
