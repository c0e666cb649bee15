package mcpid

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewAliasesErrors(t *testing.T) {
	tests := []struct {
		name     string
		m        map[string]string
		field    string
		input    string
		embedded string
		offset   int
	}{
		{"connection id with ..", map[string]string{"a/../b": "ab"}, FieldConnectionID, "a/../b", "", 2},
		{"connection id empty", map[string]string{"": "x"}, FieldConnectionID, "", "", -1},
		{"connection id with a control", map[string]string{"c\n1": "c1"}, FieldConnectionID, "c\n1", "", 1},
		{"connection id with a backslash", map[string]string{`c\1`: "c1"}, FieldConnectionID, `c\1`, "", 1},
		{"alias empty", map[string]string{"c1": ""}, FieldAlias, "", "c1", -1},
		{"alias with /", map[string]string{"projects/p1": "p/1"}, FieldAlias, "p/1", "projects/p1", 1},
		{"alias with :", map[string]string{"drive:team": "drive:t"}, FieldAlias, "drive:t", "drive:team", 5},
		{"alias with %", map[string]string{"c1": "c%1"}, FieldAlias, "c%1", "c1", 1},
		{"alias with % before :", map[string]string{"c1": "a%b:c"}, FieldAlias, "a%b:c", "c1", 1},
		{"alias with : before %", map[string]string{"c1": "a:b%c"}, FieldAlias, "a:b%c", "c1", 1},
		{"alias .", map[string]string{"c1": "."}, FieldAlias, ".", "c1", 0},
		{"alias with ..", map[string]string{"c1": "a..b"}, FieldAlias, "a..b", "c1", 1},
		{"alias with a backslash", map[string]string{"c1": `a\b`}, FieldAlias, `a\b`, "c1", 1},
		{"alias not UTF-8", map[string]string{"c1": "a\xff"}, FieldAlias, "a\xff", "c1", 1},
		{"alias with a control", map[string]string{"c1": "a\x7f"}, FieldAlias, "a\x7f", "c1", 1},
		{"alias is another connection", map[string]string{"c1": "c2", "c2": "x"}, FieldAlias, "c2", "c1", -1},
		{"alias is its own connection", map[string]string{"c1": "c1"}, FieldAlias, "c1", "c1", -1},
		{"alias shared", map[string]string{"c1": "x", "c2": "x"}, FieldAlias, "x", "c2", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := NewAliases(tt.m)
			require.Error(t, err)
			assert.Nil(t, a)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.ErrorIs(t, err, ErrInvalidConnectionID)
			assert.Equal(t, CodeInvalidConnectionID, e.Code)
			assert.Equal(t, tt.field, e.Field)
			assert.Equal(t, tt.input, e.Input)
			assert.Equal(t, tt.embedded, e.Embedded)
			assert.Equal(t, tt.offset, e.Offset)
			// The hint speaks to the server's author, who declared
			// the aliases, not to a model that passes arguments.
			assert.NotContains(t, e.Hint(), "connection_id")
			assert.NotContains(t, e.Hint(), "search")
			assert.NotEmpty(t, e.Message())
			assert.NotEmpty(t, e.Message())
			assert.NotEmpty(t, e.Hint())
			// The envelope reads back.
			data, err := e.MarshalJSON()
			require.NoError(t, err)
			var back Error
			require.NoError(t, back.UnmarshalJSON(data))
			assert.True(t, errors.Is(&back, ErrInvalidConnectionID))
		})
	}
}

func TestNewAliasesSameErrorEveryTime(t *testing.T) {
	// Two faults: the one of the first connection id in order is
	// reported, whatever order the map iterates in.
	m := map[string]string{"b": "b/x", "a": "a:x", "c": "c%x"}
	for range 20 {
		_, err := NewAliases(m)
		var e *Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, "a:x", e.Input)
	}
}

func TestAliasesRoundTrip(t *testing.T) {
	m := map[string]string{
		"projects/acme/locations/eu/connections/drive-1": "drive1",
		"arn:aws:s3:::acme-reports":                      "reports",
		"drive:team":                                     "team",
		"cin_4f2a":                                       "pg",
		"eu:tickets":                                     "tickets",
		"文書":                                             "docs",
	}
	a, err := NewAliases(m)
	require.NoError(t, err)
	for conn, alias := range m {
		got, ok := a.Alias(conn)
		require.True(t, ok, conn)
		assert.Equal(t, alias, got)
		back, ok := a.Connection(got)
		require.True(t, ok, alias)
		assert.Equal(t, conn, back)
		// An alias embeds as it is, and resolves to itself.
		id, embedded := SelfContainedID("docs:d1", alias)
		require.True(t, embedded)
		assert.Equal(t, alias+"/docs:d1", id)
		req, err := ResolveFetch(id, "")
		require.NoError(t, err)
		assert.Equal(t, alias, req.ConnectionID)
	}
	for _, none := range []string{"", "drive-1", "c1", "DRIVE1"} {
		_, ok := a.Alias(none)
		assert.False(t, ok, none)
		_, ok = a.Connection(none)
		assert.False(t, ok, none)
	}
	// An alias is not a connection, and a connection is not an alias.
	_, ok := a.Alias("drive1")
	assert.False(t, ok)
	_, ok = a.Connection("drive:team")
	assert.False(t, ok)
}

func TestAliasesNilAndEmpty(t *testing.T) {
	var nilAliases *Aliases
	empty, err := NewAliases(nil)
	require.NoError(t, err)
	for _, a := range []*Aliases{nilAliases, empty} {
		_, ok := a.Alias("c1")
		assert.False(t, ok)
		_, ok = a.Connection("c1")
		assert.False(t, ok)
	}
}

func TestAliasesCopiesTheMap(t *testing.T) {
	m := map[string]string{"c1": "one"}
	a, err := NewAliases(m)
	require.NoError(t, err)
	m["c1"] = "two"
	got, ok := a.Alias("c1")
	require.True(t, ok)
	assert.Equal(t, "one", got)
}

func TestAliasesNoAllocs(t *testing.T) {
	a, err := NewAliases(map[string]string{"projects/p1/connections/c2": "c2"})
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		alias, _ := a.Alias("projects/p1/connections/c2")
		sinkString, _ = a.Connection(alias)
	})
	assert.Zero(t, allocs)
}
