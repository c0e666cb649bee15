package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stall answers nothing until the client gives up, or for ten times the
// test timeout at most.
func stall(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(10 * testTimeout):
	}
}

// status answers with a fixed status, content type and body.
func status(code int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

// TestResourceServerFaults: whatever the resource server does wrong, both
// tools answer with a tool error carrying a clear code, in bounded time.
func TestResourceServerFaults(t *testing.T) {
	tests := []struct {
		name          string
		handler       http.HandlerFunc
		wantCode      string
		wantStatus    int
		wantRetryable bool
	}{
		{"not JSON", status(200, "text/html", "<html>oops</html>"), codeInvalidResponse, 200, false},
		{"truncated JSON", status(200, "application/json", `{"hits":[{"id":`), codeInvalidResponse, 200, false},
		{"wrong JSON type", status(200, "application/json", `[1,2,3]`), codeInvalidResponse, 200, false},
		{"500", status(500, "text/plain", "internal error"), codeUnavailable, 500, true},
		{"503 with JSON", status(503, "application/json", `{"error":"maintenance"}`), codeUnavailable, 503, true},
		{"401", status(401, "application/json", `{}`), codeInvalidResponse, 401, false},
		{"too large", status(200, "application/json", `{"title":"`+strings.Repeat("x", maxBody)+`"}`), codeInvalidResponse, 200, false},
		{"stalls past the timeout", stall, codeUnavailable, 0, true},
		{"headers then stalls", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			_, _ = w.Write([]byte(`{"hits":[`))
			w.(http.Flusher).Flush()
			stall(w, r)
		}, codeUnavailable, 200, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			h := newHarnessFor(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				tt.handler(w, r)
			}))
			for _, call := range []struct {
				tool string
				args any
			}{
				{"search", searchInput{Query: "x"}},
				{"fetch", fetchInput{ID: "cin_4f2a/orders:o1"}},
			} {
				start := time.Now()
				env := toolErrorOf(t, h.call(t, call.tool, call.args))
				assert.Less(t, time.Since(start), 5*testTimeout, "%s: bounded by the client timeout", call.tool)
				assert.Equal(t, tt.wantCode, env.Code, call.tool)
				assert.Equal(t, tt.wantStatus, env.Status, call.tool)
				require.NotNil(t, env.Retryable)
				assert.Equal(t, tt.wantRetryable, *env.Retryable, call.tool)
				assert.True(t, strings.HasPrefix(env.Message, "searchfetch: "+tt.wantCode+": "), env.Message)
			}
			assert.EqualValues(t, 2, hits.Load(), "one request per call, no retries")
		})
	}
}

// TestResourceServerUnreachable: a resource server that is gone is
// resource_unavailable.
func TestResourceServerUnreachable(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL
	hs.Close()
	h := connectTo(t, url)
	env := h.fetchError(t, "cin_4f2a/orders:o1", "")
	assert.Equal(t, codeUnavailable, env.Code)
	assert.Zero(t, env.Status)
	require.NotNil(t, env.Retryable)
	assert.True(t, *env.Retryable)
}

// TestResourceServerBadConflicts: a 409 is relayed as ambiguous_connection
// only when it is one, with connections to choose from.
func TestResourceServerBadConflicts(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantCode string
		wantList []string
	}{
		{"ambiguous", `{"code":"ambiguous_connection","available_connections":["a","b","c"]}`, string(mcpid.CodeAmbiguousConnection), []string{"a", "b", "c"}},
		{"no connections", `{"code":"ambiguous_connection","available_connections":[]}`, codeInvalidResponse, nil},
		{"other code", `{"code":"version_conflict"}`, codeInvalidResponse, nil},
		{"not JSON", `conflict`, codeInvalidResponse, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarnessFor(t, status(409, "application/json", tt.body))
			env := h.fetchError(t, "orders:o1", "")
			assert.Equal(t, tt.wantCode, env.Code)
			assert.Equal(t, tt.wantList, env.Available)
		})
	}
}

// TestAmbiguousConnectionCapped: a long list of connections is capped in
// the envelope, with the rest counted.
func TestAmbiguousConnectionCapped(t *testing.T) {
	conns := make([]string, mcpid.MaxAvailableConnections+5)
	for i := range conns {
		conns[i] = "cin_" + string(rune('a'+i))
	}
	body := `{"code":"ambiguous_connection","available_connections":["` + strings.Join(conns, `","`) + `"]}`
	h := newHarnessFor(t, status(409, "application/json", body))
	env := h.fetchError(t, "orders:o1", "")
	assert.Equal(t, string(mcpid.CodeAmbiguousConnection), env.Code)
	assert.Equal(t, conns[:mcpid.MaxAvailableConnections], env.Available)
	assert.Equal(t, 5, env.Omitted)
}

// TestDocumentFromOtherConnection: a scoped read answered with another
// connection's document is refused rather than shown under the id.
func TestDocumentFromOtherConnection(t *testing.T) {
	h := newHarnessFor(t, status(200, "application/json",
		`{"connection_id":"cin_9b7e","stream":"orders","record_id":"o1","title":"t","text":"x","url":"u"}`))
	env := h.fetchError(t, "cin_4f2a/orders:o1", "")
	assert.Equal(t, codeInvalidResponse, env.Code)
	assert.Contains(t, env.Message, `"cin_9b7e"`)
}

// TestNewResourceClient: the URL and timeout checks.
func TestNewResourceClient(t *testing.T) {
	tests := []struct {
		url     string
		timeout time.Duration
		wantErr bool
		want    string
	}{
		{"http://127.0.0.1:9000", time.Second, false, "http://127.0.0.1:9000"},
		{"http://127.0.0.1:9000/api/", time.Second, false, "http://127.0.0.1:9000/api"},
		{"https://rs.example", time.Second, false, "https://rs.example"},
		{"ftp://rs.example", time.Second, true, ""},
		{"127.0.0.1:9000", time.Second, true, ""},
		{"http://rs.example/?x=1", time.Second, true, ""},
		{"http://127.0.0.1:9000", 0, true, ""},
		{"http://[::1", time.Second, true, ""},
	}
	for _, tt := range tests {
		rc, err := newResourceClient(tt.url, tt.timeout)
		if tt.wantErr {
			assert.Error(t, err, tt.url)
			continue
		}
		require.NoError(t, err, tt.url)
		assert.Equal(t, tt.want, rc.base)
		assert.Equal(t, tt.timeout, rc.http.Timeout)
	}
}
