package gateway

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/syncbuf"
)

// restartDrain is the -drain of the replicas of TestRollingRestart: the
// documented checks, scaled by restartDrain/defaultDrain, notice within
// it as the documented ones notice within the default -drain.
const restartDrain = time.Second

// TestRollingRestart: three -stateless replicas behind a real haproxy,
// configured as docs/gateway.md says (its check timings scaled from the
// default -drain to restartDrain), under steady load from a few clients:
// restarted one by one with SIGTERM, each coming back before the next
// goes, they lose no call, and each exits 0. Then one replica is killed
// with SIGKILL; the calls that fails are logged, as docs/gateway.md
// reports them.
func TestRollingRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three gateway processes behind haproxy, restarting each")
	}
	haproxy := haproxyPath(t)
	config := documentedHAProxy(t)
	checkNoticeWithin(t, config, defaultDrain)
	config = scaleChecks(t, config, float64(restartDrain)/float64(defaultDrain))
	checkNoticeWithin(t, config, restartDrain)

	dir := t.TempDir()
	ports := freePorts(t, 4)
	replicas := make([]*gatewayProcess, 3)
	start := func(i int) {
		server, env := testServer(t, "docs", fmt.Sprintf("who=r%d,slow=20ms", i))
		replicas[i] = startGatewayProcess(t, "-http", fmt.Sprintf("127.0.0.1:%d", ports[i+1]), "-stateless",
			"-drain", restartDrain.String(), "-timeout", "10s", "-server", server, "-env", env)
	}
	for i := range replicas {
		start(i)
	}
	lb := startHAProxy(t, haproxy, dir, config, ports)
	for i := range replicas {
		lb.waitStatus(t, i, "UP")
	}

	load := startLoad(t, fmt.Sprintf("http://127.0.0.1:%d/mcp", ports[0]), 4)
	for i := range replicas {
		load.waitCalls(t, 20) // calls flow before each restart
		replicas[i].signal(t, syscall.SIGTERM)
		assert.Equal(t, 0, replicas[i].exitCode(t), "replica %d's exit after SIGTERM", i)
		start(i)
		lb.waitStatus(t, i, "UP")
	}
	load.waitCalls(t, 20)
	ok, failed := load.stop()
	retried, redispatched := lb.retries(t)
	t.Logf("rolling restart: %d calls, %d failed, %d retried by haproxy, %d sent to another replica", ok+len(failed), len(failed), retried, redispatched)
	assert.Empty(t, failed, "calls that failed during the rolling restart")
	// Each replica was out of haproxy's rotation before it stopped
	// listening, and back in only once it listened again: no request
	// reached a replica that could not answer it, so none needed the
	// retries, which would run a tool twice had the replica received
	// it.
	assert.Zero(t, retried, "requests haproxy retried")
	assert.Zero(t, redispatched, "requests haproxy sent to another replica")

	// SIGKILL: the replica's calls in flight end without an answer.
	load = startLoad(t, fmt.Sprintf("http://127.0.0.1:%d/mcp", ports[0]), 4)
	load.waitCalls(t, 20)
	require.NoError(t, replicas[0].cmd.Process.Kill())
	<-replicas[0].exited
	lb.waitStatus(t, 0, "DOWN")
	load.waitCalls(t, 20)
	start(0)
	lb.waitStatus(t, 0, "UP")
	load.waitCalls(t, 20)
	ok, failed = load.stop()
	killRetried, killRedispatched := lb.retries(t)
	t.Logf("SIGKILL of one replica of 3: %d calls, %d failed, %d retried by haproxy, %d sent to another replica: %v",
		ok+len(failed), len(failed), killRetried-retried, killRedispatched-redispatched, failed)
	assert.Positive(t, ok, "calls go on once a replica is killed")
}

// haproxyPath returns the haproxy to run: skipped without one, but under
// CI=true, where the test fails (.ci/run installs it).
func haproxyPath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("haproxy")
	if err != nil {
		path, err = exec.LookPath("/usr/sbin/haproxy")
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("haproxy is not installed (.ci/run installs it)")
		}
		t.Skip("haproxy is not installed")
	}
	return path
}

// documentedHAProxy returns the haproxy configuration of docs/gateway.md.
func documentedHAProxy(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "docs", "gateway.md"))
	require.NoError(t, err)
	m := regexp.MustCompile("(?s)```haproxy\n(.*?)```").FindSubmatch(doc)
	require.NotNil(t, m, "docs/gateway.md gives a haproxy configuration")
	return string(m[1])
}

