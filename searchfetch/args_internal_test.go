package searchfetch

import "testing"

// TestReadArgsAllocs: reading arguments costs one allocation a value, for
// its string, and none for the keys. (A value with escapes decodes through
// encoding/json, at its cost.)
func TestReadArgsAllocs(t *testing.T) {
	tests := []struct {
		name string
		args string
		want float64
	}{
		{"id", `{"id":"c1/orders:o1"}`, 1},
		{"id and connection_id", ` { "id" : "orders:o1" , "connection_id" : "c1" } `, 2},
		{"non-ASCII", `{"id":"docs:Q3 résumé"}`, 1},
	}
	spec := newHints(ModeDefault, SearchName, FetchName, "query", "id").fetchArgs
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := []byte(tt.args)
			var vals [2]string
			got := testing.AllocsPerRun(100, func() {
				if _, err := readArgs(raw, spec, vals[:]); err != nil {
					t.Fatal(err)
				}
			})
			if got != tt.want {
				t.Errorf("allocs = %v, want %v", got, tt.want)
			}
		})
	}
}

// BenchmarkArgs measures readArgs on the arguments of typical calls: plain
// ASCII, non-ASCII, with escapes, and with an integer offset.
func BenchmarkArgs(b *testing.B) {
	spec := newHints(ModeDefault, SearchName, FetchName, "query", "id").fetchArgs
	for _, bm := range []struct{ name, args string }{
		{"plain", `{"id":"c1/orders:o1","connection_id":"c1"}`},
		{"non-ASCII", `{"id":"docs:Q3 résumé des ventes 2025"}`},
		{"escaped", `{"id":"docs:\"quoted\" \u00e9"}`},
		{"offset", `{ "id" : "c1/orders:o1", "offset" : 4096 }`},
	} {
		b.Run(bm.name, func(b *testing.B) {
			raw := []byte(bm.args)
			var vals [3]string
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := readArgs(raw, spec, vals[:]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
