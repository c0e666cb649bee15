package gateway

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStorm: a downstream announces 1,000 new tools every 20 ms for a
// minute (GATEWAY_STORM sets another duration). The gateway's memory and
// state file stay bounded by the caps, and a healthy server's calls go on
// without error; their latency before and during the storm is reported,
// not asserted (the machine's load is not the gateway's).
func TestStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute long")
	}
	dur := time.Minute
	if v := os.Getenv("GATEWAY_STORM"); v != "" {
		var err error
		dur, err = time.ParseDuration(v)
		require.NoError(t, err)
	}
	state := filepath.Join(t.TempDir(), "names.json")
	srv, env := testServer(t, "storm", "storm")
	cfg, specs := fromArgs(t, io.Discard, "-server", srv, "-env", env)
	cfg.store = fileStore(t, state)
	g, c := startGateway(t, cfg, inProcessServer("calm", "lookup"))

	calm := callTimes(t, c, 300, 0)
	require.NoError(t, g.join(t.Context(), specs[0]))
	storm := callTimes(t, c, 0, dur)

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	info, err := os.Stat(state)
	require.NoError(t, err)
	named := stormNamed(t, state)
	live := len(g.table.Load().tools)
	t.Logf("calm calls p50 %v p99 %v; during the storm (%d calls) p50 %v p99 %v: p99 %.2fx",
		calm[len(calm)/2], calm[len(calm)*99/100], len(storm), storm[len(storm)/2], storm[len(storm)*99/100],
		float64(storm[len(storm)*99/100])/float64(calm[len(calm)*99/100]))
	t.Logf("heap in use %d MiB, state file %d KiB, %d tools of the storm named, %d served", ms.HeapInuse>>20, info.Size()>>10, named, live)
	assert.LessOrEqual(t, named, maxEver, "the distinct tools named for the storm server")
	assert.LessOrEqual(t, live, maxTools+1, "the tools served")
	assert.Less(t, info.Size(), int64(4<<20), "the state file")
	assert.Less(t, ms.HeapInuse, uint64(256<<20), "the gateway's heap")
}

// callTimes calls the calm server's tool n times, or for d, and returns
// the calls' durations, sorted. Every call must succeed.
func callTimes(t *testing.T, c *client, n int, d time.Duration) []time.Duration {
	var times []time.Duration
	end := time.Now().Add(d)
	for i := 0; i < n || time.Now().Before(end); i++ {
		began := time.Now()
		res := c.call(t, "lookup", "q")
		times = append(times, time.Since(began))
		require.False(t, res.IsError, resultText(res))
	}
	slices.Sort(times)
	return times
}

// stormNamed counts the storm server's tools that the saved table names,
// live or retired.
func stormNamed(t *testing.T, state string) int {
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	var table struct {
		Names, Retired []struct{ Server string }
	}
	require.NoError(t, json.Unmarshal(data, &table))
	n := 0
	for _, e := range append(table.Names, table.Retired...) {
		if e.Server == "storm" {
			n++
		}
	}
	return n
}
