package bearer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tokens of the tests: long enough, in the bearer syntax.
const (
	aliceToken = "alice-0123456789abcdef"
	bobToken   = "bob-fedcba9876543210+/=="
)

// TestLookup: a token maps to its user only when it is the whole token,
// byte for byte; a prefix of it, a longer one, another one and the empty
// string map to no one.
func TestLookup(t *testing.T) {
	tab, err := Parse(strings.NewReader("alice " + aliceToken + "\nbob " + bobToken + "\nalice alice-second-token-0000\n"))
	require.NoError(t, err)
	assert.Equal(t, 3, tab.Len())
	assert.Equal(t, 2, tab.Users())
	tests := []struct {
		name, token, want string
	}{
		{"right", aliceToken, "alice"},
		{"another of the same user", "alice-second-token-0000", "alice"},
		{"another user's", bobToken, "bob"},
		{"wrong", "mallory-0123456789abcdef", ""},
		{"prefix", aliceToken[:len(aliceToken)-1], ""},
		{"longer", aliceToken + "0", ""},
		{"other case", strings.ToUpper(aliceToken), ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			user, ok := tab.Lookup(tt.token)
			assert.Equal(t, tt.want != "", ok)
			assert.Equal(t, tt.want, user)
		})
	}
	var zero *Table
	_, ok := zero.Lookup(aliceToken)
	assert.False(t, ok, "no table holds no token")
	_, ok = new(Table).Lookup("")
	assert.False(t, ok, "the zero table holds no token")
	assert.Zero(t, testing.AllocsPerRun(100, func() { tab.Lookup(aliceToken) }), "Lookup allocates")
}

// TestParse: the tokens file's format, a row for each rule. A refused
// file's error names the line and the code, and never holds the line's
// text.
func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		wantCode Code
		wantLine int
	}{
		{"comments, blank lines, tabs, CRLF", "# who may call\n\n  # indented comment\nalice\t" + aliceToken + "\r\n  bob   " + bobToken + "  \n", 0, 0},
		{"one field", "alice " + aliceToken + "\n" + aliceToken + "x\n", CodeSyntax, 2},
		{"three fields", "alice " + aliceToken + " # a comment\n", CodeSyntax, 1},
		{"short token", "alice 0123456789abcde\n", CodeShortToken, 1},
		{"token with a quote", "alice " + aliceToken + "\"\n", CodeTokenSyntax, 1},
		{"token with a comma", "alice 0123456789,abcdef\n", CodeTokenSyntax, 1},
		{"token with = inside", "alice 01234567=89abcdef\n", CodeTokenSyntax, 1},
		{"token all =", "alice ================\n", CodeTokenSyntax, 1},
		{"token not UTF-8", "alice 0123456789abcdef\xff\n", CodeTokenSyntax, 1},
		{"user not UTF-8", "al\xffice " + aliceToken + "\n", CodeUser, 1},
		{"user with a control character", "al\x01ice " + aliceToken + "\n", CodeUser, 1},
		{"duplicate token", "alice " + aliceToken + "\n#\nbob " + aliceToken + "\n", CodeDuplicate, 3},
		{"empty", "", CodeEmpty, 0},
		{"comments only", "# nobody yet\n\n", CodeEmpty, 0},
		{"line too long", "alice " + strings.Repeat("a", maxLine) + "\n", CodeSyntax, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := Parse(strings.NewReader(tt.file))
			if tt.wantCode == 0 {
				require.NoError(t, err)
				assert.Equal(t, 2, tab.Len())
				return
			}
			require.ErrorIs(t, err, tt.wantCode)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.wantLine, e.Line)
			for _, secret := range []string{"0123456789", "alice", "al\x01"} {
				assert.NotContains(t, err.Error(), secret, "the error holds the line's text")
			}
		})
	}
}

// TestLoad: a file others can read, or others than its owner can write,
// is refused; the error names the file; a missing file is unreadable.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens")
	require.NoError(t, os.WriteFile(path, []byte("alice "+aliceToken+"\n"), 0o600))
	for _, tt := range []struct {
		mode os.FileMode
		ok   bool
	}{
		{0o600, true}, {0o400, true}, {0o640, true}, {0o440, true},
		{0o644, false}, {0o604, false}, {0o660, false}, {0o602, false},
	} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			require.NoError(t, os.Chmod(path, tt.mode))
			tab, err := Load(path)
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, 1, tab.Len())
				return
			}
			require.ErrorIs(t, err, CodeOpenMode)
			assert.Contains(t, err.Error(), path)
		})
	}
	_, err := Load(filepath.Join(dir, "missing"))
	require.ErrorIs(t, err, CodeUnreadable)
	require.ErrorIs(t, err, os.ErrNotExist)
}
