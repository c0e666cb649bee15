package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpid/mcpid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stallTimeout is the resource client's timeout in the cases where the
// resource server stalls: short, so those cases are fast. Every other case
// uses callTimeout, so that it fails on its merits and never on the clock.
const stallTimeout = 300 * time.Millisecond

// stall answers nothing until the client gives up, or for callTimeout at
// most.
func stall(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(callTimeout):
	}
}

// answer answers with a fixed status, content type and body.
func answer(code int, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}
}

// newClientFor serves rs on loopback and returns a resource client for it
// whose requests give up after timeout, and a count of the requests rs
// received.
func newClientFor(t *testing.T, rs http.Handler, timeout time.Duration) (*resourceClient, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		rs.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	rc, err := newResourceClient(hs.URL, timeout)
	require.NoError(t, err)
	return rc, &hits
}

// mustResolve resolves fetch arguments that the test knows are valid.
func mustResolve(t *testing.T, id, connectionID string) mcpid.FetchRequest {
	t.Helper()
	req, err := mcpid.ResolveFetch(id, connectionID)
	require.NoError(t, err)
	return req
}

// TestResourceServerFaults: whatever the resource server does wrong, a
// search and a fetch fail with the resource-server code for it, after one
// request each, and the error says nothing of this server's internals.
func TestResourceServerFaults(t *testing.T) {
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		stalls   bool // the client timeout, stallTimeout, must end the call
		wantCode error
	}{
		{"not JSON", answer(200, "text/html", "<html>oops</html>"), false, mcpid.ErrInvalidResourceResponse},
		{"truncated JSON", answer(200, "application/json", `{"hits":[{"id":`), false, mcpid.ErrInvalidResourceResponse},
		{"wrong JSON type", answer(200, "application/json", `[1,2,3]`), false, mcpid.ErrInvalidResourceResponse},
		{"500", answer(500, "text/plain", "internal error at db.go:12"), false, mcpid.ErrResourceUnavailable},
		{"503", answer(503, "application/json", `{"error":"maintenance"}`), false, mcpid.ErrResourceUnavailable},
		{"401", answer(401, "application/json", `{}`), false, mcpid.ErrInvalidResourceResponse},
		{"too large", answer(200, "application/json", `{"title":"`+strings.Repeat("x", maxBody)+`"}`), false, mcpid.ErrInvalidResourceResponse},
		{"stalls", stall, true, mcpid.ErrResourceUnavailable},
		{"headers, then stalls", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			_, _ = w.Write([]byte(`{"hits":[`))
			w.(http.Flusher).Flush()
			stall(w, r)
		}, true, mcpid.ErrResourceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			timeout := callTimeout
			if tt.stalls {
				timeout = stallTimeout
			}
			rc, hits := newClientFor(t, tt.handler, timeout)
			_, searchErr := rc.search(t.Context(), "x")
			_, fetchErr := rc.record(t.Context(), mustResolve(t, "cin_4f2a/orders:o1", ""))
			for _, err := range []error{searchErr, fetchErr} {
				require.ErrorIs(t, err, tt.wantCode)
				assert.NotContains(t, err.Error(), "db.go", "no internal detail of the resource server")
				assert.NotContains(t, err.Error(), "json:", "no internal detail of this server")
			}
			assert.EqualValues(t, 2, hits.Load(), "one request per call, no retries")
		})
	}
}

// TestResourceServerUnreachable: a resource server that refuses the
// connection is resource_unavailable.
//
// The address is TCP port 0 on the loopback interface. Port 0 can never be
// listened on (binding it asks the kernel for some free port instead), so
// the connection is refused on every run.
func TestResourceServerUnreachable(t *testing.T) {
	rc, err := newResourceClient("http://127.0.0.1:0", callTimeout)
	require.NoError(t, err)
	_, err = rc.record(t.Context(), mustResolve(t, "cin_4f2a/orders:o1", ""))
	require.ErrorIs(t, err, mcpid.ErrResourceUnavailable)
}