// checkTimings matches the settings the time to notice a draining replica
// depends on.
var (
	interRE        = regexp.MustCompile(`\binter (\d+(?:ms|s))`)
	fallRE         = regexp.MustCompile(`\bfall (\d+)`)
	timeoutCheckRE = regexp.MustCompile(`\btimeout check (\d+(?:ms|s))`)
)

// checkNoticeWithin requires config's checks to notice a replica whose
// /readyz answers 503 within drain: fall x inter, plus one check's
// timeout.
func checkNoticeWithin(t *testing.T, config string, drain time.Duration) {
	t.Helper()
	inter, fall, check := interRE.FindStringSubmatch(config), fallRE.FindStringSubmatch(config), timeoutCheckRE.FindStringSubmatch(config)
	require.True(t, inter != nil && fall != nil && check != nil, "the configuration sets inter, fall and timeout check:\n%s", config)
	i, err := time.ParseDuration(inter[1])
	require.NoError(t, err)
	f, err := strconv.Atoi(fall[1])
	require.NoError(t, err)
	c, err := time.ParseDuration(check[1])
	require.NoError(t, err)
	assert.Less(t, time.Duration(f)*i+c, drain, "the checks notice a draining replica within -drain %v", drain)
}

// scaleChecks returns config with inter and timeout check multiplied by
// k.
func scaleChecks(t *testing.T, config string, k float64) string {
	t.Helper()
	for _, re := range []*regexp.Regexp{interRE, timeoutCheckRE} {
		config = re.ReplaceAllStringFunc(config, func(s string) string {
			m := re.FindStringSubmatch(s)
			d, err := time.ParseDuration(m[1])
			require.NoError(t, err)
			scaled := time.Duration(float64(d) * k).Round(time.Millisecond)
			return strings.Replace(s, m[1], strconv.FormatInt(scaled.Milliseconds(), 10)+"ms", 1)
		})
	}
	return config
}

// freePorts returns n loopback ports free now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
		defer ln.Close()
	}
	return ports
}

// haproxyProcess is a haproxy process, and the socket of its stats.
type haproxyProcess struct {
	socket string
	// servers are the names of the backend's servers, in order.
	backend string
	servers []string
}

// startHAProxy runs haproxy on config, its frontend bound to ports[0] and
// its servers, in order, at ports[1:], with a stats socket in dir.
func startHAProxy(t *testing.T, haproxy, dir, config string, ports []int) *haproxyProcess {
	t.Helper()
	lb := &haproxyProcess{socket: filepath.Join(dir, "haproxy.sock")}
	config = regexp.MustCompile(`(?m)^global\n`).ReplaceAllString(config, "global\n    stats socket "+lb.socket+" level admin\n")
	config = regexp.MustCompile(`(?m)^(\s+bind) \S+`).ReplaceAllString(config, fmt.Sprintf("${1} 127.0.0.1:%d", ports[0]))
	n := 0
	config = regexp.MustCompile(`(?m)^(\s+server (\S+)) \S+`).ReplaceAllStringFunc(config, func(line string) string {
		m := regexp.MustCompile(`^(\s+server (\S+)) \S+`).FindStringSubmatch(line)
		lb.servers = append(lb.servers, m[2])
		n++
		return fmt.Sprintf("%s 127.0.0.1:%d", m[1], ports[n])
	})
	require.Equal(t, len(ports)-1, n, "the configuration has a server for each replica:\n%s", config)
	m := regexp.MustCompile(`(?m)^backend (\S+)`).FindStringSubmatch(config)
	require.NotNil(t, m, "the configuration has a backend")
	lb.backend = m[1]
	path := filepath.Join(dir, "haproxy.cfg")
	require.NoError(t, os.WriteFile(path, []byte(config), 0o600))

	out, err := exec.Command(haproxy, "-c", "-f", path).CombinedOutput()
	require.NoError(t, err, "haproxy -c:\n%s\n%s", out, config)
	cmd := exec.Command(haproxy, "-db", "-f", path)
	stderr := new(syncbuf.Buffer)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("haproxy's log:\n%s\nits configuration:\n%s", stderr, config)
		}
	})
	return lb
}

