package searchfetch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFitJSONCountsAsEncodingJSON: fitJSON counts the bytes of a string in
// JSON exactly as encoding/json writes them, for every ASCII byte and for
// runes of every length, U+2028 and U+2029 included, so that a cut fits
// without the second encoding that shrink keeps as a safety net.
func TestFitJSONCountsAsEncodingJSON(t *testing.T) {
	var cases []string
	for c := range 0x80 {
		cases = append(cases, string(rune(c)), "ab"+string(rune(c))+"cd")
	}
	cases = append(cases, "é", "中", "🙂", "\u2028", "\u2029", "\u2027", "\u202a", "\ufeff", "\u007f",
		`a"b\c<d>e&f`+"\n\r\t\b\f\x00\x1f", "\xff", "a\xe4\xb8b", "\x80\x80", "中\xe4")
	for _, s := range cases {
		b, err := json.Marshal(s)
		require.NoError(t, err)
		n := len(b) - 2 // the quotes
		end, whole := fitJSON(s, n, n)
		assert.True(t, whole, "%q fits in %d", s, n)
		assert.Equal(t, len(s), end, "%q", s)
		_, whole = fitJSON(s, n-1, n-1)
		assert.False(t, whole, "%q does not fit in %d", s, n-1)
	}
}