// TestResourceServerConflicts: a 409 is relayed as ambiguous_connection,
// with the connections it lists, only when it is one.
func TestResourceServerConflicts(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		wantCode  error
		wantConns []string
	}{
		{"ambiguous", `{"code":"ambiguous_connection","available_connections":["a","b","c"]}`, mcpid.ErrAmbiguousConnection, []string{"a", "b", "c"}},
		{"no connections", `{"code":"ambiguous_connection","available_connections":[]}`, mcpid.ErrInvalidResourceResponse, nil},
		{"other code", `{"code":"version_conflict"}`, mcpid.ErrInvalidResourceResponse, nil},
		{"not JSON", `conflict`, mcpid.ErrInvalidResourceResponse, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, _ := newClientFor(t, answer(409, "application/json", tt.body), callTimeout)
			_, err := rc.record(t.Context(), mustResolve(t, "orders:o1", ""))
			require.ErrorIs(t, err, tt.wantCode)
			var e *mcpid.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.wantConns, e.Available)
		})
	}
}

// TestDocumentMismatch: a document from another connection, or with
// another id, than the one asked for is refused rather than shown under
// the id the model passed; the one asked for is accepted. Ids are compared
// byte for byte.
func TestDocumentMismatch(t *testing.T) {
	tests := []struct {
		name, id, connectionID string // the fetch arguments
		docConn, docID         string // the document the resource server answers
		ok                     bool
	}{
		{"match", "cin_4f2a/orders:o1", "", "cin_4f2a", "orders:o1", true},
		{"other connection", "cin_4f2a/orders:o1", "", "cin_9b7e", "orders:o1", false},
		{"other record", "cin_4f2a/orders:o1", "", "cin_4f2a", "orders:o2", false},
		{"other stream", "cin_4f2a/orders:o1", "", "cin_4f2a", "tickets:o1", false},
		{"differs in case only", "cin_4f2a/orders:o1", "", "cin_4f2a", "orders:O1", false},
		{"with its connection", "cin_4f2a/orders:o1", "", "cin_4f2a", "cin_4f2a/orders:o1", false},
		{"unscoped, any connection", "orders:o1", "", "cin_9b7e", "orders:o1", true},
		{"unscoped, other record", "orders:o1", "", "cin_9b7e", "orders:o2", false},
		{"explicit, other connection", "orders:o1", "cin_4f2a", "cin_9b7e", "orders:o1", false},
		{"opaque match", opaqueFileID, "", "cin_d21e", "files:reports/q3.pdf", true},
		{"opaque, other id", opaqueFileID, "", "cin_d21e", "files:reports/q4.pdf", false},
		{"opaque, other connection", opaqueFileID, "", "cin_9b1c", "files:reports/q3.pdf", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := json.Marshal(rsDocument{ConnectionID: tt.docConn, ID: tt.docID, Title: "t", Text: "x"})
			require.NoError(t, err)
			rc, hits := newClientFor(t, answer(200, "application/json", string(body)), callTimeout)
			doc, err := rc.record(t.Context(), mustResolve(t, tt.id, tt.connectionID))
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, "t", doc.Title)
			} else {
				require.ErrorIs(t, err, mcpid.ErrInvalidResourceResponse)
				assert.Zero(t, doc)
			}
			assert.EqualValues(t, 1, hits.Load(), "one read")
		})
	}
}

