package adaptertest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Metadata returns the handler that serves a protected-resource metadata
// document (RFC 9728) for resource, naming authServer and scopes: the
// go-sdk's own on gosdk, a plain one on mcpgo.
type Metadata func(resource, authServer string, scopes []string) http.Handler

// RunTSClientDiscovery connects the official TypeScript MCP client, with
// an OAuth provider, to the handler that h serves with
// ResourceMetadataURL and Scopes set (examples/tsclient/discovery.mjs),
// without a token and with a bad one: after the 401, the client asks the
// metadata URL the challenge names (at a path it would not guess), then
// the authorization server it lists, and would send its user to sign in
// asking for the challenge's scopes, for the resource the document names.
// It skips when node or the client's packages are not installed (npm ci
// in examples/tsclient), unless MCPID_TSCLIENT=1, as make ts-journeys
// sets, where it fails.
func RunTSClientDiscovery(t *testing.T, h HTTPHarness, metadata Metadata) {
	script := tsclientDir(t)
	var (
		mu    sync.Mutex
		asked []string
	)
	mux := http.NewServeMux()
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.Path)
		mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	base := "http://" + hs.Listener.Addr().String()
	scopes := []string{"files:read", "mcp"}
	handler, _ := h.Serve(t, &Backend{}, nil, HTTPOptions{
		Verify:              verifyTokens,
		ResourceMetadataURL: base + "/meta/mcp-resource.json",
		Scopes:              scopes,
	})
	mux.Handle("/mcp", handler)
	mux.Handle("/meta/mcp-resource.json", metadata(base+"/mcp", base+"/as", scopes))
	mux.HandleFunc("/.well-known/oauth-authorization-server/as", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer":                           base + "/as",
			"authorization_endpoint":           base + "/as/authorize",
			"token_endpoint":                   base + "/as/token",
			"response_types_supported":         []string{"code"},
			"code_challenge_methods_supported": []string{"S256"},
		})
	})
	hs.Start()
	t.Cleanup(hs.Close)

	ctx, cancel := context.WithTimeout(t.Context(), waitFor)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "discovery.mjs", base+"/mcp")
	cmd.Dir = script
	out, err := cmd.Output()
	require.NoError(t, err, "node discovery.mjs: %s", out)
	var attempts int
	for sc := bufio.NewScanner(strings.NewReader(string(out))); sc.Scan(); attempts++ {
		var got struct {
			Token, Error, AuthorizationURL string
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &got))
		assert.Contains(t, got.Error, "Unauthorized", "token %q: the client stops where its user would sign in", got.Token)
		u, err := url.Parse(got.AuthorizationURL)
		require.NoError(t, err)
		assert.Equal(t, base+"/as/authorize", u.Scheme+"://"+u.Host+u.Path, "token %q: the authorization server the metadata names", got.Token)
		assert.Equal(t, "files:read mcp", u.Query().Get("scope"), "token %q: the challenge's scopes", got.Token)
		assert.Equal(t, base+"/mcp", u.Query().Get("resource"), "token %q", got.Token)
	}
	assert.Equal(t, 2, attempts, "%s", out)
	mu.Lock()
	defer mu.Unlock()
	metaAsked := 0
	for i, a := range asked {
		if a == "GET /meta/mcp-resource.json" {
			metaAsked++
			assert.Equal(t, "POST /mcp", asked[i-1], "the metadata is asked after the 401: %v", asked)
		}
	}
	assert.Equal(t, 2, metaAsked, "the client asks the metadata URL of the challenge, once an attempt: %v", asked)
}

// tsclientDir returns examples/tsclient, or skips the test when the
// TypeScript client cannot run there (and MCPID_TSCLIENT is not 1), or
// under -short (make test runs no Node).
func tsclientDir(t *testing.T) string {
	if testing.Short() {
		t.Skip("runs the TypeScript client on Node: skipped under -short (make ts-journeys runs this test)")
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", "tsclient")
	_, errNode := exec.LookPath("node")
	_, errSDK := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"))
	if errNode != nil || errSDK != nil {
		if os.Getenv("MCPID_TSCLIENT") == "1" {
			t.Fatalf("the TypeScript client cannot run: node: %v; its packages: %v", errNode, errSDK)
		}
		t.Skip("the TypeScript client is not installed (npm ci in examples/tsclient; make ts-journeys runs this test)")
	}
	return dir
}
