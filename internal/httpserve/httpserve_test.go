package httpserve

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/searchfetch"
)

// TestResolve: a zero option is its default, a negative one no bound (0),
// and a positive one itself.
func TestResolve(t *testing.T) {
	tests := []struct {
		name         string
		sessions     int
		idle         time.Duration
		body         int64
		wantSessions int
		wantIdle     time.Duration
		wantBody     int64
	}{
		{"zero: defaults", 0, 0, 0, DefaultMaxSessions, DefaultSessionIdle, DefaultMaxBody},
		{"negative: no bound", -1, -time.Second, -1, 0, 0, 0},
		{"positive: as given", 7, time.Second, 512, 7, time.Second, 512},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resolve(&Options{MaxSessions: tt.sessions, SessionIdle: tt.idle, MaxBody: tt.body, Stateless: true})
			want := Config{MaxSessions: tt.wantSessions, SessionIdle: tt.wantIdle, MaxBody: tt.wantBody, Stateless: true}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Resolve (-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff(Config{MaxSessions: DefaultMaxSessions, SessionIdle: DefaultSessionIdle, MaxBody: DefaultMaxBody}, Resolve(nil)); diff != "" {
		t.Errorf("Resolve(nil) (-want +got):\n%s", diff)
	}
}

// TestAdmit: Admit refuses a caller Verify refuses, or whose credentials
// have expired, with 401 and a challenge; a body over the bound with 413;
// and passes on the rest with the caller in the context and the body
// whole.
func TestAdmit(t *testing.T) {
	ada := searchfetch.Caller{UserID: "ada"}
	verify := func(r *http.Request) (searchfetch.Caller, error) {
		switch r.Header.Get("Authorization") {
		case "Bearer ok":
			return ada, nil
		case "Bearer old":
			return searchfetch.Caller{UserID: "ada", Expiration: time.Now().Add(-time.Minute)}, nil
		case "Bearer panic":
			panic("bug")
		}
		return searchfetch.Caller{}, errors.New("no")
	}
	tests := []struct {
		name      string
		auth      string
		body      string
		want      int
		challenge string
	}{
		{"no credentials", "", "{}", http.StatusUnauthorized, "Bearer"},
		{"refused", "Bearer no", "{}", http.StatusUnauthorized, `Bearer error="invalid_token"`},
		{"expired", "Bearer old", "{}", http.StatusUnauthorized, `Bearer error="invalid_token"`},
		{"verifier panics", "Bearer panic", "{}", http.StatusUnauthorized, `Bearer error="invalid_token"`},
		{"body over the bound", "Bearer ok", strings.Repeat(" ", 17), http.StatusRequestEntityTooLarge, ""},
		{"admitted", "Bearer ok", strings.Repeat(" ", 16), http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Resolve(&Options{MaxBody: 16, Verify: verify})
			req := httptest.NewRequest(http.MethodPost, "/mcp", io.MultiReader(strings.NewReader(tt.body)))
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			w := httptest.NewRecorder()
			r, ok := c.Admit(w, req)
			if tt.want != http.StatusOK {
				require.False(t, ok)
				assert.Equal(t, tt.want, w.Code)
				assert.Equal(t, tt.challenge, w.Header().Get("WWW-Authenticate"))
				return
			}
			require.True(t, ok, w.Body.String())
			got, _ := searchfetch.CallerFrom(r.Context())
			assert.Equal(t, ada, got)
			body, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.body, string(body))
		})
	}
}

// TestSlots: Acquire takes at most max slots at once, and Release gives
// one back; with no bound it always takes one.
func TestSlots(t *testing.T) {
	s := NewSlots(2)
	assert.True(t, s.Acquire())
	assert.True(t, s.Acquire())
	assert.False(t, s.Acquire())
	s.Release()
	assert.True(t, s.Acquire())

	unbounded := NewSlots(0)
	for range 100 {
		require.True(t, unbounded.Acquire())
	}
}