// TestFixtureRecordReads: the fixture reads a plain handle at its record
// path and looks an opaque base id up within its connection, as a query
// value and never as a path; what it cannot find, or cannot tell apart,
// it says so.
func TestFixtureRecordReads(t *testing.T) {
	tests := []struct {
		name, id, connectionID string
		wantURI                string
		wantTitle              string
		wantErr                error
	}{
		{"plain", "cin_4f2a/orders:o1", "", "/v1/streams/orders/records/o1?connection_id=cin_4f2a",
			"Order o1: 3 kg espresso beans", nil},
		{"plain, escaped", "cin_4f2a/orders:o#1042?gift=yes", "", "/v1/streams/orders/records/o%231042%3Fgift=yes?connection_id=cin_4f2a",
			"Order o#1042: espresso cups, gift wrapped", nil},
		{"legacy, explicit", "orders:o1", "cin_9b7e", "/v1/streams/orders/records/o1?connection_id=cin_9b7e",
			"Order o1: espresso grinder", nil},
		{"legacy, ambiguous", "orders:o1", "", "/v1/streams/orders/records/o1", "", mcpid.ErrAmbiguousConnection},
		{"URL id", opaqueWikiID, "", "/v1/records?connection_id=cin_9b1c&id=https%3A%2F%2Fwiki.example.com%2Fp%2F7",
			"Runbook: descaling the shop's machines", nil},
		{"key with '/'", opaqueFileID, "", "/v1/records?connection_id=cin_d21e&id=files%3Areports%2Fq3.pdf",
			"Q3 report: descaling kits sold", nil},
		{"opaque id in another connection", "cin_9b1c/:files:reports/q3.pdf", "", "/v1/records?connection_id=cin_9b1c&id=files%3Areports%2Fq3.pdf",
			"", mcpid.ErrNotFound},
		{"opaque id that climbs", "cin_d21e/:files:reports/../q3.pdf", "", "/v1/records?connection_id=cin_d21e&id=files%3Areports%2F..%2Fq3.pdf",
			"", mcpid.ErrNotFound},
		{"no such record", "cin_4f2a/orders:o9", "", "/v1/streams/orders/records/o9?connection_id=cin_4f2a", "", mcpid.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx, rc := newTestFixture(t)
			doc, err := rc.record(t.Context(), mustResolve(t, tt.id, tt.connectionID))
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.wantTitle, doc.Title)
			}
			assert.Equal(t, []string{tt.wantURI}, fx.requests())
		})
	}
}

// countingListener counts the connections it accepts.
type countingListener struct {
	net.Listener
	accepted atomic.Int32
}

// Accept counts each connection it returns.
func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted.Add(1)
	}
	return c, err
}

// TestResourceConnectionsReused: a burst of concurrent fetches reuses the
// resource client's connections instead of dialling anew once a few are
// idle. A fetch that finds no idle connection dials one and takes
// whichever is ready first, so a pool that keeps every connection accepts
// between one and two per fetch in flight (16 to 22 here), never more;
// net/http's default pool of 2 idle connections accepts 50 to 90.
func TestResourceConnectionsReused(t *testing.T) {
	const (
		inFlight = 16
		each     = 50
	)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	counted := &countingListener{Listener: ln}
	_, base, stop := startFixture(counted)
	t.Cleanup(stop)
	rc, err := newResourceClient(base, time.Minute)
	require.NoError(t, err)
	req, err := mcpid.ResolveFetch("cin_4f2a/orders:o1", "")
	require.NoError(t, err)

	var wg sync.WaitGroup
	errs := make(chan error, inFlight*each)
	for range inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, err := rc.record(t.Context(), req); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, int(counted.accepted.Load()), 2*inFlight, "%d fetches", inFlight*each)
}

// TestNewResourceClient: the URL and timeout checks, and a transport that
// keeps enough idle connections to the resource server.
func TestNewResourceClient(t *testing.T) {
	tests := []struct {
		url     string
		timeout time.Duration
		want    string // the base URL, or "" for an error
	}{
		{"http://127.0.0.1:9000", time.Second, "http://127.0.0.1:9000"},
		{"http://127.0.0.1:9000/api/", time.Second, "http://127.0.0.1:9000/api"},
		{"https://rs.example", time.Second, "https://rs.example"},
		{"ftp://rs.example", time.Second, ""},
		{"127.0.0.1:9000", time.Second, ""},
		{"http://rs.example/?x=1", time.Second, ""},
		{"http://127.0.0.1:9000", 0, ""},
		{"http://[::1", time.Second, ""},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			rc, err := newResourceClient(tt.url, tt.timeout)
			if tt.want == "" {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, rc.base)
			assert.Equal(t, tt.timeout, rc.http.Timeout)
			assert.Equal(t, maxIdlePerHost, rc.http.Transport.(*http.Transport).MaxIdleConnsPerHost)
		})
	}
}
