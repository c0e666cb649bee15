package downstream

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitWords(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" \t\n ", nil},
		{"cmd", []string{"cmd"}},
		{"  cmd   a\tb\nc ", []string{"cmd", "a", "b", "c"}},
		{`a 'b c' "d e"`, []string{"a", "b c", "d e"}},
		{`'' ""`, []string{"", ""}},
		{`x'y'"z"w`, []string{"xyzw"}},
		{`'a"b' "c'd"`, []string{`a"b`, "c'd"}},
		{`'a\b'`, []string{`a\b`}},
		{`"a\"b\\c\$d\x"`, []string{`a"b\c$d\x`}},
		{`a\ b \'c`, []string{"a b", "'c"}},
		{"a\\\nb", []string{"ab"}},
		{"a\\\\ b", []string{`a\`, "b"}},
		{"\"a\\\nb\"", []string{"ab"}},
		{"cmd \\\n arg", []string{"cmd", "arg"}},
		{"\\\n", nil},
		{"$HOME ~ *.go `x`", []string{"$HOME", "~", "*.go", "`x`"}},
	} {
		got, err := SplitWords(tt.in)
		require.NoError(t, err, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
	for _, in := range []string{`'open`, `"open`, `a "b\"`, `trailing\`} {
		_, err := SplitWords(in)
		assert.Error(t, err, "%q", in)
	}
}
