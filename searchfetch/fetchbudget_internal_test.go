package searchfetch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFitJSONCountsAsMarshal: fitJSON counts the bytes of a string in
// JSON exactly as marshal writes them, for every ASCII byte and for runes
// of every length, U+2028 and U+2029 included, so that a cut fits without
// the second encoding that shrink keeps as a safety net.
func TestFitJSONCountsAsMarshal(t *testing.T) {
	var cases []string
	for c := range 0x80 {
		cases = append(cases, string(rune(c)), "ab"+string(rune(c))+"cd")
	}
	cases = append(cases, "é", "中", "🙂", "\u2028", "\u2029", "\u2027", "\u202a", "\ufeff", "\u007f",
		`a"b\c<d>e&f`+"\n\r\t\b\f\x00\x1f", "\xff", "a\xe4\xb8b", "\x80\x80", "中\xe4")
	for _, s := range cases {
		b := marshal(s)
		n := len(b) - 2 // the quotes
		end, whole := fitJSON(s, n, n)
		assert.True(t, whole, "%q fits in %d", s, n)
		assert.Equal(t, len(s), end, "%q", s)
		_, whole = fitJSON(s, n-1, n-1)
		assert.False(t, whole, "%q does not fit in %d", s, n-1)
	}
}

// TestMarshalWritesNoNeedlessEscapes: marshal writes '<', '>', '&', U+2028
// and U+2029 as they are, keeps every escape JSON needs (an escaped
// backslash before "u2028" included), and its JSON decodes to the value
// it was given.
func TestMarshalWritesNoNeedlessEscapes(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"markup", "<a href=\"x\">&amp;</a>", `"<a href=\"x\">&amp;</a>"`},
		{"separators", "a\u2028b\u2029c", "\"a\u2028b\u2029c\""},
		{"escaped backslash before u2028", `\u2028`, `"\\u2028"`},
		{"backslash then separator", "\\\u2028", "\"\\\\\u2028\""},
		{"controls", "\n\t\x01", `"\n\t\u0001"`},
		{"invalid byte", "a\xffb", `"a\ufffdb"`},
		{"other escapes kept", "\u2027\u202a", "\"\u2027\u202a\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := marshal(tt.in)
			assert.Equal(t, tt.want, string(got))
			require.True(t, json.Valid(got))
			var back string
			require.NoError(t, json.Unmarshal(got, &back))
			want := tt.in
			if tt.name == "invalid byte" {
				want = "a\ufffdb"
			}
			assert.Equal(t, want, back)
		})
	}
	doc := Document{ID: "c/s:<r>", Title: "a & b", Text: "<p>\u2028</p>", URL: "https://x.example/?a=1&b=2", Metadata: map[string]string{"<k>": "\u2029"}}
	got := marshal(doc)
	assert.Equal(t, `{"id":"c/s:<r>","title":"a & b","text":"<p>`+"\u2028"+`</p>","url":"https://x.example/?a=1&b=2","metadata":{"<k>":"`+"\u2029"+`"}}`, string(got))
	var back Document
	require.NoError(t, json.Unmarshal(got, &back))
	assert.Equal(t, doc, back)
}

// FuzzMarshal checks marshal against encoding/json on any string: its
// JSON is valid, decodes to what encoding/json's decodes to, writes no
// needless escape, and fitJSON counts its bytes exactly.
func FuzzMarshal(f *testing.F) {
	for _, s := range []string{"", "<a>&b", "\u2028\u2029", `\u2028`, "\\\u2028", "a\xffb\xe2\x80", "\x00\n\"\\", "中🙂"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := marshal(s)
		require.True(t, json.Valid(got), "%q", got)
		want, err := json.Marshal(s)
		require.NoError(t, err)
		var a, b string
		require.NoError(t, json.Unmarshal(got, &a))
		require.NoError(t, json.Unmarshal(want, &b))
		require.Equal(t, b, a, "decodes as encoding/json's JSON does")
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`} {
			require.NotContains(t, strings.ReplaceAll(string(got), `\\`, ""), esc)
		}
		n := len(got) - 2
		end, whole := fitJSON(s, n, n)
		require.True(t, whole && end == len(s), "%q fits in %d", s, n)
		if n > 0 {
			_, whole = fitJSON(s, n-1, n-1)
			require.False(t, whole, "%q does not fit in %d", s, n-1)
		}
	})
}
