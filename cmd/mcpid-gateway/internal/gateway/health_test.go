package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/health"
	"github.com/mcpid/mcpid/toolname"
)

// outageStore is a real store that cannot be reached while told so.
type outageStore struct {
	toolname.Store
	down atomic.Bool
}

var errStoreDown = errors.New("dial tcp 127.0.0.1:6379: connection refused")

func (s *outageStore) Load(ctx context.Context) (*toolname.Table, toolname.Revision, error) {
	if s.down.Load() {
		return nil, "", errStoreDown
	}
	return s.Store.Load(ctx)
}

func (s *outageStore) Swap(ctx context.Context, rev toolname.Revision, next *toolname.Table) (toolname.Revision, error) {
	if s.down.Load() {
		return "", errStoreDown
	}
	return s.Store.Swap(ctx, rev, next)
}

// TestReadyz: /readyz answers 503 "starting" until the first naming round
// is done, then 200 with the store's state, and stays 200 while the store
// is down, since the held table keeps routing; /healthz answers 200
// throughout. A replica that never reached its store and has no backup
// holds no table, and is not ready.
func TestReadyz(t *testing.T) {
	store := &outageStore{Store: new(chainstore.Mem)}
	slow := inProcessServer("slow", "search")
	release := make(chan struct{})
	slow.transport = gatedTransport{slow.transport, release}
	g, err := newGateway(config{store: store, timeout: testTimeout})
	require.NoError(t, err)
	t.Cleanup(g.close)
	srv := httptest.NewServer(g.withHealth(http.NotFoundHandler()))
	t.Cleanup(srv.Close)
	require.NoError(t, g.start(t.Context(), []downstreamSpec{inProcessServer("alpha", "fetch"), slow}))

	assert.Equal(t, http.StatusOK, get(t, srv.URL+"/healthz", nil))
	var r health.Readiness
	assert.Equal(t, http.StatusServiceUnavailable, get(t, srv.URL+"/readyz", &r), "before the first round")
	assert.Equal(t, health.Readiness{Status: "starting", Store: health.StoreUnknown}, r)

	close(release)
	waitReady(t, g)
	assert.Equal(t, http.StatusOK, get(t, srv.URL+"/readyz", &r), "after the first round")
	assert.Equal(t, health.Readiness{Status: "ready", Store: health.StoreUp, Tools: 2}, r)

	store.down.Store(true)
	require.NoError(t, g.flush(t.Context()))
	assert.Equal(t, http.StatusOK, get(t, srv.URL+"/readyz", &r), "during a store outage")
	assert.Equal(t, health.Readiness{Status: "ready", Store: health.StoreDown, Tools: 2}, r)

	store.down.Store(false)
	require.NoError(t, g.flush(t.Context()))
	assert.Equal(t, http.StatusOK, get(t, srv.URL+"/readyz", &r))
	assert.Equal(t, health.Readiness{Status: "ready", Store: health.StoreUp, Tools: 2}, r)

	t.Run("no table", func(t *testing.T) {
		down := &outageStore{Store: new(chainstore.Mem)}
		down.down.Store(true)
		g, err := newGateway(config{store: down, timeout: testTimeout, startTimeout: 100 * time.Millisecond})
		require.NoError(t, err)
		t.Cleanup(g.close)
		require.NoError(t, g.start(t.Context(), []downstreamSpec{inProcessServer("alpha", "fetch")}))
		waitReady(t, g)
		require.Eventually(t, func() bool { return g.health.String() == health.StoreDown }, testTimeout, 10*time.Millisecond)
		r, code := g.readiness()
		assert.Equal(t, http.StatusServiceUnavailable, code)
		assert.Equal(t, health.Readiness{Status: "no_table", Store: health.StoreDown}, r)
	})
}

// gatedTransport connects only once release is closed, as a downstream
// that is slow to start.
type gatedTransport struct {
	mcp.Transport
	release chan struct{}
}

func (t gatedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	select {
	case <-t.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return t.Transport.Connect(ctx)
}

// get fetches url, decodes its JSON body into v unless v is nil, and
// returns the status code.
func get(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	if v != nil {
		require.NoError(t, json.NewDecoder(resp.Body).Decode(v))
	}
	return resp.StatusCode
}

// TestReadyzWaitsForBothChains: /readyz is "starting" until the first
// round of the tool chain and of the prompt chain are both done, in
// either order.
func TestReadyzWaitsForBothChains(t *testing.T) {
	for _, promptsFirst := range []bool{false, true} {
		g, err := newGateway(config{store: new(chainstore.Mem), timeout: testTimeout})
		require.NoError(t, err)
		t.Cleanup(g.close)
		first, second := g.ready, g.promptsReady
		if promptsFirst {
			first, second = second, first
		}
		r, code := g.readiness()
		assert.Equal(t, http.StatusServiceUnavailable, code)
		assert.Equal(t, "starting", r.Status)
		close(first)
		r, code = g.readiness()
		assert.Equal(t, http.StatusServiceUnavailable, code, "one chain's first round is not done")
		assert.Equal(t, "starting", r.Status)
		close(second)
		r, _ = g.readiness()
		assert.NotEqual(t, "starting", r.Status, "both chains' first rounds are done")
	}
}

// TestReadyzProbesStore: /readyz tells a store outage that happens
// between naming rounds, and the store's return, from its probes alone
// (no round runs: nothing changed), and stays 200 meanwhile, since the
// held table routes.
func TestReadyzProbesStore(t *testing.T) {
	store := &outageStore{Store: new(chainstore.Mem)}
	g, _ := startGateway(t, config{store: store, probeEvery: 10 * time.Millisecond}, inProcessServer("alpha", "fetch"))
	srv := httptest.NewServer(g.withHealth(http.NotFoundHandler()))
	t.Cleanup(srv.Close)
	var r health.Readiness
	require.Eventually(t, func() bool { return get(t, srv.URL+"/readyz", &r) == http.StatusOK && r.Store == health.StoreUp }, testTimeout, 10*time.Millisecond)

	store.down.Store(true)
	require.Eventually(t, func() bool { get(t, srv.URL+"/readyz", &r); return r.Store == health.StoreDown }, testTimeout, 10*time.Millisecond,
		"the body says down without a round")
	assert.Equal(t, http.StatusOK, get(t, srv.URL+"/readyz", &r), "the held table routes")
	assert.Equal(t, health.Readiness{Status: "ready", Store: health.StoreDown, Tools: 1}, r)

	store.down.Store(false)
	require.Eventually(t, func() bool { get(t, srv.URL+"/readyz", &r); return r.Store == health.StoreUp }, testTimeout, 10*time.Millisecond)
}
