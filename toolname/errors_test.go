package toolname

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname/internal/chainguard"
)

// producedErrors returns one error of every kind the package returns:
// every code, and within a code every wording of the message.
func producedErrors(t *testing.T) map[string]error {
	t.Helper()
	out := map[string]error{}
	for _, key := range []string{"no-separator", "a:b::c", "a%3a::c"} {
		_, _, err := Split(key)
		require.Error(t, err)
		out["Split "+key] = err
	}
	for name, keys := range map[string][]Key{
		"empty":   {{"", "t"}},
		"invalid": {{"s", "\xff"}},
	} {
		_, err := Assign(Portable, keys)
		require.Error(t, err)
		out["Assign "+name] = err
	}
	_, err := Assign(Profile{MaxLen: 3}, nil)
	require.Error(t, err)
	out["Assign profile"] = err
	_, err = Assign(Profile{MaxLen: 64}, nil)
	require.Error(t, err)
	out["Assign profile above"] = err
	_, err = Assign(OpenAI, nil, WithReserved("a b"))
	require.Error(t, err)
	out["Assign reserved"] = err
	names, err := Assign(Portable, []Key{{"a", "search"}, {"b", "search"}})
	require.NoError(t, err)
	for _, name := range []string{"nope", "search"} {
		_, err := names.Route(name)
		require.Error(t, err)
		out["Route "+name] = err
	}
	for name, data := range map[string]string{
		"syntax":  `{`,
		"version": `{"version":7}`,
		"entry":   `{"version":1,"names":[{"server":"s","tool":"t","name":"x.y:z"}],"retired":[]}`,
	} {
		err = new(Table).UnmarshalJSON([]byte(data))
		require.Error(t, err)
		out["UnmarshalJSON "+name] = err
	}
	for name, err := range storeErrors(t) {
		out[name] = err
	}
	return out
}

// storeErrors returns one error of every kind Update, Seed and the file
// store return.
func storeErrors(t *testing.T) map[string]error {
	t.Helper()
	out := map[string]error{}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "names.json")
	fs, err := NewFileStore(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = fs.Close() })
	_, err = NewFileStore(path)
	out["NewFileStore locked"] = err

	first, _, err := Update(ctx, fs, Portable, []Key{{"a", "x"}})
	require.NoError(t, err)
	second, _, err := Update(ctx, fs, Portable, []Key{{"b", "x"}})
	require.NoError(t, err)
	_, err = fs.Swap(ctx, "stale", second)
	out["Swap stale"] = err
	_, _, err = Update(ctx, fs, OpenAI, []Key{{"a", "x"}})
	out["Update mismatch"] = err
	_, err = Seed(ctx, fs, first)
	out["Seed not empty"] = err

	other, err := Assign(Portable, []Key{{"a", "x"}})
	require.NoError(t, err)
	for name, n := range map[string]*Table{"older": first, "other chain": other} {
		data, err := json.Marshal(n)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, data, 0o600))
		_, _, err = fs.Load(ctx)
		out["Load "+name] = err
	}
	require.NoError(t, os.Remove(path))
	_, _, err = fs.Load(ctx)
	out["Load emptied"] = err
	for name, err := range out {
		require.Error(t, err, name)
	}
	return out
}

func TestErrorIs(t *testing.T) {
	produced := producedErrors(t)
	seen := map[Code]bool{}
	for _, err := range produced {
		var e *Error
		require.ErrorAs(t, err, &e)
		seen[e.Code] = true
	}
	for code := range codes {
		assert.True(t, seen[code], "no produced error has code %s", code)
	}
	for name, err := range produced {
		t.Run(name, func(t *testing.T) {
			var e *Error
			require.ErrorAs(t, err, &e)
			for code, row := range codes {
				assert.Equal(t, code == e.Code, errors.Is(err, row.Sentinel), "errors.Is(err, %s)", code)
			}
			wrapped := fmt.Errorf("gateway: %w", err)
			assert.ErrorIs(t, wrapped, sentinel(e.Code))
			assert.False(t, errors.Is(err, errors.New(string(e.Code))))
		})
	}
}

