package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/health"
	"github.com/mcpid/mcpid/internal/serve"
	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
)

// gatewayProcess is a gateway process (the test binary, run as main.go
// runs the gateway: see TestMain), over -http or -stdio.
type gatewayProcess struct {
	cmd    *exec.Cmd
	url    string // with -http: the MCP endpoint
	stderr *syncbuf.Buffer
	exited chan struct{} // closed once the process has exited
	err    error         // cmd.Wait's, once exited is closed
	stdio  mcp.Transport // with -stdio: the transport to its stdin and stdout
}

// announced is the line of the -http listener's address (see serve.Serve).
var announced = regexp.MustCompile(`MCP streamable HTTP on (http://\S+/mcp)`)

// startGatewayProcess starts a gateway process with args and, with -http,
// waits until it announces its endpoint. Its process is killed when the
// test ends, if it still runs.
func startGatewayProcess(t *testing.T, args ...string) *gatewayProcess {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	p := &gatewayProcess{cmd: exec.Command(exe, args...), stderr: new(syncbuf.Buffer), exited: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), testGatewayEnv+"=1")
	pr, pw := io.Pipe()
	p.cmd.Stderr = pw
	if slices.Contains(args, "-stdio") {
		// Pipes of the test's own, which Wait does not close: the last
		// answer may still be in one when the process exits.
		inR, inW, err := os.Pipe()
		require.NoError(t, err)
		outR, outW, err := os.Pipe()
		require.NoError(t, err)
		p.cmd.Stdin, p.cmd.Stdout = inR, outW
		p.stdio = &mcp.IOTransport{Reader: outR, Writer: inW}
		defer inR.Close()
		defer outW.Close()
	}
	require.NoError(t, p.cmd.Start())
	go func() {
		p.err = p.cmd.Wait()
		_ = pw.Close()
		close(p.exited)
	}()
	endpoint := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			_, _ = p.stderr.Write(append(sc.Bytes(), '\n'))
			if m := announced.FindStringSubmatch(sc.Text()); m != nil {
				endpoint <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("the gateway's log (%v):\n%s", args, p.stderr)
		}
	})
	if p.stdio != nil {
		return p
	}
	select {
	case p.url = <-endpoint:
	case <-p.exited:
		require.FailNow(t, "the gateway exited before it listened", "%v\n%s", p.err, p.stderr)
	case <-time.After(testTimeout):
		require.FailNow(t, "the gateway did not announce its endpoint", "%s", p.stderr)
	}
	return p
}

// connectStdio opens the MCP session with p over its stdin and stdout.
func (p *gatewayProcess) connectStdio(t *testing.T, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "drain-test", Version: "v0"}, opts).Connect(t.Context(), p.stdio, nil)
	require.NoError(t, err, "the gateway's log:\n%s", p.stderr)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// signal sends sig to the process.
func (p *gatewayProcess) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(sig))
}

// exitCode waits for the process to exit, at most testTimeout, and
// returns its exit status.
func (p *gatewayProcess) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(testTimeout):
		require.FailNow(t, "the gateway did not exit")
	}
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		return exit.ExitCode()
	}
	require.NoError(t, p.err)
	return 0
}

// base returns the address of the HTTP listener, http://HOST:PORT.
func (p *gatewayProcess) base() string { return strings.TrimSuffix(p.url, "/mcp") }

// get answers GET path on p's listener: its status, 0 when it could not
// be reached, and, for /readyz, the status its body names.
func (p *gatewayProcess) get(path string) (int, string) {
	resp, err := http.Get(p.base() + path)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	var r health.Readiness
	if path == "/readyz" {
		_ = json.NewDecoder(resp.Body).Decode(&r)
	}
	return resp.StatusCode, r.Status
}

// connectHTTP opens an MCP session with the gateway at url.
func connectHTTP(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "drain-test", Version: "v0"}, opts).
		Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callSearch calls the test server's tool search through cs and returns
