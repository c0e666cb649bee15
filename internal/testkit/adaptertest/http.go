package adaptertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/httpserve"
	"github.com/mcpid/mcpid/searchfetch"
)

// HTTPOptions are the options of an SDK's NewHTTPHandler, which both
// adapters spell the same way: an SDK's harness converts them to its own
// HTTPOptions.
type HTTPOptions = httpserve.Options

// HTTPHarness is what an SDK's tests give the shared HTTP tests.
type HTTPHarness struct {
	// Serve returns the NewHTTPHandler, with opts, of a new server of the
	// SDK with the tools over b registered with tools, and a function that
	// counts the sessions that server holds now.
	Serve func(t testing.TB, b searchfetch.Backend, tools *searchfetch.Options, opts HTTPOptions) (h http.Handler, sessions func() int)
	// Connect connects the SDK's own client to the endpoint at url, over
	// hc, and returns it.
	Connect func(t testing.TB, url string, hc *http.Client) Client
}

// waitFor bounds how long a test waits for a limit to act: limits of a
// second act long before, however loaded the machine.
const waitFor = 20 * time.Second

// initialize is an initialize request of protocol version 2025-06-18,
// which both SDKs answer by opening a session.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends body to url as a client of the streamable HTTP transport
// does, with the extra headers hdr, and returns the answer, read whole.
func post(t testing.TB, url, body string, hdr map[string]string, chunked bool) (*http.Response, string) {
	t.Helper()
	var r io.Reader = strings.NewReader(body)
	if chunked {
		r = io.MultiReader(r) // a length net/http cannot see: sent chunked
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, r)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(got)
}

// serve serves the handler of h.Serve on a loopback port for the test and
// returns its URL and session count.
func (h HTTPHarness) serve(t testing.TB, b searchfetch.Backend, tools *searchfetch.Options, opts HTTPOptions) (string, func() int) {
	t.Helper()
	handler, sessions := h.Serve(t, b, tools, opts)
	hs := httptest.NewServer(handler)
	t.Cleanup(hs.Close)
	return hs.URL, sessions
}

// RunHTTP runs the HTTP tests that every SDK's NewHTTPHandler must pass.
func RunHTTP(t *testing.T, h HTTPHarness) {
	t.Run("session cap under a burst", func(t *testing.T) { sessionCapBurst(t, h) })
	t.Run("a flood closes the sessions idle longest", func(t *testing.T) { floodClosesIdlest(t, h) })
	t.Run("a user's flood closes that user's sessions", func(t *testing.T) { floodClosesOwn(t, h) })
	t.Run("a request in flight protects its session", func(t *testing.T) { inFlightProtects(t, h) })
	t.Run("an event stream does not protect its session", func(t *testing.T) { streamDoesNotProtect(t, h) })
	t.Run("idle sessions expire", func(t *testing.T) { idleExpiry(t, h) })
	t.Run("body cap", func(t *testing.T) { bodyCap(t, h) })
	t.Run("verify", func(t *testing.T) { verifyCaller(t, h) })
	t.Run("a caller without a UserID is a server bug", func(t *testing.T) { noUserID(t, h) })
	t.Run("every 401 names the resource metadata", func(t *testing.T) { discoverable(t, h) })
	t.Run("caller reaches the tools", func(t *testing.T) { callerReachesTools(t, h) })
	t.Run("a session serves its caller", func(t *testing.T) { sessionOwner(t, h) })
	t.Run("stateless replicas", func(t *testing.T) { statelessReplicas(t, h) })
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("authorization by bearer token/stateless=%v", stateless), func(t *testing.T) {
			RunAuthorization(t, h.connectAs(stateless))
		})
	}
}

// connectAs returns a ConnectAs over HTTP: the server's NewHTTPHandler
// verifies a bearer token per user ("token-" and the user's id), and the
// SDK's client sends the caller's, so that the caller that reaches
// Options.Authorize is the one a real token names.
func (h HTTPHarness) connectAs(stateless bool) ConnectAs {
	return func(t testing.TB, b searchfetch.Backend, opts *searchfetch.Options, caller searchfetch.Caller) Client {
		t.Helper()
		verify := func(r *http.Request) (searchfetch.Caller, error) {
			user, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer token-")
			if !ok || Grants[user] == nil {
				return searchfetch.Caller{}, errBadToken
			}
			return searchfetch.Caller{UserID: user}, nil
		}
		url, _ := h.serve(t, b, opts, HTTPOptions{Stateless: stateless, Verify: verify})
		return h.Connect(t, url, &http.Client{Transport: bearer{"token-" + caller.UserID}})
	}
}

