package gateway

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/toolname"
)

// BenchmarkRelay measures what the gateway adds to a tool call: the same
// call to the same in-process server, made directly and through the
// gateway, side by side in one run.
func BenchmarkRelay(b *testing.B) {
	echo := inProcessServer("alpha", "search")
	g, _ := startGateway(b, config{}, echo)
	for _, bc := range []struct {
		name string
		to   mcp.Transport
	}{
		{"direct", echo.transport},
		{"gateway", inProcess{g.srv}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(b.Context(), bc.to, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "q3 report"}}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(b.Context(), params)
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}

// BenchmarkWatch measures how soon a table that one replica stores is in
// another replica's served table, which the store tells it of (Redis
// pub/sub, PostgreSQL LISTEN/NOTIFY): from the start of the writer's
// Update (its load and swap included: the swap tells the reader before
// Update returns) to the reader's table holding the new generation,
// polled every 50 µs. It reports the median and the slowest, in ms.
func BenchmarkWatch(b *testing.B) {
	for _, tc := range []struct {
		name string
		url  func(testing.TB) string
		open func(testing.TB, string, string) toolname.Store
	}{
		{"redis", dbserver.RedisURL, openRedis},
		{"postgres", dbserver.PostgresURL, openPostgres},
	} {
		b.Run(tc.name, func(b *testing.B) {
			url := tc.url(b)
			chain := fmt.Sprintf("watch-%d", time.Now().UnixNano())
			writer := tc.open(b, url, chain)
			reader, _ := startGateway(b, config{store: tc.open(b, url, chain)}, inProcessServer("alpha", "search"))
			var took []time.Duration
			for i := 0; b.Loop(); i++ {
				stored := time.Now()
				names, _, err := toolname.Update(b.Context(), writer, toolname.Portable, []toolname.Key{{Server: "writer", Tool: fmt.Sprint("t", i)}})
				if err != nil {
					b.Fatal(err)
				}
				_, gen := names.Chain()
				for deadline := stored.Add(testTimeout); ; time.Sleep(50 * time.Microsecond) {
					// The reader's table continues the stored one: its
					// generation is one more.
					if _, got := reader.table.Load().names.Chain(); got > gen {
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("the reader never loaded generation %d", gen)
					}
				}
				took = append(took, time.Since(stored))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
			b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "ms-max")
		})
	}
}
