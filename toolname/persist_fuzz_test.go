package toolname

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzUnmarshalJSON feeds UnmarshalJSON arbitrary text. It never panics;
// a table it accepts writes itself back in a form it accepts again, as
// the same table: the same names, fallbacks, retired names and chain.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, p := range []Profile{Portable, MCP} {
		n := chainAfter(f, p, 8)
		data, err := n.MarshalJSON()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{v1Table, v1TableOtherLayout, `null`, `{}`, `[]`, `{"version":2}`,
		`{"version":1,"names":[{"server":"a","tool":"b","name":"a__b","reason":"qualified"}],"retired":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var n Table
		if err := n.UnmarshalJSON(data); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %v is a %T, not an *Error", err, err)
			}
			return
		}
		out, err := n.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var back Table
		if err := back.UnmarshalJSON(out); err != nil {
			t.Fatalf("UnmarshalJSON accepted %q but not what it wrote back, %q: %v", data, out, err)
		}
		again, err := back.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(out), string(again)); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		id, gen := n.Chain()
		backID, backGen := back.Chain()
		if id != backID || gen != backGen {
			t.Fatalf("chain %s/%d came back as %s/%d", id, gen, backID, backGen)
		}
	})
}
