package adaptertest

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/searchfetch"
)

// ping is a ping request, which a session answers once initialized.
const ping = `{"jsonrpc":"2.0","id":2,"method":"ping"}`

// openSession sends an initialize to url, with the extra headers hdr, and
// returns the session the server opened.
func openSession(t testing.TB, url string, hdr map[string]string) string {
	t.Helper()
	resp, body := post(t, url, initialize, hdr, false)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	id := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	return id
}

// pingSession pings the session id at url, with the extra headers hdr,
// and returns the status of the answer.
func pingSession(t testing.TB, url, id string, hdr map[string]string) int {
	t.Helper()
	h := map[string]string{"Mcp-Session-Id": id}
	for k, v := range hdr {
		h[k] = v
	}
	resp, _ := post(t, url, ping, h, false)
	return resp.StatusCode
}

// floodClosesIdlest: at the bound, an initialize closes the session idle
// longest (the one whose last request ended first), and a flood of
// initializes never locks a new session out: each gets its session, and a
// real client after it gets in and calls a tool.
func floodClosesIdlest(t *testing.T, h HTTPHarness) {
	const limit, flood = 3, 200
	url, sessions := h.serve(t, &Backend{}, nil, HTTPOptions{MaxSessions: limit, SessionIdle: time.Hour})
	a := openSession(t, url, nil)
	b := openSession(t, url, nil)
	c := openSession(t, url, nil)
	require.Equal(t, http.StatusOK, pingSession(t, url, a, nil), "a is used after b")
	d := openSession(t, url, nil)
	assert.Equal(t, http.StatusNotFound, pingSession(t, url, b, nil), "the session idle longest is closed")
	for _, id := range []string{a, c, d} {
		assert.Equal(t, http.StatusOK, pingSession(t, url, id, nil))
	}

	status := map[int]int{}
	for range flood {
		resp, _ := post(t, url, initialize, nil, false)
		status[resp.StatusCode]++
	}
	assert.Equal(t, map[int]int{http.StatusOK: flood}, status)
	assert.Equal(t, limit, sessions())
	client := h.Connect(t, url, http.DefaultClient)
	answer := client.Call(t, "search", map[string]any{"query": "refund"})
	require.False(t, answer.IsError, "%v", answer.Texts)
	assert.Equal(t, limit, sessions())
}

// floodClosesOwn: with Verify, the session closed at the bound is the one
// idle longest of the user holding the most sessions: one user's flood
// closes that user's own sessions, not another's idle longer, and the
// other user, holding fewer, gets a new session from the first's.
func floodClosesOwn(t *testing.T, h HTTPHarness) {
	const limit, flood = 4, 50
	url, sessions := h.serve(t, &Backend{}, nil, HTTPOptions{MaxSessions: limit, SessionIdle: time.Hour, Verify: verifyTokens})
	ada := map[string]string{"Authorization": "Bearer good"}
	eve := map[string]string{"Authorization": "Bearer other"}
	e1 := openSession(t, url, eve) // idle longest of all
	var adas []string
	for range limit - 1 {
		adas = append(adas, openSession(t, url, ada))
	}
	for range flood {
		openSession(t, url, ada)
	}
	assert.Equal(t, http.StatusOK, pingSession(t, url, e1, eve), "the other user's session outlives the flood")
	for _, id := range adas {
		assert.Equal(t, http.StatusNotFound, pingSession(t, url, id, ada), "the flood closes its user's sessions")
	}
	e2 := openSession(t, url, eve)
	for _, id := range []string{e1, e2} {
		assert.Equal(t, http.StatusOK, pingSession(t, url, id, eve))
	}
	assert.Equal(t, limit, sessions())
}

// holdingBackend is a Backend whose searches wait, after they tell
// entered, until release is closed.
type holdingBackend struct {
	Backend
	entered chan struct{}
	release chan struct{}
}

func (b *holdingBackend) Search(ctx context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	b.entered <- struct{}{}
	select {
	case <-b.release:
	case <-ctx.Done():
		return searchfetch.SearchResult{}, ctx.Err()
	}
	return b.Backend.Search(ctx, q)
}

// inFlightProtects: a session with a request in flight is never closed to
// make room: at the bound, while the one session's tool call runs, an
// initialize is answered 503, and the call is answered whole; once it is,
// the session is idle, and the next initialize closes it.
func inFlightProtects(t *testing.T, h HTTPHarness) {
	b := &holdingBackend{entered: make(chan struct{}, 1), release: make(chan struct{})}
	url, sessions := h.serve(t, b, nil, HTTPOptions{MaxSessions: 1, SessionIdle: time.Hour})
	client := h.Connect(t, url, http.DefaultClient)
	answered := make(chan Answer, 1)
	go func() { answered <- client.Call(t, "search", map[string]any{"query": "refund"}) }()
	select {
	case <-b.entered:
	case <-time.After(waitFor):
		t.Fatal("the search never reached the backend")
	}
	resp, body := post(t, url, initialize, nil, false)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "the one session has a request in flight: %s", body)
	close(b.release)
	select {
	case a := <-answered:
		require.False(t, a.IsError, "%v", a.Texts)
	case <-time.After(waitFor):
		t.Fatal("the call was never answered")
	}
	// The call's request ends just after its answer reaches the client.
	require.Eventually(t, func() bool {
		resp, _ := post(t, url, initialize, nil, false)
		return resp.StatusCode == http.StatusOK
	}, waitFor, 10*time.Millisecond, "an initialize closes the session once idle")
	assert.Equal(t, 1, sessions())
}

// streamDoesNotProtect: an open event stream (a GET) does not protect its
// session: at the bound, an initialize closes the session, and its stream
// ends with it.
func streamDoesNotProtect(t *testing.T, h HTTPHarness) {
	url, sessions := h.serve(t, &Backend{}, nil, HTTPOptions{MaxSessions: 1, SessionIdle: time.Hour})
	id := openSession(t, url, nil)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		close(ended)
	}()

	openSession(t, url, nil)
	select {
	case <-ended:
	case <-time.After(waitFor):
		t.Fatal("the event stream outlives its session")
	}
	assert.Equal(t, http.StatusNotFound, pingSession(t, url, id, nil))
	assert.Equal(t, 1, sessions())
}
