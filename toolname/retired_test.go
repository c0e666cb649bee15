package toolname

import (
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRetiredForks builds a tree of tables: each step continues a random
// earlier table (mostly the latest, as a gateway does, sometimes one it
// dropped or an older one) and checks every table's retired names against
// a plain reference, after every step: no table ever sees what another
// branch did.
func TestRetiredForks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pool := manyKeys(6, 4)
	type built struct {
		n       *Table
		retired map[string]Key // the reference
	}
	first, err := Assign(Portable, pool[:8])
	require.NoError(t, err)
	tables := []built{{first, map[string]Key{}}}
	for step := range 150 {
		from := len(tables) - 1
		switch r := rng.IntN(10); {
		case r < 2:
			from = rng.IntN(len(tables))
		case r < 4 && from > 0:
			from-- // a sibling of the latest, as Update builds and drops
		}
		prev := tables[from]
		var keys []Key
		for _, k := range pool {
			if rng.IntN(3) == 0 {
				keys = append(keys, k)
			}
		}
		next, err := Assign(Portable, keys, WithPrevious(prev.n))
		require.NoError(t, err)
		want := maps.Clone(prev.retired)
		for k, name := range prev.n.All() {
			want[name] = k
		}
		for name := range next.byName {
			delete(want, name)
		}
		tables = append(tables, built{next, want})
		// Every table now and then, the newest ones every step.
		check := tables[max(0, len(tables)-3):]
		if step%15 == 0 {
			check = tables
		}
		for i, b := range check {
			got := map[string]Key{}
			b.n.retiredAll(func(name string, e named) {
				_, dup := got[name]
				require.False(t, dup, "step %d table %d lists %q twice", step, i, name)
				got[name] = e.key
			})
			if diff := cmp.Diff(b.retired, got); diff != "" {
				t.Fatalf("step %d, table %d: retired (-want +got):\n%s", step, i, diff)
			}
		}
	}
}

// TestDroppedTablesCostNothing: tables built from one table and dropped,
// as Update does when there is nothing new to store, leave its store
// where it was, so the next one continues it in place instead of copying
// the history.
func TestDroppedTablesCostNothing(t *testing.T) {
	gone := manyKeys(50, 10)
	old, err := Assign(Portable, gone)
	require.NoError(t, err)
	live := manyKeys(5, 3)
	latest, err := Assign(Portable, live, WithPrevious(old))
	require.NoError(t, err)
	store := latest.continued()
	for range 3 {
		dropped, err := Assign(Portable, live[:4], WithPrevious(latest))
		require.NoError(t, err)
		assert.Same(t, store, dropped.retired, "built on the latest table's store")
	}
	next, err := Assign(Portable, live[1:], WithPrevious(latest))
	require.NoError(t, err)
	assert.Same(t, store, next.continued(), "continued in place")
	assert.Equal(t, next.gen, store.head)
	// A sibling continued after next was: a copy of its own.
	sibling, err := Assign(Portable, live[2:], WithPrevious(latest))
	require.NoError(t, err)
	assert.NotSame(t, store, sibling.continued())
}
