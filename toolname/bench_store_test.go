package toolname_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
)

// longTable returns a table of live live keys on a chain that has retired
// retired names.
func longTable(b *testing.B, live, retired int) *toolname.Table {
	b.Helper()
	gone := make([]toolname.Key, retired)
	for i := range gone {
		gone[i] = toolname.Key{Server: fmt.Sprintf("gone-%04d", i%1000), Tool: fmt.Sprintf("tool_%06d", i)}
	}
	first, err := toolname.Assign(toolname.Portable, gone)
	require.NoError(b, err)
	keys := make([]toolname.Key, live)
	for i := range keys {
		keys[i] = toolname.Key{Server: fmt.Sprintf("live-%03d", i%100), Tool: fmt.Sprintf("op_%05d", i/2)}
	}
	n, err := toolname.Assign(toolname.Portable, keys, toolname.WithPrevious(first))
	require.NoError(b, err)
	return n
}

// BenchmarkFileStoreUpdate measures Update of a one-key change on a chain
// of 10,000 live and 100,000 retired names: "new-name" stores a table
// each time (a key with a name the chain never held joins), "unchanged"
// stores nothing (the same keys again).
func BenchmarkFileStoreUpdate(b *testing.B) {
	data, err := json.Marshal(longTable(b, 10_000, 100_000))
	require.NoError(b, err)
	var live []toolname.Key

	ctx := context.Background()
	for _, bm := range []struct {
		name  string
		write bool
	}{{"new-name", true}, {"unchanged", false}} {
		b.Run(bm.name, func(b *testing.B) {
			// A table of its own, as a gateway loads it from a file.
			table := new(toolname.Table)
			require.NoError(b, table.UnmarshalJSON(data))
			live = live[:0]
			for k := range table.All() {
				live = append(live, k)
			}
			store, err := toolname.NewFileStore(filepath.Join(b.TempDir(), "names.json"))
			require.NoError(b, err)
			defer store.Close()
			_, err = toolname.Seed(ctx, store, table)
			require.NoError(b, err)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				keys := live
				if bm.write {
					keys = append(live[:len(live):len(live)], toolname.Key{Server: "joiner", Tool: fmt.Sprintf("t%d", i)})
				}
				i++
				if _, _, err := toolname.Update(ctx, store, toolname.Portable, keys); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUnmarshalLongTable loads tables of 100,000 names and more, and
// reports the bytes allocated per byte of input: "gateway" has 10,000
// live and 100,000 retired names of gateway-like length, "short" 100,000
// retired names of a few bytes each, where the table's own maps weigh
// most beside the text.
func BenchmarkUnmarshalLongTable(b *testing.B) {
	short := func() *toolname.Table {
		keys := make([]toolname.Key, 100_000)
		for i := range keys {
			keys[i] = toolname.Key{Server: fmt.Sprintf("s%d", i%100), Tool: fmt.Sprintf("t%d", i)}
		}
		first, err := toolname.Assign(toolname.Portable, keys)
		require.NoError(b, err)
		n, err := toolname.Assign(toolname.Portable, nil, toolname.WithPrevious(first))
		require.NoError(b, err)
		return n
	}
	for _, bm := range []struct {
		name  string
		table func() *toolname.Table
	}{
		{"gateway", func() *toolname.Table { return longTable(b, 10_000, 100_000) }},
		{"short", short},
	} {
		b.Run(bm.name, func(b *testing.B) {
			data, err := json.Marshal(bm.table())
			require.NoError(b, err)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			n := 0
			for b.Loop() {
				var names toolname.Table
				if err := names.UnmarshalJSON(data); err != nil {
					b.Fatal(err)
				}
				n++
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(len(data)), "alloc-B/input-B")
			b.ReportMetric(float64(len(data)), "input-B")
		})
	}
}

// BenchmarkLongChainCost measures what a gateway pays for a chain's
// history, on tables of 1,000 live names (one downstream's cap) beside
// 10,000 and 100,000 retired ones. "change" names one new tool (Assign
// with WithPrevious, then the JSON that the store and each backup write:
// write-B); "start" is what a replica does at start (decode the stored
// table, check that it continues the one it holds); "heap" is the heap a
// loaded table holds (heap-B); "file-swap" stores a change in a FileStore.
func BenchmarkLongChainCost(b *testing.B) {
	ctx := context.Background()
	for _, retired := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("retired=%d", retired), func(b *testing.B) {
			// Built once: the sub-benchmarks only read it.
			held := longTable(b, 1_000, retired)
			data, err := json.Marshal(held)
			require.NoError(b, err)
			var live []toolname.Key
			for k := range held.All() {
				live = append(live, k)
			}
			joined := func(i int) []toolname.Key {
				return append(live[:len(live):len(live)], toolname.Key{Server: "joiner", Tool: fmt.Sprintf("t%d", i)})
			}

			b.Run("change", func(b *testing.B) {
				// A first change outside the measure, as a gateway has
				// made one since it loaded the table.
				cur, err := toolname.Assign(toolname.Portable, joined(-1), toolname.WithPrevious(held))
				require.NoError(b, err)
				b.ReportAllocs()
				written, i := 0, 0
				for b.Loop() {
					if cur, err = toolname.Assign(toolname.Portable, joined(i), toolname.WithPrevious(cur)); err != nil {
						b.Fatal(err)
					}
					out, err := cur.MarshalJSON()
					if err != nil {
						b.Fatal(err)
					}
					written += len(out)
					i++
				}
				b.ReportMetric(float64(written)/float64(i), "write-B")
			})

			b.Run("start", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					got := new(toolname.Table)
					if err := got.UnmarshalJSON(data); err != nil {
						b.Fatal(err)
					}
					if err := got.Continues(held); err != nil {
						b.Fatal(err)
					}
				}
			})

			b.Run("heap", func(b *testing.B) {
				var before, after runtime.MemStats
				var heap uint64
				n := 0
				for b.Loop() {
					runtime.GC()
					runtime.ReadMemStats(&before)
					got := new(toolname.Table)
					if err := got.UnmarshalJSON(data); err != nil {
						b.Fatal(err)
					}
					runtime.GC()
					runtime.ReadMemStats(&after)
					runtime.KeepAlive(got)
					heap += after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
					n++
				}
				b.ReportMetric(float64(heap)/float64(n), "heap-B")
			})

			b.Run("file-swap", func(b *testing.B) {
				store, err := toolname.NewFileStore(filepath.Join(b.TempDir(), "names.json"))
				require.NoError(b, err)
				defer store.Close()
				rev, err := toolname.Seed(ctx, store, held)
				require.NoError(b, err)
				cur, i := held, 0
				for b.Loop() {
					b.StopTimer()
					if cur, err = toolname.Assign(toolname.Portable, joined(i), toolname.WithPrevious(cur)); err != nil {
						b.Fatal(err)
					}
					i++
					b.StartTimer()
					if rev, err = store.Swap(ctx, rev, cur); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