// sessionCapBurst: a burst of concurrent initializes, a third without a
// session header, a third with a made-up one in no particular form and a
// third with a made-up one in the form an SDK generates, opens at least
// MaxSessions sessions, closing idle ones to make room; every other
// request is refused (503, while every session is still being opened)
// or, where the SDK does not know the session it names, 404; the server
// never holds more sessions than the bound, sampled throughout the burst,
// and a real client gets in after it.
func sessionCapBurst(t *testing.T, h HTTPHarness) {
	const limit, burst = 3, 90
	url, sessions := h.serve(t, &Backend{}, nil, HTTPOptions{MaxSessions: limit, SessionIdle: time.Hour})
	headers := []map[string]string{
		nil,
		{"Mcp-Session-Id": "made-up"},
		{"Mcp-Session-Id": "mcp-session-0b7f9c1e-6f2a-4c11-9d3e-5a8b7c6d5e4f"},
	}
	var most atomic.Int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if n := int64(sessions()); n > most.Load() {
				most.Store(n)
			}
			select {
			case <-stop:
				return
			default:
				time.Sleep(time.Millisecond)
			}
		}
	}()
	var wg sync.WaitGroup
	var mu sync.Mutex
	status := map[int]int{}
	opened := 0
	start := make(chan struct{})
	for i := range burst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, body := post(t, url, initialize, headers[i%len(headers)], false)
			mu.Lock()
			defer mu.Unlock()
			status[resp.StatusCode]++
			if resp.StatusCode == http.StatusOK && resp.Header.Get("Mcp-Session-Id") != "" {
				opened++
			}
			if resp.StatusCode == http.StatusServiceUnavailable {
				assert.Equal(t, "10", resp.Header.Get("Retry-After"))
				assert.Contains(t, body, `"error":{"code":-32000`)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(stop)
	<-sampled
	assert.GreaterOrEqual(t, opened, limit, "initializes answered with a session (statuses %v)", status)
	assert.Equal(t, opened, status[http.StatusOK], "statuses %v", status)
	assert.LessOrEqual(t, sessions(), limit, "sessions open after the burst")
	assert.LessOrEqual(t, most.Load(), int64(limit), "sessions open at once during the burst")
	assert.Equal(t, burst, status[http.StatusOK]+status[http.StatusServiceUnavailable]+status[http.StatusNotFound], "statuses %v", status)

	// Full, the server admits a real client: it closes an idle session.
	c := h.Connect(t, url, http.DefaultClient)
	a := c.Call(t, "search", map[string]any{"query": "refund"})
	require.False(t, a.IsError, "%v", a.Texts)
	assert.LessOrEqual(t, sessions(), limit)
}

// idleExpiry: sessions left idle end after SessionIdle, and then a real
// client gets in and calls a tool.
func idleExpiry(t *testing.T, h HTTPHarness) {
	const limit = 2
	b := &Backend{}
	url, sessions := h.serve(t, b, nil, HTTPOptions{MaxSessions: limit, SessionIdle: 500 * time.Millisecond})
	for range limit {
		resp, _ := post(t, url, initialize, nil, false)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	require.Eventually(t, func() bool { return sessions() == 0 }, waitFor, 50*time.Millisecond, "idle sessions end")
	c := h.Connect(t, url, http.DefaultClient)
	a := c.Call(t, "search", map[string]any{"query": "refund"})
	require.False(t, a.IsError, "%v", a.Texts)
	assert.Equal(t, int64(1), b.Searches())
}

// bodyCap: a body over MaxBody is answered 413, declared or chunked, and
// opens nothing; a body at the bound is served.
func bodyCap(t *testing.T, h HTTPHarness) {
	const limit = 1 << 10
	atLimit := initialize + strings.Repeat(" ", limit-len(initialize))
	tests := []struct {
		name    string
		body    string
		chunked bool
		want    int
	}{
		{"Content-Length over", atLimit + " ", false, http.StatusRequestEntityTooLarge},
		{"chunked over", atLimit + " ", true, http.StatusRequestEntityTooLarge},
		{"Content-Length at the bound", atLimit, false, http.StatusOK},
		{"chunked at the bound", atLimit, true, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, sessions := h.serve(t, &Backend{}, nil, HTTPOptions{MaxBody: limit})
			resp, _ := post(t, url, tt.body, nil, tt.chunked)
			require.Equal(t, tt.want, resp.StatusCode)
			want := 0
			if tt.want == http.StatusOK {
				want = 1
			}
			assert.Equal(t, want, sessions())
		})
	}
}

