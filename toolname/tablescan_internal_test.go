package toolname

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkTableScan measures the scan alone, without json.Valid and the
// maps UnmarshalJSON fills, over a table of 100,000 names: "plain" with
// no escape in it, "escaped" with a quote in every tenth tool's name.
func BenchmarkTableScan(b *testing.B) {
	for _, bm := range []struct {
		name    string
		escaped int // every escaped-th tool's name holds a quote
	}{{"plain", 0}, {"escaped", 10}} {
		b.Run(bm.name, func(b *testing.B) {
			keys := make([]Key, 100_000)
			for i := range keys {
				keys[i] = Key{Server: fmt.Sprintf("server-%d", i%100), Tool: fmt.Sprintf("tool_%d", i)}
				if bm.escaped > 0 && i%bm.escaped == 0 {
					keys[i].Tool += `"q"`
				}
			}
			n, err := Assign(Portable, keys)
			if err != nil {
				b.Fatal(err)
			}
			data, err := json.Marshal(n)
			if err != nil {
				b.Fatal(err)
			}
			s := &tableScan{data: data, text: string(data)}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.scan(func(int, int, scannedEntry) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
