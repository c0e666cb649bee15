package gosdk_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpHarness serves the tools with NewHTTPHandler and connects the
// go-sdk's own client over streamable HTTP.
var httpHarness = adaptertest.HTTPHarness{
	Serve: func(t testing.TB, b searchfetch.Backend, tools *searchfetch.Options, o adaptertest.HTTPOptions) (http.Handler, func() int) {
		// A session id that takes a while to make widens the window
		// between a request's admission and the SDK's counting of the
		// session it opens, where a bound checked only against the
		// sessions open would let a burst through.
		server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, &mcp.ServerOptions{
			GetSessionID: func() string {
				time.Sleep(10 * time.Millisecond)
				return rand.Text()
			},
		})
		require.NoError(t, gosdk.Register(server, b, tools))
		h := gosdk.NewHTTPHandler(server, (*gosdk.HTTPOptions)(&o))
		return h, func() int {
			n := 0
			for range server.Sessions() {
				n++
			}
			return n
		}
	},
	Connect: func(t testing.TB, url string, hc *http.Client) adaptertest.Client {
		t.Helper()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() })
		return client{session: cs}
	},
}

func TestHTTP(t *testing.T) {
	adaptertest.RunHTTP(t, httpHarness)
}

// TestHTTPTokenInfoIsTheCaller: behind the go-sdk's own bearer-token
// middleware, without Verify, the TokenInfo it verified is the caller the
// tools see, in every call.
func TestHTTPTokenInfoIsTheCaller(t *testing.T) {
	want := searchfetch.Caller{
		UserID:     "ada",
		Scopes:     []string{"read:c1"},
		Expiration: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
		Extra:      map[string]any{"tenant": "t1"},
	}
	b := &adaptertest.CallerBackend{}
	server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	require.NoError(t, gosdk.Register(server, b, nil))
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "good" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: want.UserID, Scopes: want.Scopes, Expiration: want.Expiration, Extra: want.Extra}, nil
	}
	hs := httptest.NewServer(auth.RequireBearerToken(verify, nil)(gosdk.NewHTTPHandler(server, nil)))
	t.Cleanup(hs.Close) // after the client's, which ends its event stream
	c := httpHarness.Connect(t, hs.URL, &http.Client{Transport: withToken{"good"}})
	for range 2 {
		a := c.Call(t, "search", map[string]any{"query": "go"})
		require.False(t, a.IsError, "%v", a.Texts)
	}
	if diff := cmp.Diff([]searchfetch.Caller{want, want}, b.Callers()); diff != "" {
		t.Errorf("callers (-want +got):\n%s", diff)
	}
}

// TestHTTPAuthorizationBehindBearerMiddleware: behind the go-sdk's own
// bearer-token middleware, the caller its TokenInfo names is the one
// Options.Authorize checks: each user is shown, and fetches, only what it
// may read, and a denied fetch never reaches the backend.
func TestHTTPAuthorizationBehindBearerMiddleware(t *testing.T) {
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		user, ok := strings.CutPrefix(token, "token-")
		if !ok || adaptertest.Grants[user] == nil {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: user, Expiration: time.Now().Add(time.Hour)}, nil
	}
	adaptertest.RunAuthorization(t, func(t testing.TB, b searchfetch.Backend, opts *searchfetch.Options, caller searchfetch.Caller) adaptertest.Client {
		server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
		require.NoError(t, gosdk.Register(server, b, opts))
		hs := httptest.NewServer(auth.RequireBearerToken(verify, nil)(gosdk.NewHTTPHandler(server, nil)))
		t.Cleanup(hs.Close)
		return httpHarness.Connect(t, hs.URL, &http.Client{Transport: withToken{"token-" + caller.UserID}})
	})
}

// TestHTTPVerifyWithoutExpiration: a caller that Verify returns without an
// Expiration is served, and is the tools' caller as it was returned, on
// every go-sdk; a server's own handler sees a TokenInfo without an
// Expiration too where the SDK's bearer-token middleware can accept one.
func TestHTTPVerifyWithoutExpiration(t *testing.T) {
	b := &adaptertest.CallerBackend{}
	server := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0.0.1"}, nil)
	require.NoError(t, gosdk.Register(server, b, nil))
	server.AddTool(&mcp.Tool{Name: "expiration", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: req.Extra.TokenInfo.Expiration.Format(time.RFC3339)}}}, nil
	})
	verify := func(*http.Request) (searchfetch.Caller, error) { return searchfetch.Caller{UserID: "eve"}, nil }
	hs := httptest.NewServer(gosdk.NewHTTPHandler(server, &gosdk.HTTPOptions{Verify: verify}))
	t.Cleanup(hs.Close)
	c := httpHarness.Connect(t, hs.URL, http.DefaultClient)
	a := c.Call(t, "search", map[string]any{"query": "go"})
	require.False(t, a.IsError, "%v", a.Texts)
	if diff := cmp.Diff([]searchfetch.Caller{{UserID: "eve"}}, b.Callers()); diff != "" {
		t.Errorf("callers (-want +got):\n%s", diff)
	}
	t.Run("the server's own handler", func(t *testing.T) {
		if _, ok := reflect.TypeOf(auth.RequireBearerTokenOptions{}).FieldByName("AllowMissingExpiration"); !ok {
			t.Skip("a TokenInfo without an Expiration: this go-sdk's bearer-token middleware refuses one (no AllowMissingExpiration), so it carries 9999-12-31T23:59:59Z")
		}
		a := c.Call(t, "expiration", map[string]any{})
		require.False(t, a.IsError, "%v", a.Texts)
		assert.Equal(t, []string{time.Time{}.Format(time.RFC3339)}, a.Texts)
	})
}