// The callers of the Verify tests.
var (
	goodCaller = searchfetch.Caller{
		UserID:     "ada",
		Scopes:     []string{"read:c1"},
		Expiration: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
		Extra:      map[string]any{"tenant": "t1"},
	}
	errBadToken = errors.New("unknown token")
)

// verifyTokens is a Verify that knows the bearer tokens "good", of
// goodCaller, "expired", of a caller whose token has expired, and
// "panic", which it panics on.
func verifyTokens(r *http.Request) (searchfetch.Caller, error) {
	switch r.Header.Get("Authorization") {
	case "Bearer good":
		return goodCaller, nil
	case "Bearer expired":
		c := goodCaller
		c.Expiration = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
		return c, nil
	case "Bearer panic":
		panic("verifier bug")
	case "Bearer other":
		return searchfetch.Caller{UserID: "eve"}, nil
	}
	return searchfetch.Caller{}, errBadToken
}

// verifyCaller: a request Verify refuses is answered 401 with a
// WWW-Authenticate challenge, before any session opens; one it accepts is
// served.
func verifyCaller(t *testing.T, h HTTPHarness) {
	tests := []struct {
		auth      string
		want      int
		challenge string
	}{
		{"", http.StatusUnauthorized, "Bearer"},
		{"Bearer wrong", http.StatusUnauthorized, `Bearer error="invalid_token"`},
		{"Bearer expired", http.StatusUnauthorized, `Bearer error="invalid_token"`},
		{"Bearer panic", http.StatusUnauthorized, `Bearer error="invalid_token"`},
		{"Bearer good", http.StatusOK, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.auth), func(t *testing.T) {
			url, sessions := h.serve(t, &Backend{}, nil, HTTPOptions{Verify: verifyTokens})
			hdr := map[string]string{}
			if tt.auth != "" {
				hdr["Authorization"] = tt.auth
			}
			resp, body := post(t, url, initialize, hdr, false)
			require.Equal(t, tt.want, resp.StatusCode, body)
			assert.Equal(t, tt.challenge, resp.Header.Get("WWW-Authenticate"))
			if tt.want == http.StatusUnauthorized {
				assert.Equal(t, "unauthorized\n", body, "the verifier's reasons stay on the server")
				assert.Zero(t, sessions())
			}
		})
	}
}

// sessionOwner: a session serves the caller that opened it; another
// verified caller that names it is answered 403.
func sessionOwner(t *testing.T, h HTTPHarness) {
	url, _ := h.serve(t, &Backend{}, nil, HTTPOptions{Verify: verifyTokens})
	resp, _ := post(t, url, initialize, map[string]string{"Authorization": "Bearer good"}, false)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	const ping = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	resp, body := post(t, url, ping, map[string]string{"Authorization": "Bearer other", "Mcp-Session-Id": id}, false)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	resp, body = post(t, url, ping, map[string]string{"Authorization": "Bearer good", "Mcp-Session-Id": id}, false)
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Contains(t, body, `"result":{}`)
}

// CallerBackend is a Backend that records the caller each search's
// context carries.
type CallerBackend struct {
	Backend
	mu      sync.Mutex
	callers []searchfetch.Caller
}

// Search records the caller in ctx and searches as Backend does.
func (b *CallerBackend) Search(ctx context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	c, _ := searchfetch.CallerFrom(ctx)
	b.mu.Lock()
	b.callers = append(b.callers, c)
	b.mu.Unlock()
	return b.Backend.Search(ctx, q)
}

// Callers returns the callers the searches found, in order.
func (b *CallerBackend) Callers() []searchfetch.Caller {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.callers)
}

