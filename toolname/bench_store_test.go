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
func longTable(b *testing.B, live, retired int) *toolname.Names {
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
			table := new(toolname.Names)
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

// BenchmarkUnmarshalLongTable loads a table of 10,000 live and 100,000
// retired names, and reports the bytes allocated per byte of input.
func BenchmarkUnmarshalLongTable(b *testing.B) {
	data, err := json.Marshal(longTable(b, 10_000, 100_000))
	require.NoError(b, err)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		var names toolname.Names
		if err := names.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
		n++
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(len(data)), "alloc-B/input-B")
	b.ReportMetric(float64(len(data)), "input-B")
}
