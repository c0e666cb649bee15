package chainguard_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/internal/chainguard"
)

// stored is what a fake read returns: a revision and a value.
type stored struct {
	rev string
	raw []byte
}

// chain returns the JSON of n tables of one chain, and of one table of
// another chain.
func chain(t *testing.T, n int) (tables [][]byte, other []byte) {
	t.Helper()
	var prev *toolname.Table
	for i := range n {
		next, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "s", Tool: string(rune('a' + i))}}, toolname.WithPrevious(prev))
		require.NoError(t, err)
		data, err := json.Marshal(next)
		require.NoError(t, err)
		tables = append(tables, data)
		prev = next
	}
	o, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "s", Tool: "a"}})
	require.NoError(t, err)
	other, err = json.Marshal(o)
	require.NoError(t, err)
	return tables, other
}

// newGuard returns a guard that counts its decodes.
func newGuard(decodes *int) *chainguard.Guard[*toolname.Table] {
	return chainguard.New(func(raw []byte) (*toolname.Table, error) {
		*decodes++
		n := new(toolname.Table)
		if err := n.UnmarshalJSON(raw); err != nil {
			return nil, err
		}
		return n, nil
	})
}

// from returns a read that returns s.
func from(s stored) func(string) (string, []byte, error) {
	return func(string) (string, []byte, error) { return s.rev, s.raw, nil }
}

func TestGuardLoads(t *testing.T) {
	tables, other := chain(t, 3)
	tests := []struct {
		name    string
		loads   []stored
		wantErr error  // of the last load
		wantGen uint64 // of the last load, when it succeeds
	}{
		{"empty chain", []stored{{"", nil}}, nil, 0},
		{"first table", []stored{{"r1", tables[0]}}, nil, 1},
		{"forward", []stored{{"r1", tables[0]}, {"r3", tables[2]}}, nil, 3},
		{"same again", []stored{{"r2", tables[1]}, {"r2", tables[1]}}, nil, 2},
		{"older", []stored{{"r3", tables[2]}, {"r1", tables[0]}}, toolname.ErrRollback, 0},
		{"emptied", []stored{{"r1", tables[0]}, {"", nil}}, toolname.ErrRollback, 0},
		{"another chain", []stored{{"r1", tables[0]}, {"x", other}}, toolname.ErrRollback, 0},
		{"damaged", []stored{{"r1", []byte(`{"version":2,`)}}, toolname.ErrInvalidTable, 0},
		{"empty value", []stored{{"r1", []byte{}}}, toolname.ErrInvalidTable, 0},
		{"damaged after a table", []stored{{"r1", tables[0]}, {"r2", []byte("garbage")}}, toolname.ErrInvalidTable, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var decodes int
			g := newGuard(&decodes)
			var (
				n   *toolname.Table
				rev string
				err error
			)
			for i, s := range tt.loads {
				n, rev, err = g.Load(from(s))
				if i < len(tt.loads)-1 {
					require.NoError(t, err)
				}
			}
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Nil(t, n)
				assert.Empty(t, rev)
				return
			}
			require.NoError(t, err)
			_, gen := n.Chain()
			assert.Equal(t, tt.wantGen, gen)
			assert.Equal(t, tt.loads[len(tt.loads)-1].rev, rev)
		})
	}
}

// TestGuardRemembersAfterARefusal: a refused load changes nothing, so the
// next good load is checked against the same memory.
func TestGuardRemembersAfterARefusal(t *testing.T) {
	tables, _ := chain(t, 3)
	var decodes int
	g := newGuard(&decodes)
	_, _, err := g.Load(from(stored{"r2", tables[1]}))
	require.NoError(t, err)
	_, _, err = g.Load(from(stored{"", nil}))
	require.ErrorIs(t, err, toolname.ErrRollback)
	_, _, err = g.Load(from(stored{"r1", tables[0]}))
	require.ErrorIs(t, err, toolname.ErrRollback)
	_, _, err = g.Load(from(stored{"r3", tables[2]}))
	require.NoError(t, err)
}

