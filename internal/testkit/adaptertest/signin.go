package adaptertest

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/searchfetch"
)

// verifyNoUser is a Verify that accepts the bearer token "anonymous"
// with a Caller that has no UserID, a bug of the server's, and "good" as
// verifyTokens does.
func verifyNoUser(r *http.Request) (searchfetch.Caller, error) {
	if r.Header.Get("Authorization") == "Bearer anonymous" {
		return searchfetch.Caller{Scopes: []string{"read"}}, nil
	}
	return verifyTokens(r)
}

// noUserID: a Verify that accepts a request with a Caller without a
// UserID is answered 500, with no challenge, on every request, stateless
// too, and logged at Error each time; no session opens, so none is left
// that another caller without a UserID could use.
func noUserID(t *testing.T, h HTTPHarness) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			logs := CaptureLogs(t)
			url, sessions := h.serve(t, &Backend{}, nil, HTTPOptions{Verify: verifyNoUser, Stateless: stateless})
			anon := map[string]string{"Authorization": "Bearer anonymous"}
			for i := range 2 {
				resp, body := post(t, url, initialize, anon, false)
				assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, body)
				assert.Empty(t, resp.Header.Values("WWW-Authenticate"), "a 401 would send a client with a good token to sign in again")
				assert.Equal(t, i+1, logs.Count(slog.LevelError), "logged at Error on every request")
			}
			const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
			resp, body := post(t, url, list, anon, false)
			assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, body)
			assert.Zero(t, sessions())
			resp, body = post(t, url, initialize, map[string]string{"Authorization": "Bearer good"}, false)
			assert.Equal(t, http.StatusOK, resp.StatusCode, body)
			assert.Equal(t, 3, logs.Count(slog.LevelError), "a good caller logs nothing")
		})
	}
}

// discoverable: with ResourceMetadataURL and Scopes, every 401 names them
// in its Bearer challenge (RFC 9728, section 5.1; RFC 6750, section 3),
// with error="invalid_token" only for a request that carried a token;
// values are quoted-strings, whatever bytes the server configured.
func discoverable(t *testing.T, h HTTPHarness) {
	const meta = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
	tests := []struct {
		name   string
		url    string
		scopes []string
		auth   string
		want   string
	}{
		{"no token", meta, []string{"files:read", "mcp"}, "", `Bearer resource_metadata="` + meta + `", scope="files:read mcp"`},
		{"bad token", meta, []string{"files:read", "mcp"}, "Bearer wrong", `Bearer error="invalid_token", resource_metadata="` + meta + `", scope="files:read mcp"`},
		{"expired token", meta, nil, "Bearer expired", `Bearer error="invalid_token", resource_metadata="` + meta + `"`},
		{"scopes alone", "", []string{"mcp"}, "", `Bearer scope="mcp"`},
		{"neither", "", nil, "", `Bearer`},
		{"quoted", `https://x.example/a"b\c` + "\x01é", nil, "", `Bearer resource_metadata="https://x.example/a\"b\\c%01%C3%A9"`},
	}
	for _, tt := range tests {
		for _, stateless := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stateless=%v", tt.name, stateless), func(t *testing.T) {
				url, sessions := h.serve(t, &Backend{}, nil, HTTPOptions{
					Verify: verifyTokens, Stateless: stateless, ResourceMetadataURL: tt.url, Scopes: tt.scopes,
				})
				hdr := map[string]string{}
				if tt.auth != "" {
					hdr["Authorization"] = tt.auth
				}
				resp, body := post(t, url, initialize, hdr, false)
				require.Equal(t, http.StatusUnauthorized, resp.StatusCode, body)
				assert.Equal(t, []string{tt.want}, resp.Header.Values("WWW-Authenticate"))
				assert.Zero(t, sessions())
			})
		}
	}
}

// Logs counts the records logged through slog's default logger while a
// test runs.
type Logs struct {
	mu      sync.Mutex
	records []slog.Record
}

// CaptureLogs makes slog's default logger log into the Logs it returns
// until t ends. Tests that use it must not run in parallel.
func CaptureLogs(t testing.TB) *Logs {
	l := &Logs{}
	old := slog.Default()
	slog.SetDefault(slog.New(l))
	t.Cleanup(func() { slog.SetDefault(old) })
	return l
}

// Count returns how many records of level were logged.
func (l *Logs) Count(level slog.Level) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, r := range l.records {
		if r.Level == level {
			n++
		}
	}
	return n
}

// Text returns the records logged, one a line, each its message and its
// attributes as key=value.
func (l *Logs) Text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, r := range l.records {
		b.WriteString(r.Message)
		r.Attrs(func(a slog.Attr) bool {
			b.WriteString(" " + a.Key + "=" + a.Value.String())
			return true
		})
		b.WriteByte('\n')
	}
	return b.String()
}

// Enabled, Handle, WithAttrs and WithGroup make Logs a slog.Handler that
// keeps every record.
func (l *Logs) Enabled(context.Context, slog.Level) bool { return true }

func (l *Logs) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}

func (l *Logs) WithAttrs([]slog.Attr) slog.Handler { return l }

func (l *Logs) WithGroup(string) slog.Handler { return l }
