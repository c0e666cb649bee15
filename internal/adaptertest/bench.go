package adaptertest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// BenchCall is one tool call of the adapters' round-trip benchmarks.
type BenchCall struct {
	Tool string
	Args map[string]any
}

// BenchCalls are the calls the round-trip benchmarks make, through the
// adapter and through the same tools written by hand: a search that shows
// every record and a fetch of one of them.
var BenchCalls = []BenchCall{
	{"search", map[string]any{"query": "refund"}},
	{"fetch", map[string]any{"id": "c1/orders:o1"}},
}

// ComparePair measures adapter and hand, two ways of making the same
// call, alternately in one loop: each iteration makes both calls, the
// adapter's first every other time, and times each. It reports the mean
// time of each (adapter-ns/op and hand-ns/op) and their ratio
// (adapter/hand). The two meet the same load, garbage collector and
// caches, so their ratio holds on a busy machine, where two benchmarks run
// one after the other differ by more than the adapter costs. ns/op, B/op
// and allocs/op are those of the two calls together. A call that fails
// fails the benchmark.
func ComparePair(b *testing.B, adapter, hand func() error) {
	b.Helper()
	var took [2]time.Duration // adapter, hand
	calls := [2]func() error{adapter, hand}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		for k := range 2 {
			side := (n + k) % 2
			start := time.Now()
			err := calls[side]()
			took[side] += time.Since(start)
			if err != nil {
				b.Fatalf("%s: %v", [2]string{"adapter", "hand"}[side], err)
			}
		}
		n++
	}
	b.ReportMetric(float64(took[0].Nanoseconds())/float64(n), "adapter-ns/op")
	b.ReportMetric(float64(took[1].Nanoseconds())/float64(n), "hand-ns/op")
	b.ReportMetric(float64(took[0])/float64(took[1]), "adapter/hand")
}

// RunTwin checks that hand, a client of the tools written by hand that the
// round-trip benchmarks measure the adapter against, answers every call of
// BenchCalls exactly as adapter, a client of the adapter's tools, does: same
// texts, same structuredContent, no error. So the two do the same work, and
// their difference in time is the adapter's own cost.
func RunTwin(t *testing.T, adapter, hand Client) {
	for _, call := range BenchCalls {
		t.Run(call.Tool, func(t *testing.T) {
			want := adapter.Call(t, call.Tool, call.Args)
			require.False(t, want.IsError, "adapter: %v", want.Texts)
			if diff := cmp.Diff(want, hand.Call(t, call.Tool, call.Args)); diff != "" {
				t.Errorf("the hand-written %s answers unlike the adapter's (-adapter +hand):\n%s", call.Tool, diff)
			}
		})
	}
}
