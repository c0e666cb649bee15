package toolname

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tableJSON is the JSON form of a Table, as encoding/json writes
// it: the reference that MarshalJSON's output is checked against.
type tableJSON struct {
	Version    int          `json:"version"`
	Chain      string       `json:"chain,omitempty"`
	Generation uint64       `json:"generation,omitempty"`
	Options    *optionsJSON `json:"options,omitempty"`
	Names      []entryJSON  `json:"names"`
	Retired    []entryJSON  `json:"retired"`
}

// entryJSON is one entry of a table's JSON form.
type entryJSON struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Name   string `json:"name"`
	Reason string `json:"reason,omitempty"`
}

// referenceJSON is what encoding/json writes for n.
func referenceJSON(t *testing.T, n *Table) []byte {
	t.Helper()
	tj := tableJSON{Version: tableVersion1, Names: []entryJSON{}, Retired: []entryJSON{}}
	if m := n.naming; m != nil {
		tj.Version, tj.Chain, tj.Generation = tableVersion, n.chainID, n.gen
		tj.Options = &optionsJSON{Profile: m.rule.name, MaxLen: m.maxLen, QualifyAll: m.qualifyAll, Reserved: append([]string{}, m.reserved...)}
	}
	entry := func(k Key, e named) entryJSON {
		j := entryJSON{Server: k.Server, Tool: k.Tool, Name: e.name}
		if e.reason != 0 {
			j.Reason = e.reason.String()
		}
		return j
	}
	for _, k := range n.keys {
		tj.Names = append(tj.Names, entry(k, n.byKey[k]))
	}
	for _, e := range n.retiredSorted() {
		tj.Retired = append(tj.Retired, entry(e.key, e))
	}
	data, err := json.Marshal(tj)
	require.NoError(t, err)
	return data
}

// TestMarshalJSONIsEncodingJSON: MarshalJSON writes, byte for byte, what
// encoding/json writes for the same table, escapes included.
func TestMarshalJSONIsEncodingJSON(t *testing.T) {
	for _, pr := range profileRules {
		n := chainAfter(t, pr.profile, 80)
		data, err := n.MarshalJSON()
		require.NoError(t, err)
		assert.Equal(t, string(referenceJSON(t, n)), string(data), pr.name)
	}
	odd := []string{"a<b>&c", "quote\"back\\slash", "ctl\x01\x1f\b\f\n\r\t", "line\u2028para\u2029", "bad\xffutf8", "日本", "é\u0301", "\x7f"}
	for _, s := range odd {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(appendJSONString(nil, s)), "%q", s)
	}
	keys := make([]Key, 0, len(odd))
	for _, s := range odd {
		if badField(s) == validField {
			keys = append(keys, Key{s, s + "x"})
		}
	}
	n, err := Assign(MCP, keys, WithReserved("zz", "aa"))
	require.NoError(t, err)
	data, err := n.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, string(referenceJSON(t, n)), string(data))
	var back Table
	require.NoError(t, back.UnmarshalJSON(data))
	again, err := back.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))
}

// chainAfter returns the table after the first n events of the simulation.
func chainAfter(t testing.TB, p Profile, n int) *Table {
	t.Helper()
	var prev *Table
	for _, ev := range churnEvents(2, n) {
		next, err := Assign(p, ev.keys, WithPrevious(prev))
		require.NoError(t, err)
		prev = next
	}
	return prev
}