// TestGuardCache: a revision seen last is not fetched or decoded again.
func TestGuardCache(t *testing.T) {
	tables, _ := chain(t, 2)
	var decodes int
	g := newGuard(&decodes)
	first, _, err := g.Load(func(cached string) (string, []byte, error) {
		assert.Empty(t, cached)
		return "r1", tables[0], nil
	})
	require.NoError(t, err)
	again, rev, err := g.Load(func(cached string) (string, []byte, error) {
		assert.Equal(t, "r1", cached)
		return "r1", nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, "r1", rev)
	assert.Same(t, first, again)
	assert.Equal(t, 1, decodes)

	// A table stored through the guard is the one kept.
	next, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "s", Tool: "z"}}, toolname.WithPrevious(first))
	require.NoError(t, err)
	g.Stored("r9", next)
	got, _, err := g.Load(func(cached string) (string, []byte, error) {
		assert.Equal(t, "r9", cached)
		return "r9", nil, nil
	})
	require.NoError(t, err)
	assert.Same(t, next, got)
	assert.Equal(t, 1, decodes)

	// Another revision is decoded, even of the same generation.
	data, err := json.Marshal(next)
	require.NoError(t, err)
	_, rev, err = g.Load(from(stored{"r2", data}))
	require.NoError(t, err)
	assert.Equal(t, "r2", rev)
	assert.Equal(t, 2, decodes)
}

// forked returns the JSON of a chain's generation 1 (s1::list named
// list), of its generation 2 (adding s2::delete_everything, named
// delete_everything), and of generations 2 and 3 of a fork from
// generation 1, where s3::delete_everything is named delete_everything.
func forked(t *testing.T) (gen1, gen2, fork2, fork3 []byte) {
	t.Helper()
	list := toolname.Key{Server: "s1", Tool: "list"}
	assign := func(prev *toolname.Table, keys ...toolname.Key) (*toolname.Table, []byte) {
		n, err := toolname.Assign(toolname.Portable, keys, toolname.WithPrevious(prev))
		require.NoError(t, err)
		data, err := json.Marshal(n)
		require.NoError(t, err)
		return n, data
	}
	first, gen1 := assign(nil, list)
	_, gen2 = assign(first, list, toolname.Key{Server: "s2", Tool: "delete_everything"})
	f2, fork2 := assign(first, list, toolname.Key{Server: "s3", Tool: "delete_everything"})
	_, fork3 = assign(f2, list, toolname.Key{Server: "s3", Tool: "delete_everything"}, toolname.Key{Server: "s3", Tool: "x"})
	return gen1, gen2, fork2, fork3
}

// TestGuardRefusesAFork: a table of the chain, at the same generation or a
// higher one, that gives a name held to another key is refused, and the
// value keeps serving what it held.
func TestGuardRefusesAFork(t *testing.T) {
	gen1, gen2, fork2, fork3 := forked(t)
	for _, tt := range []struct {
		name string
		fork stored
	}{
		{"same generation", stored{"f2", fork2}},
		{"higher generation", stored{"f3", fork3}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var decodes int
			g := newGuard(&decodes)
			_, _, err := g.Load(from(stored{"r1", gen1}))
			require.NoError(t, err)
			held, _, err := g.Load(from(stored{"r2", gen2}))
			require.NoError(t, err)
			_, _, err = g.Load(from(stored{"r1", gen1}))
			require.ErrorIs(t, err, toolname.ErrRollback, "the restored generation 1")

			n, rev, err := g.Load(from(tt.fork))
			require.ErrorIs(t, err, toolname.ErrRollback)
			assert.Nil(t, n)
			assert.Empty(t, rev)
			var e *toolname.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "name", e.Field)
			assert.Equal(t, "delete_everything", e.Input)
			assert.Contains(t, e.Message(), "s3::delete_everything")
			assert.Contains(t, e.Message(), "s2::delete_everything")

			// The refusal is kept with its revision: no decode again.
			decoded := decodes
			_, _, err = g.Load(from(tt.fork))
			require.ErrorIs(t, err, toolname.ErrRollback)
			assert.Equal(t, decoded, decodes, "a refused revision is decoded again")

			// The table held is still served.
			got, rev, err := g.Load(from(stored{"r2", nil}))
			require.NoError(t, err)
			assert.Same(t, held, got)
			assert.Equal(t, "r2", rev)
		})
	}
}

