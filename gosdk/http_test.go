package gosdk_test

import (
	"context"
	"crypto/rand"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
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
		h := gosdk.NewHTTPHandler(server, &gosdk.HTTPOptions{
			MaxSessions: o.MaxSessions,
			SessionIdle: o.SessionIdle,
			MaxBody:     o.MaxBody,
			Stateless:   o.Stateless,
			Verify:      o.Verify,
		})
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
