package searchfetch

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzCompactData checks compactData's properties on any input: it
// accepts exactly the inputs that are one JSON object or array, and what
// it writes is valid JSON that decodes to the same value (numbers as
// written), holds no white space outside strings and none of the escapes
// that JSON does not need, and is written again as it is.
func FuzzCompactData(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, ` { "a" : [ 1 , 2.50 , -0 , 1e400 ] } `, `{"a":"\u003cb\u003e \u0026 \u2028 \u00e9 \ud800"}`,
		`{"s":"\\u2028 \\\u2028 \" \n \u0001 \/"}`, "{\"s\":\"a\xffb\xe4\xb8\"}", `{"a":1,"a":2}`,
		`"x"`, `1`, `null`, `{} {}`, `{"a":`, `[{"b":[{"c":{}}]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := compactData(in)
		valid := json.Valid(in)
		trimmed := bytes.TrimLeft(in, " \t\r\n")
		container := len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
		if err != nil {
			assert.False(t, valid && container, "refused an object or array: %q: %v", in, err)
			return
		}
		require.True(t, valid && container, "accepted %q", in)
		assert.Equal(t, decodeNumbers(t, in), decodeNumbers(t, out), "the same value")
		again, err := compactData(out)
		require.NoError(t, err)
		if diff := cmp.Diff(string(out), string(again)); diff != "" {
			t.Errorf("written again (-first +second):\n%s", diff)
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`, `\u00e9`, `\/`} {
			// An escaped backslash before u003c is text: \\u003c.
			assert.False(t, bytes.Contains(bytes.ReplaceAll(out, []byte(`\\`), nil), []byte(esc)), "%s in %s", esc, out)
		}
		assert.False(t, bytes.ContainsAny(outside(out), " \t\r\n"), "white space outside strings: %s", out)
	})
}

// decodeNumbers returns the JSON value b, its numbers as written.
func decodeNumbers(t *testing.T, b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

// outside returns the bytes of the valid JSON b outside its strings.
func outside(b []byte) []byte {
	var out []byte
	in, escaped := false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case in && c == '\\':
			escaped = true
		case c == '"':
			in = !in
		case !in:
			out = append(out, c)
		}
	}
	return out
}