// TestGuardRefusalForgottenWhenHeldChanges: a revision refused against one
// table is checked again once the value holds another.
func TestGuardRefusalForgottenWhenHeldChanges(t *testing.T) {
	gen1, gen2, fork2, _ := forked(t)
	var decodes int
	g := newGuard(&decodes)
	_, _, err := g.Load(from(stored{"r2", gen2}))
	require.NoError(t, err)
	_, _, err = g.Load(from(stored{"f2", fork2}))
	require.ErrorIs(t, err, toolname.ErrRollback)
	// Seeded again on purpose, through this value, from generation 1.
	var first toolname.Table
	require.NoError(t, first.UnmarshalJSON(gen1))
	g.Stored("s1", &first)
	n, rev, err := g.Load(from(stored{"f2", fork2}))
	require.NoError(t, err, "the fork continues the table seeded")
	assert.Equal(t, "f2", rev)
	k, _ := n.Key("delete_everything")
	assert.Equal(t, "s3", k.Server)
}

// TestGuardRaceChecksTheNewHeld: a load that began before a concurrent
// swap held another table is checked against that table too.
func TestGuardRaceChecksTheNewHeld(t *testing.T) {
	gen1, gen2, fork2, _ := forked(t)
	var decodes int
	g := newGuard(&decodes)
	_, _, err := g.Load(from(stored{"r1", gen1}))
	require.NoError(t, err)
	var second toolname.Table
	require.NoError(t, second.UnmarshalJSON(gen2))
	_, _, err = g.Load(func(string) (string, []byte, error) {
		g.Stored("r2", &second) // a swap through the same value, while this load reads
		return "f2", fork2, nil
	})
	require.ErrorIs(t, err, toolname.ErrRollback, "the fork continues generation 1, not the generation 2 held")
	got, _, err := g.Load(from(stored{"r2", nil}))
	require.NoError(t, err)
	assert.Same(t, &second, got)
}

// TestGuardRaceIsNotRollback: a load that read the table a concurrent swap
// through the same value replaced is not a rollback, returns the newer
// table that the swap stored, and does not lower what the value
// remembers.
func TestGuardRaceIsNotRollback(t *testing.T) {
	tables, _ := chain(t, 3)
	var decodes int
	g := newGuard(&decodes)
	_, _, err := g.Load(from(stored{"r1", tables[0]}))
	require.NoError(t, err)
	var third toolname.Table
	require.NoError(t, third.UnmarshalJSON(tables[2]))
	n, rev, err := g.Load(func(string) (string, []byte, error) {
		g.Stored("r3", &third) // a swap through the same value, while this load reads
		return "r2", tables[1], nil
	})
	require.NoError(t, err)
	assert.Same(t, &third, n)
	assert.Equal(t, "r3", rev)
	_, _, err = g.Load(from(stored{"r2", tables[1]}))
	require.ErrorIs(t, err, toolname.ErrRollback, "the memory stays at generation 3")
}

// TestGuardRaceNeverReturnsAnUncheckedTable: a load that began when the
// value held generation 1 reads a fork's generation 2 (continuing
// generation 1, but giving delete_everything to s3), while a swap through
// the same value stores the real generation 3 (which gives it to s2). The
// fork is never returned: the load returns generation 3, the newer table
// held, with its revision.
func TestGuardRaceNeverReturnsAnUncheckedTable(t *testing.T) {
	gen1, gen2, fork2, _ := forked(t)
	var decodes int
	g := newGuard(&decodes)
	_, _, err := g.Load(from(stored{"r1", gen1}))
	require.NoError(t, err)
	var second toolname.Table
	require.NoError(t, second.UnmarshalJSON(gen2))
	third, err := toolname.Assign(toolname.Portable, []toolname.Key{
		{Server: "s1", Tool: "list"}, {Server: "s2", Tool: "delete_everything"}, {Server: "s2", Tool: "x"},
	}, toolname.WithPrevious(&second))
	require.NoError(t, err)

	n, rev, err := g.Load(func(string) (string, []byte, error) {
		g.Stored("r3", third) // a swap through the same value, while this load reads
		return "f2", fork2, nil
	})
	require.NoError(t, err)
	assert.Same(t, third, n)
	assert.Equal(t, "r3", rev)
	k, ok := n.Key("delete_everything")
	require.True(t, ok)
	assert.Equal(t, "s2", k.Server)
	_, _, err = g.Load(from(stored{"f2", fork2}))
	require.ErrorIs(t, err, toolname.ErrRollback, "the fork, read again, is refused")
}

