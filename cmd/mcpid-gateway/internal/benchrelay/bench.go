package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchOptions are the benchmark's flags.
type benchOptions struct {
	gateway    string
	base       string // -base: another gateway binary, measured beside the first
	rounds     int
	calls      int
	c          []int
	down       string
	cpuprofile string
}

// path is one way to make the call: a client session, and the processes
// that serve it (relay 0 for the direct path).
type path struct {
	name        string
	cs          *mcp.ClientSession
	relay, down int
}

// startTimeout bounds a process's start and first listing.
const startTimeout = 30 * time.Second

// bench starts the three paths, runs the rounds, and writes the table.
func bench(ctx context.Context, o benchOptions, out io.Writer) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var procs processes
	defer procs.stop()
	// The direct path's downstream, on streamable HTTP.
	directDown, directURL, err := procs.startHTTP(ctx, self, "downstream", "-http", "127.0.0.1:0")
	if err != nil {
		return err
	}
	// What the relays reach: the same downstream over HTTP, or each its
	// own over stdio.
	stdioDown := []string{self, "downstream"}
	relayDown := stdioDown
	if o.down == "http" {
		relayDown = []string{directURL}
	}
	relayArgs := []string{"relay", "-http", "127.0.0.1:0"}
	if o.cpuprofile != "" {
		relayArgs = append(relayArgs, "-cpuprofile", o.cpuprofile+".bare")
	}
	bareRelay, bareURL, err := procs.startHTTP(ctx, self, append(append(relayArgs, "--"), relayDown...)...)
	if err != nil {
		return err
	}
	gw, gwURL, err := procs.startGateway(ctx, o.gateway, o.cpuprofile, self, relayDown)
	if err != nil {
		return err
	}
	paths := []*path{{name: "direct", down: directDown}, {name: "bare relay", relay: bareRelay, down: directDown}, {name: "gateway", relay: gw, down: directDown}}
	urls := []string{directURL, bareURL, gwURL}
	if o.base != "" {
		base, baseURL, err := procs.startGateway(ctx, o.base, "", self, relayDown)
		if err != nil {
			return err
		}
		paths = append(paths, &path{name: "gateway (-base)", relay: base, down: directDown})
		urls = append(urls, baseURL)
	}
	for i, u := range urls {
		p := paths[i]
		if p.relay != 0 && o.down == "stdio" {
			if p.down, err = childOf(p.relay, startTimeout); err != nil {
				return err
			}
		}
		if p.cs, err = connect(ctx, u); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		defer p.cs.Close()
	}
	fmt.Fprintf(out, "benchrelay: %d rounds of %d calls per path and concurrency; relays reach the downstream over %s\n\n", o.rounds, o.calls, o.down)
	for _, c := range o.c {
		results := make([][]round, len(paths))
		for r := -1; r < o.rounds; r++ { // round -1 warms every path up
			for i, p := range paths {
				res, err := runRound(ctx, p, c, o.calls)
				if err != nil {
					return fmt.Errorf("%s, c=%d: %w", p.name, c, err)
				}
				if r >= 0 {
					results[i] = append(results[i], res)
				}
			}
		}
		writeTable(out, c, paths, results)
	}
	return nil
}

// connect opens a client session with the MCP endpoint at url, and waits
// until it lists the tool. A process just started may not listen yet (the
// gateway prints nothing on stdout), so a refused connection is tried
// again until startTimeout.
func connect(ctx context.Context, url string) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "benchrelay", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, clientTransport(url), nil)
	for err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
		cs, err = client.Connect(ctx, clientTransport(url), nil)
	}
	for {
		res, err := cs.ListTools(ctx, nil)
		if err == nil && slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == toolName }) {
			return cs, nil
		}
		if ctx.Err() != nil {
			_ = cs.Close()
			return nil, fmt.Errorf("%s lists no tool %q: %v", url, toolName, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// clientTransport returns the streamable HTTP client transport to the
// endpoint url, with connections enough for 16 and more callers (the
// default transport keeps 2 idle, so more callers would open a
// connection a call), and no standalone event stream (no path needs one).
func clientTransport(url string) mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute}}}
}