// TestNamesJSONRoundTrip restores a table and checks that it holds the
// same names, fallbacks and retired names, and continues the chain exactly
// as the original does.
func TestNamesJSONRoundTrip(t *testing.T) {
	for _, pr := range profileRules {
		t.Run(pr.name, func(t *testing.T) {
			orig := chainAfter(t, pr.profile, 60)
			require.NotEmpty(t, orig.retiredNames(), "the chain should have retired names")
			data, err := json.Marshal(orig)
			require.NoError(t, err)

			restored := new(Table)
			require.NoError(t, json.Unmarshal(data, restored))
			if diff := cmp.Diff(pairsOf(orig), pairsOf(restored)); diff != "" {
				t.Errorf("All (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(orig.Fallbacks(), restored.Fallbacks()); diff != "" {
				t.Errorf("Fallbacks (-want +got):\n%s", diff)
			}
			again, err := json.Marshal(restored)
			require.NoError(t, err)
			assert.Equal(t, string(data), string(again), "marshal(unmarshal(data))")

			// The next assignment is the same from both.
			keys := append(keysOf(orig), Key{"newcomer", "search"}, Key{"newcomer", "fetch"})
			fromOrig, err := Assign(pr.profile, keys, WithPrevious(orig))
			require.NoError(t, err)
			fromRestored, err := Assign(pr.profile, keys, WithPrevious(restored))
			require.NoError(t, err)
			a, err := json.Marshal(fromOrig)
			require.NoError(t, err)
			b, err := json.Marshal(fromRestored)
			require.NoError(t, err)
			assert.Equal(t, string(a), string(b), "next assignment")
		})
	}
}

func TestNamesJSONForm(t *testing.T) {
	first, err := Assign(OpenAI, []Key{{"a", "search"}, {"b", "search"}, {"b", "fetch"}})
	require.NoError(t, err)
	n, err := Assign(OpenAI, []Key{{"b", "search"}, {"b", "fetch"}}, WithPrevious(first))
	require.NoError(t, err)
	data, err := json.Marshal(n)
	require.NoError(t, err)
	id, gen := n.Chain()
	assert.Equal(t, uint64(2), gen)
	assert.JSONEq(t, `{"version":2,"chain":"`+id+`","generation":2,
		"options":{"profile":"OpenAI","max_len":64,"qualify_all":false,"reserved":[]},
		"names":[{"server":"b","tool":"fetch","name":"fetch"},
		         {"server":"b","tool":"search","name":"b__search","reason":"qualified"}],
		"retired":[{"server":"a","tool":"search","name":"a__search","reason":"qualified"}]}`, string(data))

	var nilNames *Table
	data, err = nilNames.MarshalJSON()
	require.NoError(t, err)
	assert.JSONEq(t, `{"version":1,"names":[],"retired":[]}`, string(data))
}

func TestNamesUnmarshalErrors(t *testing.T) {
	entry := func(server, tool, name, reason string) string {
		b, err := json.Marshal(entryJSON{server, tool, name, reason})
		require.NoError(t, err)
		return string(b)
	}
	table := func(names, retired string) string {
		return `{"version":1,"names":[` + names + `],"retired":[` + retired + `]}`
	}
	good := entry("a", "search", "search", "")
	tests := []struct {
		name   string
		data   string
		field  string
		index  int
		input  string
		isJSON bool
	}{
		{"not JSON", `{"version":1,`, "", -1, "", true},
		{"empty object", `{}`, "version", -1, "0", false},
		{"null", `null`, "version", -1, "0", false},
		{"unknown version", `{"version":3,"names":[],"retired":[]}`, "version", -1, "3", false},
		{"unknown member", `{"version":1,"names":[],"retired":[],"extra":1}`, "", -1, "extra", false},
		{"member twice", `{"version":1,"names":[],"names":[],"retired":[]}`, "names", -1, "", false},
		{"entry member twice", table(`{"server":"a","server":"a","tool":"t","name":"t"}`, ""), "server", 0, "", false},
		{"unknown entry member", table(`{"server":"a","tool":"t","name":"t","note":1}`, ""), "", 0, "note", false},
		{"names null", `{"version":1,"names":null,"retired":[]}`, "names", -1, "", false},
		{"no retired", `{"version":1,"names":[]}`, "", -1, "", false},
		{"version 1.0", `{"version":1.0,"names":[],"retired":[]}`, "version", -1, "1.0", false},
		{"version as a string", `{"version":"1","names":[],"retired":[]}`, "version", -1, "", false},
		{"a list, not a table", `[]`, "", -1, "", false},
		{"invalid UTF-8 in a server", table("{\"server\":\"a\xff\",\"tool\":\"t\",\"name\":\"t\"}", ""), "server", 0, "a\xff", false},
		{"trailing text", table("", "") + `{}`, "", -1, "", false},
		{"wrong type", `{"version":1,"names":{}}`, "names", -1, "", false},
		{"empty server", table(entry("", "t", "t", ""), ""), "server", 0, "", false},
		{"empty tool", table(good+","+entry("s", "", "x", "folded"), ""), "tool", 1, "", false},
		{"empty name", table(entry("s", "t", "", "qualified"), ""), "name", 0, "", false},
		{"name with a colon", table(entry("s", "a:b", "a:b", ""), ""), "name", 0, "a:b", false},
		{"name too long", table(entry("s", "t", string(make([]byte, 129)), "shortened"), ""), "name", 0, string(make([]byte, 129)), false},
		{"unknown reason", table(entry("s", "t", "s__t", "renamed"), ""), "reason", 0, "renamed", false},
		{"reason none", table(entry("s", "t", "s__t", "none"), ""), "reason", 0, "none", false},
		{"reasons out of order", table(entry("s", "t", "s__t", "folded|qualified"), ""), "reason", 0, "folded|qualified", false},
		{"renamed without a reason", table(entry("s", "t", "s__t", ""), ""), "reason", 0, "", false},
		{"bare name with a reason", table(entry("s", "t", "t", "qualified"), ""), "reason", 0, "qualified", false},
		{"bare name holding __", table(entry("evil", "a__search", "a__search", ""), ""), "name", 0, "a__search", false},
		{"look-alike bare name", table(entry("evil", "ｓｅａｒｃｈ", "search", "folded"), ""), "name", 0, "search", false},
		{"unqualified name holding __", table(entry("evil", "x", "a__search", "folded"), ""), "name", 0, "a__search", false},
		{"retired bare name holding __", table("", entry("evil", "a__search", "a__search", "")), "name", 0, "a__search", false},
		{"repeated key", table(good+","+entry("a", "search", "a__search", "qualified"), ""), "tool", 1, "search", false},
		{"repeated name", table(good+","+entry("b", "search", "search", ""), ""), "name", 1, "search", false},
		{"retired name is current", table(good, entry("b", "search", "search", "")), "name", 0, "search", false},
		{"retired name twice", table("", entry("b", "search", "search", "")+","+entry("c", "search", "search", "")), "name", 1, "search", false},
		{"bad retired key", table("", entry("b", "", "x", "qualified")), "tool", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Assign(OpenAI, []Key{{"k", "kept"}})
			require.NoError(t, err)
			err = n.UnmarshalJSON([]byte(tt.data))
			require.ErrorIs(t, err, ErrInvalidTable)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, CodeInvalidTable, e.Code)
			assert.Equal(t, tt.field, e.Field)
			assert.Equal(t, tt.index, e.Index)
			if !tt.isJSON {
				assert.Equal(t, tt.input, e.Input)
			}
			assert.Equal(t, tt.isJSON, e.Unwrap() != nil, "wraps the JSON error")
			name, ok := n.Name(Key{"k", "kept"})
			assert.True(t, ok, "a failed UnmarshalJSON leaves the table as it was")
			assert.Equal(t, "kept", name)
		})
	}
}

