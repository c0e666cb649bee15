package gosdk_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// TestHTTPTokenInfoWithoutUserID: behind the go-sdk's own bearer-token
// middleware, a TokenInfo without a UserID, a bug of the server's
// verifier, is answered 500 with no challenge on every request, stateful
// and stateless, and logged at Error; the go-sdk binds a session to its
// UserID only when there is one, so a session it opened could be used by
// any caller. A TokenInfo with a UserID is served.
func TestHTTPTokenInfoWithoutUserID(t *testing.T) {
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		ti := &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}
		if token == "ada" {
			ti.UserID = "ada"
		}
		return ti, nil
	}
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) {
			logs := adaptertest.CaptureLogs(t)
			server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
			require.NoError(t, gosdk.Register(server, &adaptertest.Backend{}, nil))
			h := gosdk.NewHTTPHandler(server, &gosdk.HTTPOptions{Stateless: stateless})
			hs := httptest.NewServer(auth.RequireBearerToken(verify, nil)(h))
			t.Cleanup(hs.Close)
			for i := range 2 {
				resp := postInitialize(t, hs.URL, "anonymous")
				assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
				assert.Empty(t, resp.Header.Values("WWW-Authenticate"))
				assert.Equal(t, i+1, logs.Count(slog.LevelError))
			}
			n := 0
			for range server.Sessions() {
				n++
			}
			assert.Zero(t, n, "no session opened")
			resp := postInitialize(t, hs.URL, "ada")
			assert.Equal(t, http.StatusOK, resp.StatusCode)
		})
	}
}

// postInitialize posts an initialize with the bearer token to url and
// returns the answer, its body read.
func postInitialize(t *testing.T, url, token string) *http.Response {
	t.Helper()
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, url, strings.NewReader(initialize))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp
}

// TestHTTPTSClientDiscovery: the official TypeScript client's OAuth
// discovery follows the handler's 401 to the metadata document that the
// go-sdk's auth.ProtectedResourceMetadataHandler serves.
func TestHTTPTSClientDiscovery(t *testing.T) {
	adaptertest.RunTSClientDiscovery(t, httpHarness, func(resource, authServer string, scopes []string) http.Handler {
		return auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:             resource,
			AuthorizationServers: []string{authServer},
			ScopesSupported:      scopes,
		})
	})
}