func TestSentinelPerCode(t *testing.T) {
	codes := []Code{CodeInvalidRoutingKey, CodeInvalidKey, CodeInvalidProfile, CodeInvalidReserved, CodeInvalidTable}
	seen := map[error]bool{}
	for _, c := range codes {
		s := sentinel(c)
		require.NotNil(t, s, c)
		assert.False(t, seen[s], "one sentinel per code")
		seen[s] = true
		assert.Equal(t, "toolname: "+string(c), s.Error())
		// An Error built by hand, without the fields a message names,
		// still matches its sentinel and still has words for its fault.
		e := &Error{Code: c, Index: -1, Offset: -1}
		assert.True(t, errors.Is(e, s), c)
		assert.NotEmpty(t, e.Message(), c)
		assert.NotEmpty(t, e.Hint(), c)
		assert.NotContains(t, e.Message(), "  ", c)
	}
	other := &Error{Code: "other", Index: -1, Offset: -1}
	assert.Nil(t, sentinel(other.Code))
	assert.False(t, other.Is(nil))
	assert.False(t, other.Is(ErrInvalidKey))
}

// TestErrorSaysEachThingOnce checks, for every error the package returns,
// that Error is assembled from Message and Hint, that the message holds
// neither the hint nor the input, and that each wording of a code is its
// own.
func TestErrorSaysEachThingOnce(t *testing.T) {
	messages := map[string]string{}
	for name, err := range producedErrors(t) {
		t.Run(name, func(t *testing.T) {
			var e *Error
			require.ErrorAs(t, err, &e)
			msg, hint := e.Message(), e.Hint()
			require.NotEmpty(t, msg)
			require.NotEmpty(t, hint)
			text := err.Error()
			assert.True(t, strings.HasPrefix(text, "toolname: "+string(e.Code)+": "+msg), text)
			assert.True(t, strings.HasSuffix(text, "; "+hint), text)
			assert.NotContains(t, text, "\n")
			assert.NotContains(t, msg, hint)
			assert.NotContains(t, hint, msg)
			if len(e.Input) > 3 { // short inputs such as "t" are words of the text
				assert.NotContains(t, msg, e.Input)
				assert.NotContains(t, hint, e.Input)
			}
			if e.Input != "" {
				assert.Contains(t, text, "="+strconv.Quote(e.Input))
			}
			if prev, ok := messages[msg]; ok {
				t.Errorf("%q has the message of %q: %q", name, prev, msg)
			}
			messages[msg] = name
		})
	}
}

