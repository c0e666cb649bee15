package toolname

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChainIdentity: a fresh chain gets a random id and generation 1; each
// table after it keeps the id and counts one more, whether it is built
// from the original or from a restored copy.
func TestChainIdentity(t *testing.T) {
	keys := []Key{{"a", "search"}, {"b", "search"}}
	first, err := Assign(Portable, keys)
	require.NoError(t, err)
	other, err := Assign(Portable, keys)
	require.NoError(t, err)
	id, gen := first.Chain()
	otherID, _ := other.Chain()
	assert.True(t, validChainID(id), id)
	assert.Equal(t, uint64(1), gen)
	assert.NotEqual(t, id, otherID, "two fresh chains share no id")

	second, err := Assign(Portable, keys[:1], WithPrevious(first))
	require.NoError(t, err)
	id2, gen2 := second.Chain()
	assert.Equal(t, id, id2)
	assert.Equal(t, uint64(2), gen2)

	data, err := json.Marshal(second)
	require.NoError(t, err)
	var restored Table
	require.NoError(t, json.Unmarshal(data, &restored))
	rid, rgen := restored.Chain()
	assert.Equal(t, id, rid)
	assert.Equal(t, uint64(2), rgen)
	third, err := Assign(Portable, keys, WithPrevious(&restored))
	require.NoError(t, err)
	id3, gen3 := third.Chain()
	assert.Equal(t, id, id3)
	assert.Equal(t, uint64(3), gen3)

	var nilNames *Table
	nid, ngen := nilNames.Chain()
	assert.Empty(t, nid)
	assert.Zero(t, ngen)
}