// waitStatus waits until haproxy's check status of server i is status
// (UP, DOWN).
func (lb *haproxyProcess) waitStatus(t *testing.T, i int, status string) {
	t.Helper()
	var last string
	require.Eventually(t, func() bool {
		last = lb.status(lb.servers[i])
		return last == status
	}, testTimeout, 10*time.Millisecond, "haproxy's status of server %s: %q", lb.servers[i], last)
}

// status returns haproxy's status of server: UP, DOWN, "UP 1/2" while
// it goes down, and so on; "" when the stats socket does not answer.
func (lb *haproxyProcess) status(server string) string { return lb.stat(server, "status") }

// retries returns how many times haproxy retried a request of the
// backend on a server (wretr) and sent one to another server (wredis).
func (lb *haproxyProcess) retries(t *testing.T) (retried, redispatched int) {
	t.Helper()
	retried, err := strconv.Atoi(lb.stat("BACKEND", "wretr"))
	require.NoError(t, err)
	redispatched, err = strconv.Atoi(lb.stat("BACKEND", "wredis"))
	require.NoError(t, err)
	return retried, redispatched
}

// stat returns the column of haproxy's stats of server (a server's
// name, or BACKEND) in the backend; "" when the stats socket does not
// answer.
func (lb *haproxyProcess) stat(server, column string) string {
	conn, err := net.Dial("unix", lb.socket)
	if err != nil {
		return ""
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "show stat\n"); err != nil {
		return ""
	}
	r := csv.NewReader(bufio.NewReader(conn))
	r.FieldsPerRecord = -1
	records, err := r.ReadAll()
	if err != nil || len(records) == 0 {
		return ""
	}
	col := -1
	for j, name := range records[0] {
		if strings.TrimPrefix(name, "# ") == column {
			col = j
		}
	}
	for _, rec := range records[1:] {
		if len(rec) > col && col >= 0 && rec[0] == lb.backend && rec[1] == server {
			return rec[col]
		}
	}
	return ""
}

// load is a few clients, each calling the test server's tool search
// through one endpoint, one call after another, until stop.
type load struct {
	ok     atomic.Int64
	mu     sync.Mutex
	failed []string // the errors of the calls that failed
	stopc  chan struct{}
	wg     sync.WaitGroup
}

// startLoad starts n clients of endpoint.
func startLoad(t *testing.T, endpoint string, n int) *load {
	t.Helper()
	l := &load{stopc: make(chan struct{})}
	for range n {
		l.wg.Add(1)
		go l.client(t, endpoint)
	}
	t.Cleanup(func() { l.stop() })
	return l
}

// client calls search until stop: a call that fails is recorded, and
// the client opens a new session (a transport error may end one).
func (l *load) client(t *testing.T, endpoint string) {
	defer l.wg.Done()
	var cs *mcp.ClientSession
	defer func() {
		if cs != nil {
			_ = cs.Close()
		}
	}()
	for {
		select {
		case <-l.stopc:
			return
		default:
		}
		if cs == nil {
			var err error
			cs, err = mcp.NewClient(&mcp.Implementation{Name: "load", Version: "v0"}, nil).
				Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1}, nil)
			if err != nil {
				l.fail("connect: " + err.Error())
				cs = nil
				continue
			}
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{}})
		switch {
		case err != nil:
			l.fail(err.Error())
			_ = cs.Close()
			cs = nil
		case res.IsError || len(res.Content) != 1:
			l.fail(fmt.Sprintf("a tool error: %v", res.Content))
		case !strings.HasSuffix(res.Content[0].(*mcp.TextContent).Text, " answered search"):
			l.fail("answered " + res.Content[0].(*mcp.TextContent).Text)
		default:
			l.ok.Add(1)
		}
	}
}

func (l *load) fail(err string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failed = append(l.failed, err)
}

// waitCalls waits until n more calls have succeeded.
func (l *load) waitCalls(t *testing.T, n int64) {
	t.Helper()
	want := l.ok.Load() + n
	require.Eventually(t, func() bool { return l.ok.Load() >= want }, testTimeout, time.Millisecond, "%d more calls succeed", n)
}

// stop stops the clients, once their calls are answered, and returns
// how many calls succeeded and the errors of those that failed.
func (l *load) stop() (int, []string) {
	select {
	case <-l.stopc:
	default:
		close(l.stopc)
	}
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return int(l.ok.Load()), l.failed
}
