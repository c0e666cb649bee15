package jsonlit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/jsonlit"
)

// literals is the table of string literals shared by the tests and the
// fuzz seeds: each with the text after it, where End must stop, whether
// it saw an escape, and the value Unquote must give (uok false:
// encoding/json refuses it).
var literals = []struct {
	name string
	s    string
	i    int    // where the literal starts
	end  int    // End's index
	esc  bool   // End's escaped
	ok   bool   // End's verdict
	val  string // Unquote(s[i:end]), when it is one
	uok  bool   // Unquote's verdict
}{
	{"empty", `""`, 0, 2, false, true, "", true},
	{"plain", `"abc"`, 0, 5, false, true, "abc", true},
	{"followed", `"a":1`, 0, 3, false, true, "a", true},
	{"at an offset", `{ "key" : 1 }`, 2, 7, false, true, "key", true},
	{"escaped quote", `"a\"b"x`, 0, 6, true, true, `a"b`, true},
	{"escaped backslash ends", `"a\\"b"`, 0, 5, true, true, `a\`, true},
	{"escapes", `"\/\b\f\n\r\t\u00e9"`, 0, 20, true, true, "/\b\f\n\r\t\u00e9", true},
	{"surrogate pair", `"\ud83d\ude00"`, 0, 14, true, true, "\U0001F600", true},
	{"lone surrogate", `"\ud800"`, 0, 8, true, true, "\uFFFD", true},
	{"non-ASCII", `"résumé 日本"`, 0, len(`"résumé 日本"`), false, true, "résumé 日本", true},
	{"invalid UTF-8", "\"a\xffb\"", 0, 5, false, true, "a\uFFFDb", true},
	{"DEL is no control byte", "\"\x7f\"", 0, 3, false, true, "\x7f", true},
	{"bad escape", `"\x"`, 0, 4, true, true, "", false},
	{"short unicode escape", `"\u12"`, 0, 6, true, true, "", false},
	{"escaped control byte", "\"\\\x01\"", 0, 4, true, true, "", false},
	{"control byte", "\"a\tb\"", 0, 2, false, false, "", false},
	{"newline", "\"a\nb\"", 0, 2, false, false, "", false},
	{"unterminated", `"abc`, 0, 4, false, false, "", false},
	{"backslash at the end", `"abc\`, 0, 5, true, false, "", false},
	{"escaped closing quote", `"abc\"`, 0, 6, true, false, "", false},
	{"not a quote", `abc"`, 0, 0, false, false, "", false},
	{"past the end", `""`, 2, 2, false, false, "", false},
	{"negative", `""`, -1, -1, false, false, "", false},
	{"empty input", ``, 0, 0, false, false, "", false},
}

func TestEnd(t *testing.T) {
	for _, tt := range literals {
		t.Run(tt.name, func(t *testing.T) {
			end, esc, ok := jsonlit.End(tt.s, tt.i)
			assert.Equal(t, tt.ok, ok, "string")
			assert.Equal(t, tt.end, end, "string")
			assert.Equal(t, tt.esc, esc, "string")
			end, esc, ok = jsonlit.End([]byte(tt.s), tt.i)
			assert.Equal(t, tt.ok, ok, "[]byte")
			assert.Equal(t, tt.end, end, "[]byte")
			assert.Equal(t, tt.esc, esc, "[]byte")
		})
	}
}

func TestUnquote(t *testing.T) {
	for _, tt := range literals {
		if !tt.ok {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			lit := tt.s[tt.i:tt.end]
			v, ok := jsonlit.Unquote(lit)
			assert.Equal(t, tt.uok, ok, "string")
			assert.Equal(t, tt.val, v, "string")
			v, ok = jsonlit.Unquote([]byte(lit))
			assert.Equal(t, tt.uok, ok, "[]byte")
			assert.Equal(t, tt.val, v, "[]byte")
		})
	}
}

// TestUnquoteRefusesNonLiterals: Unquote refuses what has no quote at
// each end, and a bad escape, and never reads past its input.
func TestUnquoteRefusesNonLiterals(t *testing.T) {
	for _, lit := range []string{``, `"`, `abc`, `"a" `, ` "a"`, `"a"x`, `x"a"`, `null`, `"\"`, `"\u00"`} {
		t.Run(lit, func(t *testing.T) {
			v, ok := jsonlit.Unquote(lit)
			assert.False(t, ok)
			assert.Empty(t, v)
			v, ok = jsonlit.Unquote([]byte(lit))
			assert.False(t, ok)
			assert.Empty(t, v)
		})
	}
}

func TestSkipSpace(t *testing.T) {
	tests := []struct {
		name string
		s    string
		i    int
		want int
	}{
		{"none", `{}`, 0, 0},
		{"all four", " \t\r\n{", 0, 4},
		{"from i", `{ "a"`, 1, 2},
		{"to the end", `{  `, 1, 3},
		{"empty", ``, 0, 0},
		{"past the end", `{`, 3, 3},
		{"not JSON space", "\f\v\u00a0", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, jsonlit.SkipSpace(tt.s, tt.i), "string")
			assert.Equal(t, tt.want, jsonlit.SkipSpace([]byte(tt.s), tt.i), "[]byte")
		})
	}
}

// TestIsSpace: exactly the bytes that encoding/json lets follow a value,
// digits aside: RFC 8259's four white space bytes.
func TestIsSpace(t *testing.T) {
	for c := range 256 {
		want := (c < '0' || c > '9') && json.Valid([]byte{'1', byte(c)})
		assert.Equal(t, want, jsonlit.IsSpace(byte(c)), "byte %#x", c)
	}
}