// bearer is a RoundTripper that sends a bearer token with each request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// callerReachesTools: the caller Verify returns is what the backend finds
// in its context, with sessions and without.
func callerReachesTools(t *testing.T, h HTTPHarness) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			b := &CallerBackend{}
			url, _ := h.serve(t, b, nil, HTTPOptions{Verify: verifyTokens, Stateless: stateless})
			c := h.Connect(t, url, &http.Client{Transport: bearer{"good"}})
			for range 2 {
				a := c.Call(t, "search", map[string]any{"query": "refund"})
				require.False(t, a.IsError, "%v", a.Texts)
			}
			if diff := cmp.Diff([]searchfetch.Caller{goodCaller, goodCaller}, b.Callers()); diff != "" {
				t.Errorf("callers (-want +got):\n%s", diff)
			}
		})
	}
}

// alternate is a RoundTripper that sends each request to the next of
// hosts in turn, as a load balancer without affinity may.
type alternate struct {
	hosts []string
	n     atomic.Int64
}

func (a *alternate) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Host = a.hosts[int(a.n.Add(1))%len(a.hosts)]
	r.Host = r.URL.Host
	return http.DefaultTransport.RoundTrip(r)
}

// statelessReplicas: two stateless replicas, each with its own server and
// backend, serve one conversation through a client whose requests
// alternate between them: each search answered by one is followed by the
// fetch of every id it showed on the other, which finds its record. With
// sealed ids the replicas need the same key, and only that: with another
// key each fetch is unknown_id, before any backend call.
func statelessReplicas(t *testing.T, h HTTPHarness) {
	key := []byte("0123456789abcdef0123456789abcdef")
	other := []byte("fedcba9876543210fedcba9876543210")
	tests := []struct {
		name   string
		keys   [2][]byte // nil: ids are not sealed
		broken bool      // the replicas' keys differ
	}{
		{name: "unsealed"},
		{name: "sealed with the same key", keys: [2][]byte{key, key}},
		{name: "sealed with other keys", keys: [2][]byte{key, other}, broken: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var backends [2]*Backend
			var hosts []string
			var urls []string
			for i := range 2 {
				opts := &searchfetch.Options{}
				if tt.keys[i] != nil {
					s, err := mcpid.NewSealer(tt.keys[i])
					require.NoError(t, err)
					opts.Sealer = s
				}
				backends[i] = &Backend{}
				url, _ := h.serve(t, backends[i], opts, HTTPOptions{Stateless: true})
				urls = append(urls, url)
				hosts = append(hosts, strings.TrimPrefix(url, "http://"))
			}
			c := h.Connect(t, urls[0], &http.Client{Transport: &alternate{hosts: hosts}})
			which := func(count func(*Backend) int64, before [2]int64) int {
				t.Helper()
				for i, b := range backends {
					if count(b) != before[i] {
						return i
					}
				}
				t.Fatal("no replica answered")
				return -1
			}
			searches := func(b *Backend) int64 { return b.Searches() }
			fetches := func(b *Backend) int64 { return b.Fetches() }
			a := c.Call(t, "search", map[string]any{"query": "refund"})
			require.False(t, a.IsError, "%v", a.Texts)
			ids := mcpid.ExtractIDs(a.Texts[0])
			require.NotEmpty(t, ids, a.Texts[0])
			require.Len(t, slices.Compact(slices.Sorted(slices.Values(ids))), len(ids), "no id shown twice: %s", a.Texts[0])
			for i := range ids {
				before := [2]int64{backends[0].Searches(), backends[1].Searches()}
				a := c.Call(t, "search", map[string]any{"query": "refund"})
				require.False(t, a.IsError, "%v", a.Texts)
				searched := which(searches, before)
				shown := mcpid.ExtractIDs(a.Texts[0])
				if !tt.broken {
					require.Empty(t, cmp.Diff(ids, shown), "both replicas show the same ids")
				}
				id := shown[i]

				before = [2]int64{backends[0].Fetches(), backends[1].Fetches()}
				f := c.Call(t, "fetch", map[string]any{"id": id})
				if tt.broken {
					e := RequireToolError(t, f, mcpid.CodeUnknownID)
					assert.NotEmpty(t, e.Hint)
					assert.Equal(t, before, [2]int64{backends[0].Fetches(), backends[1].Fetches()}, "no backend call")
					continue
				}
				require.False(t, f.IsError, "fetch %s: %v", id, f.Texts)
				fetched := which(fetches, before)
				assert.NotEqual(t, searched, fetched, "the fetch of %s went to the replica that searched", id)
				doc := DecodeText(t, f.Texts[0]).(map[string]any)
				assert.Equal(t, id, doc["id"])
			}
		})
	}
}