// its text, requiring a result that is no tool error.
func callSearch(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams) string {
	t.Helper()
	if params == nil {
		params = &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}}
	}
	res, err := cs.CallTool(t.Context(), params)
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	text := res.Content[0].(*mcp.TextContent).Text
	require.False(t, res.IsError, "%s", text)
	return text
}

// TestDrainServesOn: on SIGTERM, /readyz answers 503 "draining" at once,
// while /healthz and the MCP endpoint still answer, a new session
// included, for -drain; a second SIGTERM exits at once, with 143, long
// before -drain is over.
func TestDrainServesOn(t *testing.T) {
	server, env := testServer(t, "docs", "who=docs")
	p := startGatewayProcess(t, "-http", "127.0.0.1:0", "-server", server, "-env", env, "-drain", "10m")
	require.Eventually(t, func() bool { code, _ := p.get("/readyz"); return code == http.StatusOK },
		testTimeout, 10*time.Millisecond, "the gateway gets ready")
	before := connectHTTP(t, p.url, nil)
	assert.Equal(t, "docs answered search", callSearch(t, before, nil))

	p.signal(t, syscall.SIGTERM)
	require.Eventually(t, func() bool { code, _ := p.get("/readyz"); return code == http.StatusServiceUnavailable },
		testTimeout, time.Millisecond, "/readyz answers 503 once the gateway drains")
	_, status := p.get("/readyz")
	assert.Equal(t, "draining", status)
	code, _ := p.get("/healthz")
	assert.Equal(t, http.StatusOK, code, "/healthz while draining")
	assert.Equal(t, "docs answered search", callSearch(t, before, nil), "a session open before the drain")
	assert.Equal(t, "docs answered search", callSearch(t, connectHTTP(t, p.url, nil), nil), "a session opened while draining")

	p.signal(t, syscall.SIGTERM)
	assert.Equal(t, serve.SignalStatus(syscall.SIGTERM), p.exitCode(t), "a second SIGTERM exits at once")
}

// TestDrainFinishesCalls: a call in flight when SIGTERM comes is answered,
// and the gateway then exits 0: over HTTP (with -drain 0: the listener
// closes at once), where the call outlasts 5 s, within -timeout, while
// the session's event stream (the GET the go-sdk client keeps open),
// which would hold the shutdown for all of -timeout, is closed; and over
// stdio.
func TestDrainFinishesCalls(t *testing.T) {
	for _, tt := range []struct {
		name string
		slow string // how long the call takes
		args []string
	}{
		{"http", "6s", []string{"-http", "127.0.0.1:0", "-drain", "0"}},
		{"stdio", "500ms", []string{"-stdio"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && tt.name == "http" {
				t.Skip("waits out a 6 s call")
			}
			server, env := testServer(t, "docs", "who=docs,progress,slow="+tt.slow)
			args := append([]string{"-server", server, "-env", env, "-timeout", "1m"}, tt.args...)
			progressed := make(chan struct{}, 2)
			opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, _ *mcp.ProgressNotificationClientRequest) {
				progressed <- struct{}{}
			}}
			p := startGatewayProcess(t, args...)
			var cs *mcp.ClientSession
			if p.stdio != nil {
				cs = p.connectStdio(t, opts)
			} else {
				cs = connectHTTP(t, p.url, opts)
			}
			answered := make(chan string, 1)
			go func() {
				params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}}
				params.SetProgressToken("drain")
				res, err := cs.CallTool(t.Context(), params)
				switch {
				case err != nil:
					answered <- err.Error()
				case len(res.Content) != 1:
					answered <- "no content"
				default:
					answered <- res.Content[0].(*mcp.TextContent).Text
				}
			}()
			select {
			case <-progressed: // the call has reached the downstream
			case <-time.After(testTimeout):
				require.FailNow(t, "the call did not reach the downstream")
			}
			p.signal(t, syscall.SIGTERM)
			select {
			case got := <-answered:
				assert.Equal(t, "docs answered search", got, "the call in flight at SIGTERM")
			case <-time.After(testTimeout):
				require.FailNow(t, "the call was not answered")
			}
			assert.Equal(t, 0, p.exitCode(t))
		})
	}
}
