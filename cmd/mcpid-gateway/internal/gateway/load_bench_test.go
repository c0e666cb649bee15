package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/serve"
	"github.com/mcpid/mcpid/gosdk"
)

// BenchmarkRelayLoad measures what a relayed call costs over the same call
// made directly, under load: c callers (1 and 16) share one client
// session on each path, as a gateway's callers share its one session with
// a downstream, and the two paths take turns, a round of callsPerRound
// calls per caller each, so that both see the same machine (on a shared
// one, the load of the moment). Each iteration is one round of each path.
// It reports each path's median latency (µs) and throughput (calls/s), and
// their ratios.
//
// The setups: "memory", every hop in memory (the gateway's own cost and
// its second MCP hop); "http", the client over streamable HTTP to the
// server or to the gateway, whose downstream is in memory; "stdio", the
// downstream a process over stdio (this test binary), reached directly or
// by the gateway, whose client is in memory.
func BenchmarkRelayLoad(b *testing.B) {
	for _, setup := range []struct {
		name string
		open func(b *testing.B) (direct, relayed *mcp.ClientSession)
	}{
		{"memory", relayMemory},
		{"http", relayHTTP},
		{"stdio", relayStdio},
	} {
		for _, c := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/c=%d", setup.name, c), func(b *testing.B) {
				direct, relayed := setup.open(b)
				var lat [2][]time.Duration
				var took [2]time.Duration
				for round := 0; b.Loop(); round++ {
					for i := range 2 {
						path := (i + round) % 2 // which goes first alternates
						cs := [2]*mcp.ClientSession{direct, relayed}[path]
						l, d := loadRound(b, cs, c)
						lat[path] = append(lat[path], l...)
						took[path] += d
					}
				}
				for path, name := range []string{"direct", "gateway"} {
					slices.Sort(lat[path])
					b.ReportMetric(float64(lat[path][len(lat[path])/2].Microseconds()), name+"-p50-µs")
					b.ReportMetric(float64(len(lat[path]))/took[path].Seconds(), name+"-calls/s")
				}
				b.ReportMetric(float64(lat[1][len(lat[1])/2])/float64(lat[0][len(lat[0])/2]), "p50-ratio")
				b.ReportMetric((float64(len(lat[0]))/took[0].Seconds())/(float64(len(lat[1]))/took[1].Seconds()), "throughput-ratio")
			})
		}
	}
}

// callsPerRound is how many calls each caller makes in one round.
const callsPerRound = 20

// loadRound has c callers make callsPerRound calls each on cs, and returns
// each call's latency and the round's duration.
func loadRound(b *testing.B, cs *mcp.ClientSession, c int) ([]time.Duration, time.Duration) {
	params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "q3 report"}}
	lat := make([]time.Duration, c*callsPerRound)
	var wg sync.WaitGroup
	began := time.Now()
	for w := range c {
		wg.Go(func() {
			for i := range callsPerRound {
				t := time.Now()
				res, err := cs.CallTool(context.Background(), params)
				lat[w*callsPerRound+i] = time.Since(t)
				if err != nil || res.IsError {
					b.Error(err, res)
					return
				}
			}
		})
	}
	wg.Wait()
	return lat, time.Since(began)
}

// connect connects a client session over t, closed when b ends.
func connect(b *testing.B, t mcp.Transport) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(b.Context(), t, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

func relayMemory(b *testing.B) (direct, relayed *mcp.ClientSession) {
	echo := inProcessServer("alpha", "search")
	g, _ := startGateway(b, config{}, echo)
	return connect(b, echo.transport), connect(b, inProcess{g.srv})
}

func relayHTTP(b *testing.B) (direct, relayed *mcp.ClientSession) {
	echo := inProcessServer("alpha", "search")
	g, _ := startGateway(b, config{}, echo)
	serveHTTP := func(h *httptest.Server) mcp.Transport {
		b.Cleanup(h.Close)
		return &mcp.StreamableClientTransport{Endpoint: h.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}
	}
	down := httptest.NewServer(serve.Mount(gosdk.NewHTTPHandler(echo.transport.(inProcess).srv, serve.DefaultLimits.GoSDK())))
	up := httptest.NewServer(g.handler(serve.DefaultLimits, false))
	return connect(b, serveHTTP(down)), connect(b, serveHTTP(up))
}

func relayStdio(b *testing.B) (direct, relayed *mcp.ClientSession) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	process := func() *exec.Cmd {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), testServerEnv+"=tools=search")
		return cmd
	}
	srv := "alpha='" + exe + "'"
	env := "alpha=" + testServerEnv + "=tools=search"
	o, err := parseArgs([]string{"-stdio", "-server", srv, "-env", env}, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	g, _ := startGateway(b, o.cfg, o.servers[0].spec(os.Environ(), io.Discard, nil))
	return connect(b, &mcp.CommandTransport{Command: process()}), connect(b, inProcess{g.srv})
}
