package adaptertest

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/searchfetch"
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

// RoundTrips are one SDK's round-trip benchmarks, on its server type S.
// Trip returns a call made through the SDK's own client and in-process
// transport to a new server of S whose tools register adds over Backend.
// Adapter registers the adapter's tools with the default options, Hand the
// same tools written by hand, and Inline the adapter's with Options.Inline.
type RoundTrips[S any] struct {
	Trip                  func(tb testing.TB, register func(S, searchfetch.Backend), call BenchCall) func() error
	Adapter, Hand, Inline func(S, searchfetch.Backend)
}

// Bench makes each of BenchCalls through the adapter and by hand, as
// sub-benchmarks run one after the other.
func (r RoundTrips[S]) Bench(b *testing.B) {
	for _, call := range BenchCalls {
		for _, side := range []struct {
			name     string
			register func(S, searchfetch.Backend)
		}{{"adapter", r.Adapter}, {"hand", r.Hand}} {
			b.Run(call.Tool+"/"+side.name, func(b *testing.B) {
				do := r.Trip(b, side.register, call)
				b.ReportAllocs()
				for b.Loop() {
					if err := do(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchPaired makes the calls of Bench through the adapter and by hand
// alternately in one loop (ComparePair): its adapter/hand ratio is the
// adapter's cost, free of the drift between two benchmarks run one after
// the other. Its pooled sub-benchmarks compare the adapter with the default
// options to the adapter with Options.Inline: the cost of running the
// backend on a pooled worker, which bounds a backend that ignores its
// context.
func (r RoundTrips[S]) BenchPaired(b *testing.B) {
	for _, call := range BenchCalls {
		b.Run(call.Tool, func(b *testing.B) {
			ComparePair(b,
				Side{Name: "adapter", Call: r.Trip(b, r.Adapter, call)},
				Side{Name: "hand", Call: r.Trip(b, r.Hand, call)})
		})
		b.Run(call.Tool+"/pooled", func(b *testing.B) {
			ComparePair(b,
				Side{Name: "pooled", Call: r.Trip(b, r.Adapter, call)},
				Side{Name: "inline", Call: r.Trip(b, r.Inline, call)})
		})
	}
}

// Side is one of two ways of making the same call that ComparePair
// measures side by side.
type Side struct {
	// Name names the side's metrics: "adapter" gives adapter-ns/op.
	Name string
	// Call makes the call once.
	Call func() error
}

// ComparePair measures x and y, two ways of making the same call,
// alternately in one loop: each iteration makes both calls, x's first
// every other time, and times each. It reports the mean time of each (for
// sides named adapter and hand: adapter-ns/op and hand-ns/op) and their
// ratio (adapter/hand). The two meet the same load, garbage collector and
// caches, so their ratio holds on a busy machine, where two benchmarks run
// one after the other differ by more than an adapter costs. ns/op, B/op
// and allocs/op are those of the two calls together. A call that fails
// fails the benchmark.
func ComparePair(b *testing.B, x, y Side) {
	b.Helper()
	sides := [2]Side{x, y}
	var took [2]time.Duration
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		for k := range 2 {
			i := (n + k) % 2
			start := time.Now()
			err := sides[i].Call()
			took[i] += time.Since(start)
			if err != nil {
				b.Fatalf("%s: %v", sides[i].Name, err)
			}
		}
		n++
	}
	b.ReportMetric(float64(took[0].Nanoseconds())/float64(n), x.Name+"-ns/op")
	b.ReportMetric(float64(took[1].Nanoseconds())/float64(n), y.Name+"-ns/op")
	b.ReportMetric(float64(took[0])/float64(took[1]), x.Name+"/"+y.Name)
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
