package stdioguard

import "testing"

// BenchmarkStdioGuardCheck measures the guard's checks of one line: a tools/call
// request, one whose strings hold escapes, and a response.
func BenchmarkStdioGuardCheck(b *testing.B) {
	g := New(nil, nil, nil)
	for _, bm := range []struct{ name, line string }{
		{"call", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"cin_4f2a/orders:o1"}}}`},
		{"escaped", `{"jsonrpc":"2\u002e0","id":"r\u00e9q","method":"tools/call","params":{"name":"search","arguments":{"query":"\"refund\" policy"}}}`},
		{"response", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"1. id=c1/orders:o1 title=\"Refunds\""}]}}`},
	} {
		b.Run(bm.name, func(b *testing.B) {
			line := []byte(bm.line)
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, code, msg := g.check(line); code != 0 {
					b.Fatal(msg)
				}
			}
		})
	}
}

// TestCheckAllocs: checking a message without escapes allocates nothing.
func TestCheckAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates; make check runs the allocation tests without it too")
	}
	g := New(nil, nil, nil)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"fetch","arguments":{"id":"cin_4f2a/orders:o1"}}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"1. id=c1/orders:o1 title=\"Refunds\""}]}}`,
	} {
		b := []byte(line)
		if n := testing.AllocsPerRun(100, func() { g.check(b) }); n != 0 {
			t.Errorf("check(%s) allocates %v times, want 0", line, n)
		}
	}
}
