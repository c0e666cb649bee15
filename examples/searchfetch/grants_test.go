package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpid/mcpid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testGrants is the -grants file of the tests: ana may read the EU store,
// bob the US store and the support tickets.
const testGrants = `{"ana-token": ["cin_4f2a"], "bob-token": ["cin_9b7e", "cin_77c1"]}`

// writeFile writes data to a new file of the test and returns its path.
func writeFile(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "grants.json")
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	return path
}

// TestLoadGrants: a -grants file that is not a JSON object of tokens to
// lists of connections stops the command with an error that names it.
func TestLoadGrants(t *testing.T) {
	tests := []struct {
		name, data, wantErr string
	}{
		{"not JSON", `ana-token: cin_4f2a`, "want a JSON object"},
		{"a list", `["ana-token"]`, "want a JSON object"},
		{"connections not a list", `{"ana-token": "cin_4f2a"}`, "want a JSON object"},
		{"connection not a string", `{"ana-token": [7]}`, "want a JSON object"},
		{"no token", `{}`, "no token"},
		{"empty token", `{"": ["cin_4f2a"]}`, "empty or holds a space"},
		{"token with a space", `{"ana token": ["cin_4f2a"]}`, "empty or holds a space"},
		{"null connections", `{"ana-token": null}`, "no list of connections"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadGrants(writeFile(t, tt.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
	_, err := loadGrants(filepath.Join(t.TempDir(), "missing.json"))
	require.ErrorIs(t, err, os.ErrNotExist)

	g, err := loadGrants(writeFile(t, testGrants))
	require.NoError(t, err)
	ana, ok := g.caller("ana-token")
	require.True(t, ok)
	assert.Equal(t, []string{"cin_4f2a"}, ana.Scopes)
	assert.NotContains(t, ana.UserID, "ana-token", "no log shows the token")
	_, ok = g.caller("ana-token ")
	assert.False(t, ok)
}

// TestGrantsFlags: -grants and -stateless serve over HTTP only, and a bad
// -grants file stops the command before it serves.
func TestGrantsFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"grants without -http", []string{"-grants", "x.json"}, "usage"},
		{"stateless without -http", []string{"-stdio", "-stateless"}, "usage"},
		{"missing grants file", []string{"-http", "127.0.0.1:0", "-grants", filepath.Join(t.TempDir(), "none.json")}, "-grants"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tt.args, nil, nopCloser{&stdout}, &stderr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

// bearer sends a bearer token with every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestGrantsOverHTTP: with -grants, over HTTP, with each SDK, with
// sessions and without, a request without a token the file names is
// answered 401; each holder is shown only the hits of the connections its
// token grants, and fetches each; a fetch of any other connection, of a
// record that exists or not, or unscoped, is forbidden, with one answer,
// and the resource server is never asked.
func TestGrantsOverHTTP(t *testing.T) {
	g, err := loadGrants(writeFile(t, testGrants))
	require.NoError(t, err)
	for _, sdk := range sdks {
		for _, stateless := range []bool{false, true} {
			t.Run(sdk+"/stateless="+map[bool]string{false: "false", true: "true"}[stateless], func(t *testing.T) {
				fx, rc := newTestFixture(t)
				addr := serveLoopback(t, newMCPServer(sdk, rc, false, nil, nil, true), httpConfig{lim: longLimits, stateless: stateless, grants: g})
				for _, token := range []string{"", "eve-token"} {
					status, header, _ := initialize(t, addr, token)
					assert.Equal(t, http.StatusUnauthorized, status, "token %q", token)
					if sdk == "mcpgo" {
						// The go-sdk's middleware writes a challenge only
						// when it knows a resource metadata URL or scopes.
						assert.True(t, strings.HasPrefix(header.Get("WWW-Authenticate"), "Bearer"),
							"token %q: WWW-Authenticate %q", token, header.Get("WWW-Authenticate"))
					}
				}

				tests := []struct {
					token, conn string
					denied      []string
				}{
					{"ana-token", "cin_4f2a", []string{"cin_9b7e/orders:o1", "cin_9b7e/orders:nope", "orders:o1", "cin_77c1/tickets:urn:zd:4711"}},
					{"bob-token", "cin_9b7e", []string{"cin_4f2a/orders:o1", "cin_4f2a/orders:nope", "orders:o1"}},
				}
				for _, tt := range tests {
					cs, err := mcp.NewClient(&mcp.Implementation{Name: "grants-test", Version: "v0"}, nil).Connect(t.Context(),
						&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true,
							HTTPClient: &http.Client{Transport: bearer{tt.token}}}, nil)
					require.NoError(t, err)
					s := &session{cs: cs}
					text, _ := s.ok(t, "search", map[string]any{"query": "order o1"})
					ids := mcpid.ExtractIDs(text)
					require.NotEmpty(t, ids, text)
					for _, id := range ids {
						caller, _ := g.caller(tt.token)
						granted := slices.ContainsFunc(caller.Scopes, func(c string) bool { return strings.HasPrefix(id, c+"/") })
						assert.True(t, granted, "%s is shown %s", tt.token, id)
						s.ok(t, "fetch", map[string]any{"id": id})
					}
					asked := len(fx.requests())
					var answers []string
					for _, id := range tt.denied {
						e := s.toolError(t, "fetch", map[string]any{"id": id})
						require.ErrorIs(t, e, mcpid.ErrForbidden, "%s fetches %s", tt.token, id)
						answers = append(answers, e.Message()+"|"+e.Hint())
					}
					for _, a := range answers[1:] {
						assert.Equal(t, answers[0], a, "one answer whether or not the record exists")
					}
					assert.Len(t, fx.requests(), asked, "no denied fetch reaches the resource server")
					require.NoError(t, cs.Close())
				}
			})
		}
	}
}

// alternate is a RoundTripper that sends each request to the next of
// hosts in turn, as a load balancer without affinity may, and records
// where each went.
type alternate struct {
	hosts []string
	mu    sync.Mutex
	sent  []int
}

func (a *alternate) RoundTrip(r *http.Request) (*http.Response, error) {
	a.mu.Lock()
	i := len(a.sent) % len(a.hosts)
	a.sent = append(a.sent, i)
	a.mu.Unlock()
	r = r.Clone(r.Context())
	r.URL.Host, r.Host = a.hosts[i], a.hosts[i]
	return http.DefaultTransport.RoundTrip(r)
}

// last returns the replica of the latest request and how many were sent.
func (a *alternate) last() (replica, sent int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sent[len(a.sent)-1], len(a.sent)
}

// TestStatelessReplicas: two replicas of the command with -stateless,
// over one resource server, serve one conversation through a client whose
// requests alternate between them: every id a search on one replica
// shows is fetched on the other, sealed (the replicas share the
// -seal-key-file) or not.
func TestStatelessReplicas(t *testing.T) {
	key, err := mcpid.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	for _, sdk := range sdks {
		for _, sealer := range []*mcpid.Sealer{nil, key} {
			t.Run(sdk+"/sealed="+map[bool]string{false: "false", true: "true"}[sealer != nil], func(t *testing.T) {
				_, rc := newTestFixture(t)
				var hosts []string
				for range 2 {
					s := newMCPServer(sdk, rc, false, sealer, nil, false)
					hosts = append(hosts, serveLoopback(t, s, httpConfig{lim: longLimits, stateless: true}))
				}
				lb := &alternate{hosts: hosts}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "replica-test", Version: "v0"}, nil).Connect(t.Context(),
					&mcp.StreamableClientTransport{Endpoint: "http://" + hosts[0] + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true,
						HTTPClient: &http.Client{Transport: lb}}, nil)
				require.NoError(t, err)
				defer cs.Close()
				s := &session{cs: cs}
				text, _ := s.ok(t, "search", map[string]any{"query": "espresso"})
				n := len(mcpid.ExtractIDs(text))
				require.Positive(t, n)
				for i := range n {
					text, _ := s.ok(t, "search", map[string]any{"query": "espresso"})
					searched, before := lb.last()
					id := mcpid.ExtractIDs(text)[i]
					if sealer != nil {
						assert.Contains(t, id, "~", "sealed ids")
					}
					s.ok(t, "fetch", map[string]any{"id": id})
					fetched, after := lb.last()
					require.Equal(t, before+1, after, "one request per call")
					assert.NotEqual(t, searched, fetched, "the fetch of %s went to the replica that searched", id)
				}
			})
		}
	}
}