// TestNoAllocs: finding an end and skipping space allocate nothing; a
// plain literal costs the string of its bytes, nothing when it is one.
func TestNoAllocs(t *testing.T) {
	s := `  "c1/orders:o1 résumé" `
	b := []byte(s)
	var sink string
	tests := []struct {
		name string
		f    func()
		want float64
	}{
		{"End string", func() { _, _, _ = jsonlit.End(s, 2) }, 0},
		{"End []byte", func() { _, _, _ = jsonlit.End(b, 2) }, 0},
		{"SkipSpace string", func() { _ = jsonlit.SkipSpace(s, 0) }, 0},
		{"SkipSpace []byte", func() { _ = jsonlit.SkipSpace(b, 0) }, 0},
		{"Unquote string", func() { sink, _ = jsonlit.Unquote(s[2 : len(s)-1]) }, 0},
		{"Unquote []byte", func() { sink, _ = jsonlit.Unquote(b[2 : len(b)-1]) }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, testing.AllocsPerRun(100, tt.f))
		})
	}
	_ = sink
}

// FuzzEnd checks End against encoding/json's own reading of the literal
// that starts an arbitrary input: where encoding/json reads a string
// literal, End ends exactly where it does and Unquote gives its value;
// where it reads none, End fails or ends a literal encoding/json refuses,
// as Unquote does. The end of a literal is the same found at any offset.
func FuzzEnd(f *testing.F) {
	for _, tt := range literals {
		f.Add(tt.s, "")
	}
	f.Add(`"a"`, `,"b"]`)
	f.Fuzz(func(t *testing.T, s, prefix string) {
		end, esc, ok := jsonlit.End(s, 0)
		dec := json.NewDecoder(strings.NewReader(s))
		tok, err := dec.Token()
		want, isString := tok.(string)
		switch {
		case len(s) > 0 && s[0] == '"' && err == nil && isString:
			require.True(t, ok, "End(%q) failed where encoding/json reads %q", s, want)
			require.Equal(t, int(dec.InputOffset()), end, "End(%q)", s)
			v, uok := jsonlit.Unquote(s[:end])
			require.True(t, uok, "Unquote(%q)", s[:end])
			require.Equal(t, want, v, "Unquote(%q)", s[:end])
		case ok:
			require.False(t, json.Valid([]byte(s[:end])), "End(%q) = %d, a literal encoding/json reads no string from", s, end)
			_, uok := jsonlit.Unquote(s[:end])
			require.False(t, uok, "Unquote(%q) took what encoding/json refuses", s[:end])
		}
		require.True(t, end >= 0 && end <= len(s), "End(%q) = %d, out of bounds", s, end)
		if ok {
			require.Equal(t, strings.Contains(s[:end], `\`), esc, "End(%q) escaped", s)
		}
		shifted, sesc, sok := jsonlit.End([]byte(prefix+s), len(prefix))
		require.Equal(t, ok, sok, "End(%q+%q, %d)", prefix, s, len(prefix))
		require.Equal(t, esc, sesc, "End(%q+%q, %d)", prefix, s, len(prefix))
		require.Equal(t, end+len(prefix), shifted, "End(%q+%q, %d)", prefix, s, len(prefix))
	})
}

// FuzzUnquote checks Unquote against json.Unmarshal over arbitrary
// inputs: of a literal End delimits whole, it gives what json.Unmarshal
// gives, or refuses what json.Unmarshal refuses; anything without a
// quote at each end it refuses. A string and a []byte read alike.
func FuzzUnquote(f *testing.F) {
	for _, tt := range literals {
		f.Add(tt.s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := jsonlit.Unquote(s)
		bv, bok := jsonlit.Unquote([]byte(s))
		require.Equal(t, ok, bok, "Unquote([]byte(%q))", s)
		require.Equal(t, v, bv, "Unquote([]byte(%q))", s)
		if end, _, whole := jsonlit.End(s, 0); whole && end == len(s) {
			var want string
			err := json.Unmarshal([]byte(s), &want)
			require.Equal(t, err == nil, ok, "Unquote(%q): json.Unmarshal says %v", s, err)
			require.Equal(t, want, v, "Unquote(%q)", s)
		}
		if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
			require.False(t, ok, "Unquote(%q)", s)
			require.Empty(t, v, "Unquote(%q)", s)
		}
	})
}

// FuzzSkipSpace checks SkipSpace against json.Valid: encoding/json lets
// the bytes it skips follow a value, and not the byte it stops at.
func FuzzSkipSpace(f *testing.F) {
	f.Add(" \t\r\n1", 0)
	f.Add("\f1", 0)
	f.Add("  ", 5)
	f.Fuzz(func(t *testing.T, s string, i int) {
		j := jsonlit.SkipSpace(s, i)
		if i < 0 || i >= len(s) {
			require.Equal(t, i, j, "SkipSpace(%q, %d)", s, i)
			return
		}
		require.True(t, j >= i && j <= len(s), "SkipSpace(%q, %d) = %d", s, i, j)
		require.True(t, json.Valid([]byte("1"+s[i:j])), "SkipSpace(%q, %d) skipped %q", s, i, s[i:j])
		if j < len(s) && (s[j] < '0' || s[j] > '9') {
			require.False(t, json.Valid([]byte("1"+s[j:j+1])), "SkipSpace(%q, %d) stopped at %q", s, i, s[j])
		}
	})
}
