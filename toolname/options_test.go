package toolname

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithQualifyAll(t *testing.T) {
	tests := []struct {
		name    string
		profile Profile
		keys    []Key
		want    map[Key]string
	}{
		{"unique tools are qualified", OpenAI,
			[]Key{{"github", "create_issue"}, {"jira", "search"}},
			map[Key]string{{"github", "create_issue"}: "github__create_issue", {"jira", "search"}: "jira__search"}},
		{"a folded server is hashed, present alone or not", OpenAI,
			[]Key{{"my.server", "search"}},
			map[Key]string{{"my.server", "search"}: "my_server__search_f7vz3s3yis"}},
		{"a server holding __ is hashed", OpenAI,
			[]Key{{"a__b", "x"}, {"a", "b__x"}},
			map[Key]string{{"a__b", "x"}: "a__b__x_gda5xpaj56", {"a", "b__x"}: "a__b__x"}},
		{"a server ending in _ is hashed", OpenAI,
			[]Key{{"a_", "x"}, {"a", "_x"}},
			map[Key]string{{"a_", "x"}: "a___x_5ax3xwsw7f", {"a", "_x"}: "a___x"}},
		{"a leading _ is folding", Portable,
			[]Key{{"1password", "get"}},
			map[Key]string{{"1password", "get"}: "_1password__get_nqpqiqkqgq"}},
		{"an unreadable tool", OpenAI,
			[]Key{{"s", "日本"}},
			map[Key]string{{"s", "日本"}: "s__mbidziu7gq"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Assign(tt.profile, tt.keys, WithQualifyAll())
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, namesOf(n, tt.keys)); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			checkNames(t, tt.profile, tt.keys, n)
			// Each key alone gets the same name: names are set-independent.
			for _, k := range tt.keys {
				alone, err := Assign(tt.profile, []Key{k}, WithQualifyAll())
				require.NoError(t, err)
				name, _ := alone.Name(k)
				assert.Equal(t, tt.want[k], name, "%q alone", k)
			}
		})
	}
}

func TestQualifyAllAlongAChain(t *testing.T) {
	first, err := Assign(OpenAI, []Key{{"a", "search"}, {"b", "fetch"}})
	require.NoError(t, err)
	n, err := Assign(OpenAI, []Key{{"a", "search"}, {"b", "fetch"}, {"c", "list"}}, WithPrevious(first), WithQualifyAll())
	require.NoError(t, err)
	want := map[Key]string{{"a", "search"}: "search", {"b", "fetch"}: "fetch", {"c", "list"}: "c__list"}
	if diff := cmp.Diff(want, namesOf(n, keysOf(n))); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

func TestWithReserved(t *testing.T) {
	keys := []Key{{"a", "search"}, {"b", "help"}}
	n, err := Assign(OpenAI, keys, WithReserved("help"), WithReserved("b__help", "list_servers"))
	require.NoError(t, err)
	want := map[Key]string{{"a", "search"}: "search", {"b", "help"}: "b__help_shkhaoylcz"}
	if diff := cmp.Diff(want, namesOf(n, keys)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

	// A kept name that becomes reserved is given up for a new one.
	next, err := Assign(OpenAI, keys, WithPrevious(n), WithReserved("search"))
	require.NoError(t, err)
	want = map[Key]string{{"a", "search"}: "a__search", {"b", "help"}: "b__help_shkhaoylcz"}
	if diff := cmp.Diff(want, namesOf(next, keys)); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	_, ok := next.Key("search")
	assert.False(t, ok, "a reserved name resolves to nothing")
}

func TestWithReservedInvalid(t *testing.T) {
	for _, tt := range []struct {
		profile Profile
		names   []string
		index   int
	}{
		{OpenAI, []string{"ok", "my tool"}, 1},
		{Portable, []string{"2fa"}, 0},
		{OpenAI, []string{""}, 0},
		{Gemini, []string{"ns:get"}, 0},
	} {
		n, err := Assign(tt.profile, []Key{{"s", "t"}}, WithReserved(tt.names...))
		require.ErrorIs(t, err, ErrInvalidReserved)
		assert.Nil(t, n)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, tt.index, e.Index)
		assert.Equal(t, tt.names[tt.index], e.Input)
		assert.Equal(t, "reserved", e.Field)
	}
}

// TestNoImpersonation: a tool whose name holds "__", such as another
// server's qualified name, never takes that name, whatever the order in
// which the servers arrive.
func TestNoImpersonation(t *testing.T) {
	a, b, evil := Key{"a", "search"}, Key{"b", "search"}, Key{"evil", "a__search"}
	lone := Key{"evil", "b__fetch"}
	want := map[Key]string{a: "a__search", b: "b__search", evil: "evil__a__search", lone: "evil__b__fetch"}
	orders := map[string][][]Key{
		"all at once":        {{a, b, evil, lone}},
		"evil first":         {{evil, lone}, {evil, lone, a, b}},
		"evil last":          {{a, b}, {a, b, evil, lone}},
		"evil while a alone": {{a, evil, lone}, {a, b, evil, lone}},
	}
	for name, steps := range orders {
		t.Run(name, func(t *testing.T) {
			var prev *Table
			for _, keys := range steps {
				n, err := Assign(Portable, keys, WithPrevious(prev))
				require.NoError(t, err)
				checkNames(t, Portable, keys, n)
				prev = n
			}
			for _, k := range []Key{evil, lone} {
				got, _ := prev.Name(k)
				assert.Equal(t, want[k], got, "%q", k)
			}
			_, ok := prev.Key("a__search")
			if got, _ := prev.Name(a); got != "a__search" {
				assert.False(t, ok, "a__search must name a::search or nothing")
			}
		})
	}
}

func TestAll(t *testing.T) {
	keys := []Key{{"b", "x"}, {"a", "z"}, {"a", "y"}, {"b", "x"}}
	n, err := Assign(OpenAI, keys)
	require.NoError(t, err)
	var got []Key
	for k, name := range n.All() {
		want, _ := n.Name(k)
		assert.Equal(t, want, name)
		got = append(got, k)
	}
	assert.Equal(t, []Key{{"a", "y"}, {"a", "z"}, {"b", "x"}}, got)

	// Stopping early is honoured.
	count := 0
	for range n.All() {
		count++
		break
	}
	assert.Equal(t, 1, count)
	var nilNames *Table
	for range nilNames.All() {
		t.Fatal("a nil table has no names")
	}
}
