package stdioguard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

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

// TestCheckRepeatedKey: a message whose envelope repeats a key, compared
// decoded (and, with FoldKeys, as encoding/json matches keys), is refused
// with -32600 under its id, or under none when the id is the key repeated;
// a key repeated below the envelope is not the guard's to refuse, and a
// client's quiet guard passes the message as its SDK reads it.
func TestCheckRepeatedKey(t *testing.T) {
	var many strings.Builder
	many.WriteString(`{"jsonrpc":"2.0","id":1,"method":"ping"`)
	for i := range 20 {
		fmt.Fprintf(&many, `,"x%d":%d`, i, i)
	}
	distinct := many.String() + "}"
	tests := []struct {
		name    string
		line    string
		fold    bool
		refused bool
		id      string // the id of the answer; "" for null
	}{
		{"method twice", `{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/list"}`, false, true, "1"},
		{"method twice, folded", `{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/list"}`, true, true, "1"},
		{"method twice, once escaped", `{"jsonrpc":"2.0","id":"a","method":"tools/call","meth\u006fd":"tools/list"}`, false, true, `"a"`},
		{"id twice", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, false, true, ""},
		{"id twice, folded", `{"jsonrpc":"2.0","ID":1,"id":2,"method":"ping"}`, true, true, ""},
		{"result twice", `{"jsonrpc":"2.0","id":3,"result":{},"result":{"x":1}}`, false, true, "3"},
		{"another case is another key", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/list"}`, false, false, ""},
		{"another case, folded", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/list"}`, true, true, "1"},
		{"long s folds to s", `{"jsonrpc":"2.0","id":1,"method":"ping","j\u017fonrpc":"2.0"}`, true, true, "1"},
		{"long s, exact", `{"jsonrpc":"2.0","id":1,"method":"ping","j\u017fonrpc":"2.0"}`, false, false, ""},
		{"a repeat past the keys compared pairwise", many.String() + `,"x3":0}`, false, true, "1"},
		{"a repeat past the keys compared pairwise, folded", many.String() + `,"X19":0}`, true, true, "1"},
		{"many distinct keys", distinct, true, false, ""},
		{"a repeat within params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":1,"a":2}}`, false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := New(nil, nil, nil)
			if tt.fold {
				g.FoldKeys()
			}
			id, code, msg := g.check([]byte(tt.line))
			if !tt.refused {
				assert.Zero(t, code, msg)
				return
			}
			assert.Equal(t, CodeInvalidRequest, code)
			assert.Equal(t, tt.id, string(id))
			assert.Contains(t, msg, "repeats the key")

			quiet := NewQuiet(nil, nil, nil)
			if tt.fold {
				quiet.FoldKeys()
			}
			_, code, msg = quiet.check([]byte(tt.line))
			assert.Zero(t, code, msg)
		})
	}
}
