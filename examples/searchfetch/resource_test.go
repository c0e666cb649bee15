package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stallCap is how long stall waits at most for the client to give up;
// by then the tool call has failed on its own deadline.
const stallCap = callTimeout

// stall answers nothing until the client gives up, or for stallCap at
// most.
func stall(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(stallCap):
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
// tools answer with a tool error carrying a clear code. A resource server
// that stalls is given up on after the client timeout.
//
// Only the stalling cases run with the short stallTimeout; every other
// case, the 1 MiB answer among them, runs with the long testTimeout, so
// that on a loaded machine it fails on its merits and never on the clock.
// Elapsed time is bounded loosely, for the stalling cases only.
func TestResourceServerFaults(t *testing.T) {
	tests := []struct {
		name          string
		handler       http.HandlerFunc
		stalls        bool // the client timeout, stallTimeout, must end the call
		wantCode      string
		wantStatus    int
		wantRetryable bool
		wantDetail    string // in the message, after the code
	}{
		{"not JSON", status(200, "text/html", "<html>oops</html>"), false, codeInvalidResponse, 200, false,
			"the answer is not the expected JSON: "},
		{"truncated JSON", status(200, "application/json", `{"hits":[{"id":`), false, codeInvalidResponse, 200, false,
			"the answer is not the expected JSON: "},
		{"wrong JSON type", status(200, "application/json", `[1,2,3]`), false, codeInvalidResponse, 200, false,
			"the answer is not the expected JSON: "},
		{"500", status(500, "text/plain", "internal error"), false, codeUnavailable, 500, true,
			"the resource server failed with 500; "},
		{"503 with JSON", status(503, "application/json", `{"error":"maintenance"}`), false, codeUnavailable, 503, true,
			`the resource server failed with 503: {"error":"maintenance"}; `},
		{"401", status(401, "application/json", `{}`), false, codeInvalidResponse, 401, false,
			"unexpected status 401: {}; "},
		{"too large", status(200, "application/json", `{"title":"`+strings.Repeat("x", maxBody)+`"}`), false, codeInvalidResponse, 200, false,
			"the answer is larger than 1048576 bytes; "},
		{"stalls past the timeout", stall, true, codeUnavailable, 0, true,
			"the resource server did not answer within " + stallTimeout.String() + "; "},
		{"headers then stalls", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			_, _ = w.Write([]byte(`{"hits":[`))
			w.(http.Flusher).Flush()
			stall(w, r)
		}, true, codeUnavailable, 200, true,
			"the resource server did not finish its answer within " + stallTimeout.String() + "; "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			rs := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				tt.handler(w, r)
			})
			var h *harness
			if tt.stalls {
				h = newStallHarness(t, rs)
			} else {
				h = newHarnessFor(t, rs)
			}
			for _, call := range []struct {
				tool string
				args any
			}{
				{"search", searchInput{Query: "x"}},
				{"fetch", fetchInput{ID: "cin_4f2a/orders:o1"}},
			} {
				start := time.Now()
				env := toolErrorOf(t, h.call(t, call.tool, call.args))
				elapsed := time.Since(start)
				assert.Equal(t, tt.wantCode, env.Code, call.tool)
				assert.Equal(t, tt.wantStatus, env.Status, call.tool)
				require.NotNil(t, env.Retryable)
				assert.Equal(t, tt.wantRetryable, *env.Retryable, call.tool)
				assert.True(t, strings.HasPrefix(env.Message, "searchfetch: "+tt.wantCode+": "+tt.wantDetail),
					"%s: message %q, want the detail %q", call.tool, env.Message, tt.wantDetail)
				if tt.stalls {
					// The client timeout ends the call: never before it, and
					// well before the stall would end by itself. The upper
					// bound is loose, for loaded machines.
					assert.GreaterOrEqual(t, elapsed, stallTimeout, call.tool)
					assert.Less(t, elapsed, stallTimeout+5*time.Second, "%s: bounded by the client timeout", call.tool)
				}
			}
			assert.EqualValues(t, 2, hits.Load(), "one request per call, no retries")
		})
	}
}