// TestChainRecordsOptions: the options that shape names survive a round
// trip, and so does everything else.
func TestChainRecordsOptions(t *testing.T) {
	p := OpenAI
	p.MaxLen = 40
	n, err := Assign(p, []Key{{"a", "search"}, {"b", "help"}}, WithQualifyAll(), WithReserved("zz", "help", "zz"))
	require.NoError(t, err)
	assert.Equal(t, "profile=OpenAI MaxLen=40 QualifyAll=true Reserved=[help,zz]", n.naming.String())
	data, err := json.Marshal(n)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"options":{"profile":"OpenAI","max_len":40,"qualify_all":true,"reserved":["help","zz"]}`)
	var restored Table
	require.NoError(t, json.Unmarshal(data, &restored))
	require.NotNil(t, restored.naming)
	assert.True(t, n.naming.equal(restored.naming))
	again, err := json.Marshal(&restored)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))
}

// v1Table is a table as release 1 wrote it, and the same table laid out
// otherwise.
const (
	v1Table = `{"version":1,
		"names":[{"server":"b","tool":"search","name":"b__search","reason":"qualified"},{"server":"c","tool":"x","name":"x"}],
		"retired":[{"server":"a","tool":"search","name":"a__search","reason":"qualified"},{"server":"d","tool":"y","name":"y"}]}`
	v1TableOtherLayout = `{"retired":[{"server":"d","tool":"y","name":"y"},{"server":"a","tool":"search","name":"a__search","reason":"qualified"}],
		"names":[{"server":"c","tool":"x","name":"x"},{"server":"b","tool":"search","name":"b__search","reason":"qualified"}],"version":1}`
)

// TestVersion1Loads: a version 1 table is generation 0 of a chain whose id
// is derived from its content, records no options, writes itself back as
// version 1, and starts recording once a table follows it.
func TestVersion1Loads(t *testing.T) {
	load := func(data string) *Table {
		t.Helper()
		var n Table
		require.NoError(t, json.Unmarshal([]byte(data), &n))
		return &n
	}
	a, b := load(v1Table), load(v1TableOtherLayout)
	id, gen := a.Chain()
	assert.True(t, validChainID(id), id)
	assert.Zero(t, gen)
	idB, _ := b.Chain()
	assert.Equal(t, id, idB, "two loads of one table agree")
	changed := load(strings.Replace(v1Table, `"name":"y"`, `"name":"d__y","reason":"qualified"`, 1))
	idC, _ := changed.Chain()
	assert.NotEqual(t, id, idC, "another table, another id")
	assert.Nil(t, a.naming)

	data, err := json.Marshal(a)
	require.NoError(t, err)
	assert.JSONEq(t, v1Table, string(data), "a version 1 table writes itself back as it was")
	idR, _ := load(string(data)).Chain()
	assert.Equal(t, id, idR)

	next, err := Assign(Gemini, []Key{{"b", "search"}, {"c", "x"}}, WithPrevious(a))
	require.NoError(t, err)
	idN, genN := next.Chain()
	assert.Equal(t, id, idN)
	assert.Equal(t, uint64(1), genN)
	require.NotNil(t, next.naming)
	assert.Equal(t, "profile=Gemini MaxLen=63 QualifyAll=false Reserved=[]", next.naming.String())
	if diff := cmp.Diff([]string{"a__search", "y"}, slices.Sorted(slices.Values(next.retiredNames()))); diff != "" {
		t.Errorf("retired (-want +got):\n%s", diff)
	}
}

// TestVersion2Errors: the chain's identity and options are checked as
// strictly as its names.
func TestVersion2Errors(t *testing.T) {
	const id = "0123456789abcdef0123456789abcdef"
	table := func(head, names string) string {
		return `{"version":2,` + head + `,"names":[` + names + `],"retired":[]}`
	}
	opts := `"options":{"profile":"Portable","max_len":63,"qualify_all":false,"reserved":["help"]}`
	good := `"chain":"` + id + `","generation":3,` + opts
	tests := []struct {
		name  string
		data  string
		field string
		input string
	}{
		{"version 1 with a chain", `{"version":1,"chain":"` + id + `","names":[],"retired":[]}`, "version", "1"},
		{"version 1 with an empty chain", `{"version":1,"chain":"","names":[],"retired":[]}`, "version", "1"},
		{"version 1 with generation 0", `{"version":1,"generation":0,"names":[],"retired":[]}`, "version", "1"},
		{"version 1 with options", `{"version":1,` + opts + `,"names":[],"retired":[]}`, "version", "1"},
		{"no chain", table(`"generation":3,`+opts, ""), "chain", ""},
		{"short chain", table(`"chain":"abc","generation":3,`+opts, ""), "chain", "abc"},
		{"upper-case chain", table(`"chain":"`+strings.ToUpper(id)+`","generation":3,`+opts, ""), "chain", strings.ToUpper(id)},
		{"generation 0", table(`"chain":"`+id+`",`+opts, ""), "generation", "0"},
		{"no options", table(`"chain":"`+id+`","generation":3`, ""), "options", ""},
		{"unknown profile", table(`"chain":"`+id+`","generation":3,"options":{"profile":"portable","max_len":63,"qualify_all":false,"reserved":[]}`, ""), "profile", "portable"},
		{"MaxLen too large", table(`"chain":"`+id+`","generation":3,"options":{"profile":"Portable","max_len":64,"qualify_all":false,"reserved":[]}`, ""), "max_len", "64"},
		{"MaxLen too small", table(`"chain":"`+id+`","generation":3,"options":{"profile":"Portable","max_len":12,"qualify_all":false,"reserved":[]}`, ""), "max_len", "12"},
		{"reserved unsorted", table(`"chain":"`+id+`","generation":3,"options":{"profile":"Portable","max_len":63,"qualify_all":false,"reserved":["b","a"]}`, ""), "reserved", "a"},
		{"reserved invalid", table(`"chain":"`+id+`","generation":3,"options":{"profile":"Portable","max_len":63,"qualify_all":false,"reserved":["1a"]}`, ""), "reserved", "1a"},
		{"live name reserved", table(good, `{"server":"s","tool":"help","name":"help"}`), "name", "help"},
		{"live name invalid under the profile", table(good, `{"server":"s","tool":"get.x","name":"get.x"}`), "name", "get.x"},
		{"live name too long for MaxLen", table(`"chain":"`+id+`","generation":3,"options":{"profile":"MCP","max_len":13,"qualify_all":false,"reserved":[]}`, `{"server":"s","tool":"abcdefghijklmn","name":"abcdefghijklmn"}`), "name", "abcdefghijklmn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := new(Table).UnmarshalJSON([]byte(tt.data))
			require.ErrorIs(t, err, ErrInvalidTable)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.field, e.Field)
			assert.Equal(t, tt.input, e.Input)
		})
	}
	var n Table
	require.NoError(t, n.UnmarshalJSON([]byte(table(good, `{"server":"s","tool":"x","name":"x"}`))))
	gotID, gen := n.Chain()
	assert.Equal(t, id, gotID)
	assert.Equal(t, uint64(3), gen)
}
