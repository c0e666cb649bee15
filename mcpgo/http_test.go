package mcpgo_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/mcpgo"
	"github.com/mcpid/mcpid/searchfetch"
)

// httpHarness serves the tools with NewHTTPHandler and connects mcp-go's
// own client over streamable HTTP.
var httpHarness = adaptertest.HTTPHarness{
	Serve: func(t testing.TB, b searchfetch.Backend, tools *searchfetch.Options, o adaptertest.HTTPOptions) (http.Handler, func() int) {
		live := new(sessionCount)
		hooks := &server.Hooks{}
		hooks.AddOnRegisterSession(func(context.Context, server.ClientSession) { live.add(1) })
		hooks.AddOnUnregisterSession(func(context.Context, server.ClientSession) { live.add(-1) })
		// An initialize that takes a while widens the window between a
		// request's admission and mcp-go's registration of the session it
		// opens, where a bound checked only against the sessions
		// registered would let a burst through.
		hooks.AddAfterInitialize(func(context.Context, any, *mcp.InitializeRequest, *mcp.InitializeResult) {
			time.Sleep(10 * time.Millisecond)
		})
		s := server.NewMCPServer("test-server", "v0.0.1", server.WithHooks(hooks))
		require.NoError(t, mcpgo.Register(s, b, tools))
		h := mcpgo.NewHTTPHandler(s, (*mcpgo.HTTPOptions)(&o))
		return h, live.get
	},
	Connect: func(t testing.TB, url string, hc *http.Client) adaptertest.Client {
		t.Helper()
		c, err := client.NewStreamableHttpClient(url, transport.WithHTTPBasicClient(hc))
		require.NoError(t, err)
		// 2025-06-18, the last version with sessions, so that a stateful
		// handler serves the client in one.
		start(t, c, "2025-06-18")
		return mcpClient{c: c}
	},
}

func TestHTTP(t *testing.T) {
	adaptertest.RunHTTP(t, httpHarness)
}

// sessionCount counts the sessions registered with a server, through its
// session hooks.
type sessionCount struct {
	mu sync.Mutex
	n  int
}

func (c *sessionCount) add(d int) {
	c.mu.Lock()
	c.n += d
	c.mu.Unlock()
}

func (c *sessionCount) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// TestHTTPStreamsNameALiveSession: mcp-go opens a session for a GET that
// names none or one it does not know, and a DELETE ends whatever session
// it names; the handler answers both 404 unless they name a session it
// opened, so neither opens nor ends one outside the bound. Stateless,
// neither is served.
func TestHTTPStreamsNameALiveSession(t *testing.T) {
	tests := []struct {
		name      string
		method    string
		session   string
		stateless bool
		want      int
	}{
		{"GET without a session", http.MethodGet, "", false, http.StatusNotFound},
		{"GET of a made-up session", http.MethodGet, "mcp-session-0b7f9c1e-6f2a-4c11-9d3e-5a8b7c6d5e4f", false, http.StatusNotFound},
		{"DELETE of a made-up session", http.MethodDelete, "stdio", false, http.StatusNotFound},
		{"GET stateless", http.MethodGet, "", true, http.StatusMethodNotAllowed},
		{"DELETE stateless", http.MethodDelete, "stdio", true, http.StatusMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, sessions := httpHarness.Serve(t, &adaptertest.Backend{}, nil, adaptertest.HTTPOptions{Stateless: tt.stateless})
			hs := httptest.NewServer(h)
			defer hs.Close()
			req, err := http.NewRequestWithContext(t.Context(), tt.method, hs.URL, nil)
			require.NoError(t, err)
			req.Header.Set("Accept", "text/event-stream")
			if tt.session != "" {
				req.Header.Set("Mcp-Session-Id", tt.session)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
			assert.Equal(t, tt.want, resp.StatusCode)
			assert.Zero(t, sessions())
		})
	}
}

// TestHTTPTSClientDiscovery: the official TypeScript client's OAuth
// discovery follows the handler's 401 to the metadata document.
func TestHTTPTSClientDiscovery(t *testing.T) {
	adaptertest.RunTSClientDiscovery(t, httpHarness, func(resource, authServer string, scopes []string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{
				"resource":              resource,
				"authorization_servers": []string{authServer},
				"scopes_supported":      scopes,
			})
		})
	})
}