// TestResourceServerUnreachable: a resource server that refuses the
// connection is resource_unavailable, at once and without a status.
//
// The address is TCP port 0 on the loopback interface. Port 0 can never be
// listened on (binding it asks the kernel for some free port instead), so
// the connection is refused on every run; a port taken from a closed
// listener could meanwhile be bound by any other process.
func TestResourceServerUnreachable(t *testing.T) {
	h := connectTo(t, "http://127.0.0.1:0")
	env := h.fetchError(t, "cin_4f2a/orders:o1", "")
	assert.Equal(t, codeUnavailable, env.Code)
	assert.Equal(t, "searchfetch: resource_unavailable: the resource server could not be reached; "+
		"retry later; the id and connection_id were fine", env.Message)
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

// TestDocumentMismatch: a document whose connection, stream or record_id
// is not the one asked for is refused rather than shown under the id, for
// scoped and unscoped reads alike; the one asked for is accepted.
func TestDocumentMismatch(t *testing.T) {
	tests := []struct {
		name, id, connectionID     string // the fetch arguments
		docConn, docStream, docRec string // the document the resource server answers
		wantDetail                 string // "" when the document is accepted
	}{
		{"match", "cin_4f2a/orders:o1", "", "cin_4f2a", "orders", "o1", ""},
		{"other connection", "cin_4f2a/orders:o1", "", "cin_9b7e", "orders", "o1",
			`asked for connection "cin_4f2a", got a document from "cin_9b7e"`},
		{"other stream", "cin_4f2a/orders:o1", "", "cin_4f2a", "tickets", "o1",
			`asked for stream "orders", got a document from "tickets"`},
		{"other record", "cin_4f2a/orders:o1", "", "cin_4f2a", "orders", "o2",
			`asked for record "o1", got the document of "o2"`},
		{"record differs in case only", "cin_4f2a/orders:o1", "", "cin_4f2a", "orders", "O1",
			`asked for record "o1", got the document of "O1"`},
		{"no stream", "cin_4f2a/orders:o1", "", "cin_4f2a", "", "o1",
			`asked for stream "orders", got a document from ""`},
		{"unscoped match", "orders:o1", "", "cin_9b7e", "orders", "o1", ""},
		{"unscoped, other stream", "orders:o1", "", "cin_9b7e", "tickets", "o1",
			`asked for stream "orders", got a document from "tickets"`},
		{"unscoped, other record", "orders:o1", "", "cin_9b7e", "orders", "o2",
			`asked for record "o1", got the document of "o2"`},
		{"explicit connection, other record", "orders:o1", "cin_4f2a", "cin_4f2a", "orders", "o2",
			`asked for record "o1", got the document of "o2"`},
		{"explicit connection, other connection", "orders:o1", "cin_4f2a", "cin_9b7e", "orders", "o1",
			`asked for connection "cin_4f2a", got a document from "cin_9b7e"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := json.Marshal(rsDocument{
				ConnectionID: tt.docConn, Stream: tt.docStream, RecordID: tt.docRec,
				Title: "t", Text: "x", URL: "u",
			})
			require.NoError(t, err)
			var hits atomic.Int32
			h := newHarnessFor(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				status(200, "application/json", string(body))(w, r)
			}))
			if tt.wantDetail == "" {
				doc := h.fetch(t, tt.id, tt.connectionID)
				assert.Equal(t, tt.id, doc.ID)
				assert.Equal(t, "t", doc.Title)
				assert.Equal(t, tt.docConn, doc.Metadata["connection_id"])
				assert.Equal(t, tt.docStream, doc.Metadata["stream"])
				assert.Equal(t, tt.docRec, doc.Metadata["record_id"])
			} else {
				env := h.fetchError(t, tt.id, tt.connectionID)
				assert.Equal(t, codeInvalidResponse, env.Code)
				assert.Equal(t, 200, env.Status)
				require.NotNil(t, env.Retryable)
				assert.False(t, *env.Retryable)
				assert.Equal(t, "searchfetch: invalid_resource_response: "+tt.wantDetail+
					"; report this to the server operator; retrying is unlikely to help", env.Message)
			}
			assert.EqualValues(t, 1, hits.Load(), "one read")
		})
	}
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