// TestErrorText pins the log text of one error per code, and of the
// forms an Error built by hand can take.
func TestErrorText(t *testing.T) {
	_, _, splitErr := Split("kube:prod::get")
	_, keyErr := Assign(OpenAI, []Key{{"s", "t"}, {"s", "caf\xc3"}})
	_, profileErr := Assign(Profile{MaxLen: 5}, nil)
	_, reservedErr := Assign(OpenAI, nil, WithReserved("ok", "my tool"))
	have := chainguard.Position{ID: "0123456789abcdef0123456789abcdef", Generation: 7}
	ctx := context.Background()
	fs, err := NewFileStore(filepath.Join(t.TempDir(), "names.json"))
	require.NoError(t, err)
	defer fs.Close()
	_, _, err = Update(ctx, fs, Portable, []Key{{"a", "x"}})
	require.NoError(t, err)
	p := OpenAI
	p.MaxLen = 40
	_, _, mismatchErr := Update(ctx, fs, p, []Key{{"a", "x"}}, WithQualifyAll(), WithReserved("help"))
	notEmptyErr := func() error { n, _, _ := fs.Load(ctx); _, err := Seed(ctx, fs, n); return err }()
	namesErr := new(Table).UnmarshalJSON([]byte(`{"version":1,"names":[{"server":"s","tool":"t","name":"s__t","reason":"renamed"}],"retired":[]}`))
	tests := []struct {
		name string
		err  error
		code Code
		want string
	}{
		{"routing key", splitErr, CodeInvalidRoutingKey,
			`toolname: invalid_routing_key: raw ':' in the server part (offset=4, routing_key="kube:prod::get"); escape ':' in a server as %3A, as Join does`},
		{"key", keyErr, CodeInvalidKey,
			`toolname: invalid_key: key has a tool that is not valid UTF-8 (index=1, offset=3, tool="caf\xc3"); pass names as UTF-8 text`},
		{"profile", profileErr, CodeInvalidProfile,
			`toolname: invalid_profile: MaxLen is below 13, the length of the shortest hashed name (MaxLen="5"); use a larger MaxLen, or 0 for the profile's own limit`},
		{"reserved", reservedErr, CodeInvalidReserved,
			`toolname: invalid_reserved: reserved name is not valid under the profile (index=1, reserved="my tool"); reserve only names the profile allows`},
		{"names", namesErr, CodeInvalidTable,
			`toolname: invalid_table: not a table that Table.MarshalJSON writes: names entry has an unknown reason (index=0, reason="renamed"); restore a table saved by MarshalJSON, or start a new chain`},
		{"names, the text as a whole", new(Table).UnmarshalJSON([]byte(`{}{}`)), CodeInvalidTable,
			`toolname: invalid_table: not a table that Table.MarshalJSON writes: text after the table; restore a table saved by MarshalJSON, or start a new chain`},
		{"stale", &Error{Code: CodeStale, Index: -1, Offset: -1}, CodeStale,
			`toolname: stale_revision: another writer stored a newer table of the chain; load the chain again and retry`},
		{"chain mismatch", mismatchErr, CodeChainMismatch,
			`toolname: chain_mismatch: the chain records other naming options: profile=Portable MaxLen=63 QualifyAll=false Reserved=[] (options="profile=OpenAI MaxLen=40 QualifyAll=true Reserved=[help]"); use the chain's options, or seed a new chain with tables assigned under the new ones`},
		{"rollback, emptied", rollbackError(have, chainguard.Position{}), CodeRollback,
			`toolname: rollback: the store holds no table, where it held generation 7 of chain 0123456789abcdef0123456789abcdef (chain=""); find out what emptied, restored or edited the store, then empty the chain and seed it again from the right table with Seed`},
		{"rollback, older", rollbackError(have, chainguard.Position{ID: have.ID, Generation: 3}), CodeRollback,
			`toolname: rollback: the store holds an older table, where it held generation 7 of chain 0123456789abcdef0123456789abcdef (generation="3"); find out what emptied, restored or edited the store, then empty the chain and seed it again from the right table with Seed`},
		{"chain not empty", notEmptyErr, CodeChainNotEmpty,
			`toolname: chain_not_empty: the chain already holds a table; seed an empty chain, or continue this one with Update`},
		{"unknown code", &Error{Code: "other", Index: 2, Offset: -1, Input: "x"}, "other",
			`toolname: other (index=2, input="x")`},
		{"unknown code, no input", &Error{Code: "other", Index: -1, Offset: -1}, "other",
			`toolname: other`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e *Error
			require.ErrorAs(t, tt.err, &e)
			assert.Equal(t, tt.code, e.Code)
			if diff := cmp.Diff(tt.want, tt.err.Error()); diff != "" {
				t.Errorf("Error() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNilError(t *testing.T) {
	var e *Error
	assert.Equal(t, "toolname: <nil>", e.Error())
	assert.Empty(t, e.Message())
	assert.Empty(t, e.Hint())
	assert.False(t, e.Is(ErrInvalidKey))
	assert.NoError(t, e.Unwrap())
}