// pair is one key and its name, as All yields them.
type pair struct {
	Key  Key
	Name string
}

func pairsOf(n *Table) []pair {
	var out []pair
	for k, name := range n.All() {
		out = append(out, pair{k, name})
	}
	return out
}

func keysOf(n *Table) []Key {
	var out []Key
	for k := range n.All() {
		out = append(out, k)
	}
	return out
}

// TestChainsShareHistorySafely: tables of one chain share its retired
// names, yet each sees its own: a table continued twice, or continued
// after a later one was built, never sees what the other branch did, and
// no branch reuses a name its own history holds.
func TestChainsShareHistorySafely(t *testing.T) {
	a, err := Assign(Portable, []Key{{"s1", "x"}, {"s2", "y"}})
	require.NoError(t, err)
	b, err := Assign(Portable, []Key{{"s2", "y"}}, WithPrevious(a)) // x retired in b
	require.NoError(t, err)
	c, err := Assign(Portable, []Key{{"s1", "x"}}, WithPrevious(b)) // x back, y retired
	require.NoError(t, err)
	fork, err := Assign(Portable, []Key{{"s3", "z"}}, WithPrevious(b)) // from b again: y retired, x still retired
	require.NoError(t, err)

	retired := func(n *Table) []string {
		names := n.retiredNames()
		slices.Sort(names)
		return names
	}
	assert.Empty(t, retired(a))
	assert.Equal(t, []string{"x"}, retired(b), "b is as it was, whatever came after it")
	assert.Equal(t, []string{"y"}, retired(c))
	assert.Equal(t, []string{"x", "y"}, retired(fork))

	// Each branch keeps refusing the names its own history holds.
	again, err := Assign(Portable, []Key{{"other", "x"}, {"other2", "y"}}, WithPrevious(fork))
	require.NoError(t, err)
	nx, _ := again.Name(Key{"other", "x"})
	ny, _ := again.Name(Key{"other2", "y"})
	assert.Equal(t, []string{"other__x", "other2__y"}, []string{nx, ny})
	back, err := Assign(Portable, []Key{{"s1", "x"}, {"s2", "y"}}, WithPrevious(c))
	require.NoError(t, err)
	n1, _ := back.Name(Key{"s1", "x"})
	n2, _ := back.Name(Key{"s2", "y"})
	assert.Equal(t, []string{"x", "y"}, []string{n1, n2}, "keys that come back get their names back")

	// A table saved and restored continues the chain alike.
	data, err := json.Marshal(fork)
	require.NoError(t, err)
	var restored Table
	require.NoError(t, json.Unmarshal(data, &restored))
	assert.Equal(t, retired(fork), retired(&restored))
}