// TestGuardStoredResets: a table stored through the value is what the
// store holds, even an older one seeded again on purpose.
func TestGuardStoredResets(t *testing.T) {
	tables, other := chain(t, 3)
	var decodes int
	g := newGuard(&decodes)
	_, _, err := g.Load(from(stored{"r3", tables[2]}))
	require.NoError(t, err)
	var first toolname.Table
	require.NoError(t, first.UnmarshalJSON(tables[0]))
	g.Stored("s1", &first)
	n, _, err := g.Load(from(stored{"s1", nil}))
	require.NoError(t, err)
	assert.Same(t, &first, n)
	_, _, err = g.Load(from(stored{"r2", tables[1]}))
	require.NoError(t, err, "generation 2 follows the seeded generation 1")
	_, _, err = g.Load(from(stored{"x", other}))
	require.ErrorIs(t, err, toolname.ErrRollback)
}

// held decodes one of the tables that forked returns.
func held(t *testing.T, data []byte) *toolname.Table {
	t.Helper()
	n := new(toolname.Table)
	require.NoError(t, n.UnmarshalJSON(data))
	return n
}

// TestGuardHold: a value that starts from a table known elsewhere (a
// replica's backup) refuses a first load that is empty, of another chain,
// older, or a fork, and holds none of them: the table held, written back
// later, is accepted, and so is a table that continues it.
func TestGuardHold(t *testing.T) {
	gen1, gen2, fork2, fork3 := forked(t)
	_, other := chain(t, 1)
	backup := held(t, gen2)
	third, err := toolname.Assign(toolname.Portable, []toolname.Key{
		{Server: "s1", Tool: "list"}, {Server: "s2", Tool: "delete_everything"}, {Server: "s2", Tool: "x"},
	}, toolname.WithPrevious(backup))
	require.NoError(t, err)
	gen3, err := json.Marshal(third)
	require.NoError(t, err)

	var decodes int
	g := newGuard(&decodes)
	require.NoError(t, g.Hold(backup))
	for _, tt := range []struct {
		name  string
		load  stored
		field string // of the refusal
		input string
	}{
		{"an empty chain", stored{"", nil}, "chain", ""},
		{"an older table", stored{"r1", gen1}, "generation", "1"},
		{"another chain", stored{"x", other}, "chain", ""},
		{"a fork at the same generation", stored{"f2", fork2}, "name", "delete_everything"},
		{"a fork at a higher generation", stored{"f3", fork3}, "name", "delete_everything"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n, rev, err := g.Load(from(tt.load))
			require.ErrorIs(t, err, toolname.ErrRollback)
			assert.Nil(t, n)
			assert.Empty(t, rev)
			var e *toolname.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.field, e.Field)
			if tt.input != "" {
				assert.Equal(t, tt.input, e.Input)
			}
			if tt.field == "name" {
				assert.Contains(t, e.Message(), "the store's table gives the name to s3::delete_everything")
				assert.Contains(t, e.Message(), "gives it to s2::delete_everything")
			}
		})
	}
	// The backup's table, written back by another process, is accepted,
	// and so is the next generation.
	n, rev, err := g.Load(from(stored{"r2", gen2}))
	require.NoError(t, err)
	assert.Equal(t, "r2", rev)
	require.NoError(t, n.Continues(backup))
	require.NoError(t, backup.Continues(n))
	n, rev, err = g.Load(from(stored{"r3", gen3}))
	require.NoError(t, err)
	assert.Equal(t, "r3", rev)
	_, gen := n.Chain()
	assert.Equal(t, uint64(3), gen)
}

