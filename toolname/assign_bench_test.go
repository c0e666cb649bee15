package toolname

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	sinkNames *Table
	sinkKey   Key
	sinkOK    bool
)

func BenchmarkAssign10k(b *testing.B) {
	keys := manyKeys(1000, 10)
	for _, pr := range profileRules[:5] {
		b.Run(pr.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n, err := Assign(pr.profile, keys)
				if err != nil {
					b.Fatal(err)
				}
				sinkNames = n
			}
		})
	}
	// The baseline does the least any assigner must: sort the keys and
	// fill the two lookup tables.
	b.Run("baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			sorted := slices.Clone(keys)
			slices.SortFunc(sorted, compareKeys)
			byKey := make(map[Key]string, len(sorted))
			byName := make(map[string]Key, len(sorted))
			for _, k := range sorted {
				name := k.Server + "__" + k.Tool
				byKey[k] = name
				byName[name] = k
			}
			sinkOK = len(byKey) == len(byName)
		}
	})
}

// BenchmarkAssignPrevious is a large gateway's common event: one server
// with 10 tools joins 1,000 servers with 10,000 tools, and the table is
// re-assigned with WithPrevious.
func BenchmarkAssignPrevious(b *testing.B) {
	keys := manyKeys(1000, 10)
	joined := append(slices.Clone(keys), manyKeys(1001, 10)[10000:]...)
	for _, pr := range profileRules[:5] {
		prev, err := Assign(pr.profile, keys)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(pr.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n, err := Assign(pr.profile, joined, WithPrevious(prev))
				if err != nil {
					b.Fatal(err)
				}
				sinkNames = n
			}
		})
	}
}

func BenchmarkKey(b *testing.B) {
	keys := manyKeys(1000, 10)
	n, err := Assign(OpenAI, keys)
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i], _ = n.Name(k)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkKey, sinkOK = n.Key(names[i%len(names)])
		i++
	}
}

func BenchmarkName(b *testing.B) {
	keys := manyKeys(1000, 10)
	n, err := Assign(OpenAI, keys)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sinkString, sinkOK = n.Name(keys[i%len(keys)])
		i++
	}
}

// BenchmarkAssignLongChain measures a one-key change of a gateway's table
// on a chain that has retired 1,000,000 names, beside the same change on a
// chain with no history: the cost follows the live keys and the change,
// not the history.
func BenchmarkAssignLongChain(b *testing.B) {
	live := manyKeys(100, 10) // 1,000 live tools
	for _, history := range []int{0, 1_000_000} {
		b.Run(fmt.Sprintf("retired=%d", history), func(b *testing.B) {
			var cur *Table
			if history > 0 {
				gone := manyKeys(history/10, 10)
				for i := range gone {
					gone[i].Server = "gone-" + gone[i].Server
				}
				old, err := Assign(Portable, gone)
				require.NoError(b, err)
				cur = old
			}
			cur, err := Assign(Portable, live, WithPrevious(cur))
			require.NoError(b, err)
			require.GreaterOrEqual(b, len(cur.retiredNames()), history)
			extra := Key{"joiner", "tool"}
			// Once per chain, outside the measure: the first table after
			// the history was retired writes it into the shared store, and
			// the first key that comes in indexes it by key.
			cur, err = Assign(Portable, append(slices.Clip(live), Key{"warm", "up"}), WithPrevious(cur))
			require.NoError(b, err)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				keys := live
				if i%2 == 0 {
					keys = append(slices.Clip(live), extra)
				}
				i++
				if cur, err = Assign(Portable, keys, WithPrevious(cur)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
