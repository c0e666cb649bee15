package gateway

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/bearer"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/internal/testkit/cmdtest"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
)

// The tokens of the tests: alice has two, bob one.
const (
	aliceToken  = "alice-0123456789abcdef"
	alice2Token = "alice-second-0123456789"
	bobToken    = "bob-fedcba9876543210"
)

// writeTokens writes a tokens file readable by its owner alone, at once
// (renamed into place, as an operator's tool should).
func writeTokens(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path+".new", []byte(text), 0o600))
	require.NoError(t, os.Rename(path+".new", path))
}

// TestAuthFlags: a non-loopback -http address needs -auth-tokens or
// -insecure-no-auth; a loopback one needs neither; the two flags are
// exclusive, and need -http.
func TestAuthFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want inboundAuth // when the command line is good
		err  string      // what the usage error says, when it is not
	}{
		{"loopback", []string{"-http", "127.0.0.1:0"}, inboundAuth{}, ""},
		{"localhost, tokens", []string{"-http", "localhost:8080", "-auth-tokens", "t"}, inboundAuth{tokens: "t"}, ""},
		{"all interfaces, tokens", []string{"-http", ":8080", "-auth-tokens", "t"}, inboundAuth{tokens: "t"}, ""},
		{"public, insecure", []string{"-http", "0.0.0.0:8080", "-insecure-no-auth"}, inboundAuth{insecure: true}, ""},
		{"host name, tokens", []string{"-http", "gw.example.com:443", "-auth-tokens", "t"}, inboundAuth{tokens: "t"}, ""},
		{"loopback, insecure", []string{"-http", "[::1]:0", "-insecure-no-auth"}, inboundAuth{insecure: true}, ""},
		{"all interfaces", []string{"-http", ":8080"}, inboundAuth{}, `-http ":8080" listens beyond this machine`},
		{"public", []string{"-http", "0.0.0.0:8080"}, inboundAuth{}, "give -auth-tokens FILE (who may call), or -insecure-no-auth"},
		{"IPv6 any", []string{"-http", "[::]:8080"}, inboundAuth{}, "listens beyond this machine"},
		{"host name", []string{"-http", "gw.example.com:443"}, inboundAuth{}, "listens beyond this machine"},
		{"both", []string{"-http", ":8080", "-auth-tokens", "t", "-insecure-no-auth"}, inboundAuth{}, "exclusive"},
		{"tokens on stdio", []string{"-stdio", "-auth-tokens", "t"}, inboundAuth{}, "need -http"},
		{"insecure alone", []string{"-insecure-no-auth"}, inboundAuth{}, "need -http"},
		{"no port", []string{"-http", "0.0.0.0", "-insecure-no-auth"}, inboundAuth{}, `-http "0.0.0.0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			o, err := parseArgs(tt.args, &stderr)
			if tt.err != "" {
				require.ErrorIs(t, err, serve.ErrUsage)
				assert.Contains(t, stderr.String(), tt.err)
				return
			}
			require.NoError(t, err, stderr.String())
			assert.Equal(t, tt.want, o.auth)
		})
	}
}

// bearerTransport adds a bearer token to each request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP connects a client to the MCP endpoint with token, as
// asked.connect does in process: it answers elicitations with name's key.
func (l *askLog) connectHTTP(t *testing.T, endpoint, token, name string) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.asked == nil {
			l.asked = map[string]int{}
		}
		l.asked[name]++
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"key": name + "'s key"}}, nil
	}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, opts).Connect(t.Context(), &mcp.StreamableClientTransport{
		Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearerTransport{token}}, MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestAuthUserReachesRelay: the user a token maps to is the caller's
// verified user, as the relay's rules read it. A legacy downstream's
// elicitation, which names no call, reaches one of alice's sessions while the
// only other call in flight is alice's too, from another session and with
// another of her tokens (the same verified user); while bob's is, it
// reaches no one. And the go-sdk refuses alice's session to bob's token.
func TestAuthUserReachesRelay(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens")
	writeTokens(t, path, "alice "+aliceToken+"\nalice "+alice2Token+"\nbob "+bobToken+"\n")
	for _, tt := range []struct {
		name, holder, holderToken, want string
	}{
		{"the same user's call in flight", "alice-2", alice2Token, "asked"},
		{"another user's call in flight", "bob", bobToken, "refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			holding, release := make(chan struct{}, 1), make(chan struct{})
			g, _ := startGateway(t, config{}, askServer(true, holding, release))
			v, err := bearer.Open(path, nil)
			require.NoError(t, err)
			hs := httptest.NewServer(behindTokens(v, g.handler(serve.DefaultLimits, false)))
			t.Cleanup(hs.Close)
			asked := &askLog{}
			alice := asked.connectHTTP(t, hs.URL+"/mcp", aliceToken, "alice-1")
			names, err := listNames(t.Context(), alice)
			require.NoError(t, err)
			assert.Equal(t, []string{"ask", "hold"}, names)
			holder := asked.connectHTTP(t, hs.URL+"/mcp", tt.holderToken, tt.holder)
			var got string
			holdWhile(t, holder, holding, release, func() { got = ask(t, alice) })
			counts := asked.counts()
			if tt.want == "refused" {
				assert.Equal(t, "refused", got)
				assert.Empty(t, counts, "no one was asked")
			} else {
				// The relay asks one of the user's sessions in flight.
				assert.Contains(t, []string{"alice-1's key", "alice-2's key"}, got)
				assert.Equal(t, 1, counts["alice-1"]+counts["alice-2"], "%v", counts)
				assert.Zero(t, counts["bob"])
			}

			// The session alice opened, with bob's token: the SDK's rule.
			req, err := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", alice.ID())
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			resp, err := bearerTransport{bobToken}.RoundTrip(req)
			require.NoError(t, err)
			_ = resp.Body.Close()
			assert.Equal(t, http.StatusForbidden, resp.StatusCode, "alice's session used with bob's token")
		})
	}
}

// commandProcess is the built mcpid-gateway command running as a process.
type commandProcess struct {
	cmd      *exec.Cmd
	endpoint string          // http://ADDR/mcp, once it listens
	logs     *syncbuf.Buffer // its stderr
}

// startProcess starts the command bin with args, and waits until it
// listens. The process is killed when the test ends.
func startProcess(t *testing.T, bin string, args ...string) *commandProcess {
	t.Helper()
	p := &commandProcess{cmd: exec.Command(bin, args...), logs: new(syncbuf.Buffer)}
	stderr, err := p.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	ended := make(chan struct{})
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-ended
		if t.Failed() {
			t.Logf("the gateway's log:\n%s", p.logs)
		}
	})
	endpoint := make(chan string, 1)
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			_, _ = p.logs.Write([]byte(sc.Text() + "\n"))
			if m := announced.FindStringSubmatch(sc.Text()); m != nil {
				endpoint <- m[1]
			}
		}
		_ = p.cmd.Wait()
	}()
	select {
	case p.endpoint = <-endpoint:
		// A listener on every interface is reached here over loopback,
		// where the SDK's DNS rebinding protection wants a loopback Host.
		p.endpoint = strings.Replace(p.endpoint, "//[::]:", "//127.0.0.1:", 1)
	case <-ended:
		require.FailNow(t, "the gateway ended before it listened", "%s", p.logs)
	case <-time.After(testTimeout):
		require.FailNow(t, "the gateway did not listen", "%s", p.logs)
	}
	return p
}

// get sends a request to the process's path with the bearer token ("" for
// none), and returns the status, the WWW-Authenticate header and the body.
func (p *commandProcess) get(t *testing.T, method, path, token string) (int, string, string) {
	t.Helper()
	base := strings.TrimSuffix(p.endpoint, "/mcp")
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, base+path, body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(got)
}

// names connects with token and returns the tools the gateway lists.
func (p *commandProcess) names(t *testing.T, token string) []string {
	t.Helper()
	client := &http.Client{}
	if token != "" {
		client.Transport = bearerTransport{token}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "auth-test", Version: "v0"}, nil).Connect(t.Context(),
		&mcp.StreamableClientTransport{Endpoint: p.endpoint, HTTPClient: client, MaxRetries: -1}, nil)
	require.NoError(t, err, "the gateway's log:\n%s", p.logs)
	defer cs.Close()
	names, err := listNames(t.Context(), cs)
	require.NoError(t, err)
	return names
}

// waitLog waits until the process has logged a line that holds s.
func (p *commandProcess) waitLog(t *testing.T, s string) {
	t.Helper()
	require.Eventually(t, func() bool { return strings.Contains(p.logs.String(), s) }, testTimeout, 10*time.Millisecond, "no log line holds %q", s)
}

// demoNames are the tools of the demo's servers, which the command serves
// when no -server is given.
var demoNames = []string{"alpha__search", "beta__search", "create_issue", "fetch"}

// TestAuthCommand runs the mcpid-gateway command as operators do.
func TestAuthCommand(t *testing.T) {
	bin := cmdtest.Build(t, "../..")

	t.Run("non-loopback without auth refuses to start", func(t *testing.T) {
		for _, addr := range []string{"0.0.0.0:0", ":0"} {
			var stderr strings.Builder
			cmd := exec.Command(bin, "-http", addr)
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, stderr.String())
			assert.Equal(t, 2, exit.ExitCode(), "a usage error's status")
			assert.Contains(t, stderr.String(), "listens beyond this machine")
			assert.Contains(t, stderr.String(), "-auth-tokens FILE")
		}
	})

	t.Run("non-loopback with -insecure-no-auth starts", func(t *testing.T) {
		p := startProcess(t, bin, "-http", "0.0.0.0:0", "-insecure-no-auth")
		assert.Equal(t, demoNames, p.names(t, ""))
		assert.Contains(t, p.logs.String(), "level=WARN msg=\"serving without authentication (-insecure-no-auth)")
	})

	t.Run("tokens, and their reload on SIGHUP", func(t *testing.T) {
		const rotated = "alice-rotated-0123456789"
		path := filepath.Join(t.TempDir(), "tokens")
		writeTokens(t, path, "# who may call\nalice "+aliceToken+"\nbob "+bobToken+"\n")
		p := startProcess(t, bin, "-http", "127.0.0.1:0", "-auth-tokens", path)
		assert.Equal(t, demoNames, p.names(t, aliceToken))

		for _, token := range []string{"", "mallory-0123456789abcdef", aliceToken[:len(aliceToken)-1]} {
			code, challenge, body := p.get(t, http.MethodPost, "/mcp", token)
			assert.Equal(t, http.StatusUnauthorized, code, "token %q", token)
			assert.Equal(t, "Bearer", challenge)
			assert.JSONEq(t, `{"error":"unauthorized","message":"this endpoint needs a known bearer token: Authorization: Bearer TOKEN"}`, body)
		}
		code, _, _ := p.get(t, http.MethodGet, "/metrics", "")
		assert.Equal(t, http.StatusUnauthorized, code, "/metrics is behind the tokens")
		code, _, _ = p.get(t, http.MethodGet, "/healthz", "")
		assert.Equal(t, http.StatusOK, code, "/healthz is open")
		code, _, _ = p.get(t, http.MethodGet, "/readyz", "")
		assert.Equal(t, http.StatusOK, code, "/readyz is open")
		p.waitLog(t, `level=WARN msg="request refused: no known bearer token" reason=unknown method=POST path=/mcp`)

		// alice's token rotated, bob removed: at once on SIGHUP.
		writeTokens(t, path, "alice "+rotated+"\n")
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGHUP))
		p.waitLog(t, "auth tokens reloaded")
		code, _, _ = p.get(t, http.MethodPost, "/mcp", aliceToken)
		assert.Equal(t, http.StatusUnauthorized, code, "the old token")
		code, _, _ = p.get(t, http.MethodPost, "/mcp", bobToken)
		assert.Equal(t, http.StatusUnauthorized, code, "a removed user's")
		assert.Equal(t, demoNames, p.names(t, rotated))

		// A bad file keeps the tokens held.
		writeTokens(t, path, "alice "+rotated+"\nbob "+bobToken+"\ncarol tiny-token\n")
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGHUP))
		p.waitLog(t, "auth tokens not reloaded")
		assert.Contains(t, p.logs.String(), `level=ERROR msg="auth tokens not reloaded: the previous tokens stay in force"`)
		assert.Contains(t, p.logs.String(), "line 3: the token is shorter than 16 bytes")
		assert.Equal(t, demoNames, p.names(t, rotated))
		code, _, _ = p.get(t, http.MethodPost, "/mcp", bobToken)
		assert.Equal(t, http.StatusUnauthorized, code, "a token of the bad file")

		for _, token := range []string{aliceToken, bobToken, rotated, "tiny-token", "mallory"} {
			assert.NotContains(t, p.logs.String(), token, "a token in the log")
		}
	})

	t.Run("a bad tokens file at start", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "tokens")
		writeTokens(t, path, "alice "+aliceToken+"\n")
		require.NoError(t, os.Chmod(path, 0o644))
		var stderr strings.Builder
		cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-auth-tokens", path)
		cmd.Stderr = &stderr
		var exit *exec.ExitError
		require.True(t, errors.As(cmd.Run(), &exit), stderr.String())
		assert.Equal(t, 1, exit.ExitCode())
		assert.Contains(t, stderr.String(), "others can read it")
	})
}