// isURL reports whether s is an http URL.
func isURL(s string) bool { return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") }

// processes are the processes the benchmark started.
type processes struct{ cmds []*exec.Cmd }

// startHTTP starts name args, which prints the URL it serves at on its
// first line of stdout, and returns its pid and the URL of its /mcp.
func (ps *processes) startHTTP(ctx context.Context, name string, args ...string) (int, string, error) {
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, "", err
	}
	if err := ps.start(cmd); err != nil {
		return 0, "", err
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case u, ok := <-line:
		if !ok || !isURL(u) {
			return 0, "", fmt.Errorf("%s %s: no URL on its stdout", name, strings.Join(args, " "))
		}
		return cmd.Process.Pid, u + "/mcp", nil
	case <-time.After(startTimeout):
		return 0, "", fmt.Errorf("%s %s: no URL on its stdout within %v", name, strings.Join(args, " "), startTimeout)
	case <-ctx.Done():
		return 0, "", ctx.Err()
	}
}

// startGateway starts the gateway on a free loopback port, its one
// downstream down (a URL, or a command line run over stdio), logging as
// an operator's would by default (one line per call, at info) to
// /dev/null. With a profile file, it is the harness's profiled copy of
// the gateway, which writes its CPU profile there.
func (ps *processes) startGateway(ctx context.Context, binary, profile, self string, down []string) (int, string, error) {
	addr, err := freeAddr()
	if err != nil {
		return 0, "", err
	}
	server := "down=" + down[0]
	if !isURL(down[0]) {
		server = "down=" + shellQuote(down)
	}
	args := []string{"-http", addr, "-server", server}
	cmd := exec.Command(binary, args...)
	if profile != "" {
		cmd = exec.Command(self, append([]string{"gateway", profile}, args...)...)
	}
	if err := ps.start(cmd); err != nil {
		return 0, "", err
	}
	return cmd.Process.Pid, "http://" + addr + "/mcp", nil
}

// start starts cmd, to be stopped by stop.
func (ps *processes) start(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	ps.cmds = append(ps.cmds, cmd)
	return nil
}

// stop ends every process with SIGTERM, and waits for it (a gateway drains
// first), killing one that has not ended within a minute.
func (ps *processes) stop() {
	for _, cmd := range ps.cmds {
		_ = cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, cmd := range ps.cmds {
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(time.Minute):
			_ = cmd.Process.Kill()
			<-done
		}
	}
}

// freeAddr returns a loopback address with a port free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// shellQuote quotes argv as one -server command line.
func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// round is what one round of one path measured.
type round struct {
	p50, p99 time.Duration
	perSec   float64
	// cpu is the CPU time per call of the client, the relay and the
	// downstream.
	cpu [3]time.Duration
}

// runRound has c callers make calls calls on p's session, in all, and
// measures them.
func runRound(ctx context.Context, p *path, c, calls int) (round, error) {
	pids := [3]int{os.Getpid(), p.relay, p.down}
	var before [3]time.Duration
	for i, pid := range pids {
		if pid != 0 {
			st, err := readStat(pid)
			if err != nil {
				return round{}, err
			}
			before[i] = st.cpu
		}
	}
	params := &mcp.CallToolParams{Name: toolName, Arguments: map[string]any{"query": "q3 report"}}
	lat := make([]time.Duration, calls)
	errs := make([]error, c)
	var wg sync.WaitGroup
	began := time.Now()
	for w := range c {
		wg.Go(func() {
			for i := w; i < calls; i += c {
				t := time.Now()
				res, err := p.cs.CallTool(ctx, params)
				lat[i] = time.Since(t)
				if err == nil && res.IsError {
					err = fmt.Errorf("a tool error: %v", res.Content)
				}
				if err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(began)
	if err := errors.Join(errs...); err != nil {
		return round{}, err
	}
	r := round{perSec: float64(calls) / took.Seconds()}
	for i, pid := range pids {
		if pid != 0 {
			st, err := readStat(pid)
			if err != nil {
				return round{}, err
			}
			r.cpu[i] = (st.cpu - before[i]) / time.Duration(calls)
		}
	}
	slices.Sort(lat)
	r.p50, r.p99 = quantile(lat, 0.50), quantile(lat, 0.99)
	return r, nil
}

// quantile returns the q quantile of sorted, the nearest rank.
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
