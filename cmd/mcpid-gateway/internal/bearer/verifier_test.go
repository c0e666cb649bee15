package bearer

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeTokens writes a tokens file readable by its owner alone.
func writeTokens(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path+".new", []byte(text), 0o600))
	require.NoError(t, os.Rename(path+".new", path))
}

// openTest opens a Verifier on a file of alice's and bob's tokens,
// logging into the returned buffer.
func openTest(t *testing.T) (*Verifier, string, *bytes.Buffer) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tokens")
	writeTokens(t, path, "alice "+aliceToken+"\nbob "+bobToken+"\n")
	logs := new(bytes.Buffer) // the tests log from their own goroutine only
	v, err := Open(path, slog.New(slog.NewTextHandler(logs, nil)))
	require.NoError(t, err)
	return v, path, logs
}

// whoAmI answers the user id of the auth.TokenInfo the SDK's middleware
// put in the request's context.
var whoAmI = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	ti := auth.TokenInfoFromContext(r.Context())
	if ti == nil {
		http.Error(w, "no TokenInfo", http.StatusInternalServerError)
		return
	}
	_, _ = io.WriteString(w, ti.UserID)
})

// send sends a GET with the Authorization header auth ("" for none) to
// h, and returns the recorded answer.
func send(h http.Handler, authorization string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/mcp", nil)
	if authorization != "" {
		r.Header.Set("Authorization", authorization)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// TestRequire: a known token reaches the handler as its user, in the
// go-sdk's TokenInfo; a missing, malformed or unknown one is answered 401
// with WWW-Authenticate: Bearer and the same JSON body, and logged at Warn
// without the header.
func TestRequire(t *testing.T) {
	v, _, logs := openTest(t)
	h := v.Require(whoAmI)
	for _, tt := range []struct{ authorization, user string }{
		{"Bearer " + aliceToken, "alice"},
		{"bearer " + bobToken, "bob"},
		{"BEARER  " + aliceToken + " ", "alice"},
	} {
		w := send(h, tt.authorization)
		assert.Equal(t, http.StatusOK, w.Code, tt.authorization)
		assert.Equal(t, tt.user, w.Body.String())
	}
	for _, tt := range []struct{ name, authorization, reason string }{
		{"missing", "", "missing"},
		{"basic", "Basic " + aliceToken, "malformed"},
		{"no scheme", aliceToken, "malformed"},
		{"three fields", "Bearer " + aliceToken + " x", "malformed"},
		{"unknown", "Bearer mallory-0123456789abcdef", "unknown"},
		{"prefix", "Bearer " + aliceToken[:20], "unknown"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			logs.Reset()
			w := send(h, tt.authorization)
			assert.Equal(t, http.StatusUnauthorized, w.Code)
			assert.Equal(t, "Bearer", w.Header().Get("WWW-Authenticate"))
			assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
			assert.JSONEq(t, `{"error":"unauthorized","message":"this endpoint needs a known bearer token: Authorization: Bearer TOKEN"}`, w.Body.String())
			line := logs.String()
			assert.Contains(t, line, "level=WARN")
			assert.Contains(t, line, "reason="+tt.reason)
			assert.NotContains(t, line, "0123456789")
		})
	}
}

// TestReload: a good file replaces the tokens at once (the old token is
// refused, the new one accepted); a bad one keeps them, logged at Error
// with its line, never a token.
func TestReload(t *testing.T) {
	v, path, logs := openTest(t)
	h := v.Require(whoAmI)
	const carolToken = "carol-0123456789abcdef"
	writeTokens(t, path, "alice alice-rotated-00000000\ncarol "+carolToken+"\n")
	require.NoError(t, v.Reload())
	assert.Equal(t, http.StatusUnauthorized, send(h, "Bearer "+aliceToken).Code, "the old token")
	assert.Equal(t, http.StatusUnauthorized, send(h, "Bearer "+bobToken).Code, "a removed user")
	w := send(h, "Bearer "+carolToken)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "carol", w.Body.String())
	assert.Contains(t, logs.String(), "tokens=2 users=2")

	for _, bad := range []struct {
		text string
		mode os.FileMode
		code Code
		want string
	}{
		{"alice alice-rotated-00000000\ndave tiny-tok\n", 0o600, CodeShortToken, "line 2"},
		{"dave dave-0123456789abcdef\n", 0o644, CodeOpenMode, "-rw-r--r--"},
		{"", 0o600, CodeEmpty, "no token"},
	} {
		logs.Reset()
		writeTokens(t, path, bad.text)
		require.NoError(t, os.Chmod(path, bad.mode))
		require.ErrorIs(t, v.Reload(), bad.code)
		assert.Equal(t, http.StatusOK, send(h, "Bearer "+carolToken).Code, "the tokens held before a bad file")
		assert.Equal(t, http.StatusUnauthorized, send(h, "Bearer dave-0123456789abcdef").Code)
		line := logs.String()
		assert.Contains(t, line, "level=ERROR")
		assert.Contains(t, line, bad.want)
		assert.NotContains(t, line, "tiny-tok")
		assert.NotContains(t, line, "0123456789")
	}
	require.NoError(t, os.Remove(path))
	require.ErrorIs(t, v.Reload(), os.ErrNotExist)
	assert.Equal(t, http.StatusOK, send(h, "Bearer "+carolToken).Code, "the tokens held before the file went")
}
