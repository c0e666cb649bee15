package toolname

import (
	"crypto/sha256"
	"encoding/base32"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendFolded(t *testing.T) {
	tests := []struct {
		name    string
		profile Profile
		input   string
		want    string
	}{
		{"ASCII kept", OpenAI, "create_issue-2", "create_issue-2"},
		{"dot replaced", OpenAI, "a.b", "a_b"},
		{"dot kept", MCP, "a.b", "a.b"},
		{"colon replaced under Gemini", Gemini, "a:b", "a_b"},
		{"colon replaced", MCP, "a:b", "a_b"},
		{"acute accent", OpenAI, "café", "cafe"},
		{"decomposed accent", OpenAI, "cafe\u0301", "cafe"},
		{"several accents", OpenAI, "Ångström naïve", "Angstrom_naive"},
		{"fullwidth", OpenAI, "ｆｏｏ＿ＢＡＲ１", "foo_BAR1"},
		{"ligature", OpenAI, "ﬁle", "file"},
		{"superscript", OpenAI, "x²", "x2"},
		{"circled digit", OpenAI, "①", "1"},
		{"no decomposition", OpenAI, "Straße", "Stra_e"},
		{"one underscore per rune", OpenAI, "日本", "__"},
		{"mark alone", OpenAI, "\u0301", ""},
		{"controls and spaces", OpenAI, "a b\tc\x00", "a_b_c_"},
		{"slash and percent", OpenAI, "a/b%c", "a_b_c"},
		{"emoji", OpenAI, "go🚀", "go_"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := tt.profile.effective()
			assert.Equal(t, tt.want, string(r.appendFolded(nil, tt.input)))
		})
	}
}

// referenceHash computes the documented hash suffix with the standard
// library's base32, for names shorter than 128 bytes (one-byte uvarints).
func referenceHash(t *testing.T, k Key, salt byte) string {
	t.Helper()
	require.Less(t, len(k.Server), 128)
	require.Less(t, len(k.Tool), 128)
	in := []byte{byte(len(k.Server))}
	in = append(in, k.Server...)
	in = append(in, byte(len(k.Tool)))
	in = append(in, k.Tool...)
	if salt != 0 {
		in = append(in, salt)
	}
	sum := sha256.Sum256(in)
	return strings.ToLower(base32.StdEncoding.EncodeToString(sum[:]))[:hashLen]
}

func TestHashSuffix(t *testing.T) {
	tests := []struct {
		name string
		key  Key
		salt byte
	}{
		{"plain", Key{"x", "café"}, 0},
		{"salted", Key{"x", "café"}, 1},
		{"empty-looking", Key{"s", "日本"}, 0},
		{"length prefix separates", Key{"ab", "c"}, 0},
		{"length prefix separates too", Key{"a", "bc"}, 0},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(appendHash(nil, tt.key, uint64(tt.salt)))
			assert.Equal(t, referenceHash(t, tt.key, tt.salt), got)
			assert.Len(t, got, hashLen)
			if other, dup := seen[got]; dup {
				t.Errorf("%s and %s share the hash %q", other, tt.name, got)
			}
			seen[got] = tt.name
		})
	}
}

// TestGoldenHashes checks that the hash suffixes pinned in the golden
// tests are the documented hash of each raw key.
func TestGoldenHashes(t *testing.T) {
	tests := []struct {
		key  Key
		name string
	}{
		{Key{"x", "café"}, "cafe_euszb6ueho"},
		{Key{"a.b", "fetch"}, "a_b__fetch_icivfcoxz6"},
		{Key{"x", "日本"}, "_dfmsiyjaa6"},
		{Key{"s", "日本"}, "s__mbidziu7gq"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, referenceHash(t, tt.key, 0), tt.name[len(tt.name)-hashLen:])
		})
	}
}