// TestGuardHoldAfterLoad: Hold on a value that holds a table keeps the
// later of the two when one continues the other, and refuses otherwise.
func TestGuardHoldAfterLoad(t *testing.T) {
	gen1, gen2, fork2, _ := forked(t)
	_, other := chain(t, 1)
	var decodes int
	g := newGuard(&decodes)
	loaded, _, err := g.Load(from(stored{"r2", gen2}))
	require.NoError(t, err)

	require.NoError(t, g.Hold(nil), "nil holds nothing")
	require.NoError(t, g.Hold(held(t, gen1)), "the table held continues it")
	require.NoError(t, g.Hold(held(t, gen2)), "the table held is it")
	n, rev, err := g.Load(from(stored{"r2", nil}))
	require.NoError(t, err)
	assert.Same(t, loaded, n, "the table held, and its revision, are kept")
	assert.Equal(t, "r2", rev)

	err = g.Hold(held(t, fork2))
	require.ErrorIs(t, err, toolname.ErrRollback)
	var e *toolname.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "delete_everything", e.Input)
	require.ErrorIs(t, g.Hold(held(t, other)), toolname.ErrRollback)
	n, _, err = g.Load(from(stored{"r2", nil}))
	require.NoError(t, err)
	assert.Same(t, loaded, n, "a refused Hold changes nothing")

	third, err := toolname.Assign(toolname.Portable, []toolname.Key{
		{Server: "s1", Tool: "list"}, {Server: "s2", Tool: "delete_everything"}, {Server: "s2", Tool: "x"},
	}, toolname.WithPrevious(loaded))
	require.NoError(t, err)
	require.NoError(t, g.Hold(third), "a later table that continues the one held")
	_, _, err = g.Load(from(stored{"r2", gen2}))
	require.ErrorIs(t, err, toolname.ErrRollback, "the store is older than the table held")
}

// TestGuardHoldDuringFirstLoad: a Hold that lands while the first load
// reads still checks what that load read.
func TestGuardHoldDuringFirstLoad(t *testing.T) {
	_, gen2, fork2, _ := forked(t)
	var decodes int
	g := newGuard(&decodes)
	_, _, err := g.Load(func(string) (string, []byte, error) {
		require.NoError(t, g.Hold(held(t, gen2)))
		return "f2", fork2, nil
	})
	require.ErrorIs(t, err, toolname.ErrRollback)
	_, _, err = g.Load(from(stored{"r2", gen2}))
	require.NoError(t, err)
}

func TestGuardReadError(t *testing.T) {
	var decodes int
	g := newGuard(&decodes)
	boom := errors.New("unreachable")
	_, _, err := g.Load(func(string) (string, []byte, error) { return "", nil, boom })
	require.ErrorIs(t, err, boom)
}

// TestRollbackError: the error names what the value had seen and what
// the load returned.
func TestRollbackError(t *testing.T) {
	have := chainguard.Position{ID: "0123456789abcdef0123456789abcdef", Generation: 7}
	tests := []struct {
		name  string
		got   chainguard.Position
		field string
		input string
	}{
		{"emptied", chainguard.Position{}, "chain", ""},
		{"another chain", chainguard.Position{ID: "ffffffffffffffffffffffffffffffff", Generation: 9}, "chain", "ffffffffffffffffffffffffffffffff"},
		{"older", chainguard.Position{ID: have.ID, Generation: 3}, "generation", "3"},
	}
	messages := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := chainguard.Rollback(have, tt.got)
			require.ErrorIs(t, err, toolname.ErrRollback)
			var e *toolname.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, toolname.CodeRollback, e.Code)
			assert.Equal(t, tt.field, e.Field)
			assert.Equal(t, tt.input, e.Input)
			assert.Contains(t, e.Message(), have.ID)
			assert.Contains(t, e.Message(), "generation 7")
			assert.False(t, messages[e.Message()], "each case has its own message")
			messages[e.Message()] = true
		})
	}
}

func TestOfferKeepsTheLatest(t *testing.T) {
	out := make(chan string, 1)
	chainguard.Offer(out, "r1")
	chainguard.Offer(out, "r2")
	chainguard.Offer(out, "r3")
	require.Len(t, out, 1)
	require.Equal(t, "r3", <-out, "a slow receiver gets the latest value")
	chainguard.Offer(out, "r4")
	require.Equal(t, "r4", <-out)
}
