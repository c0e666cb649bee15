package mcpid

import (
	"strings"
	"testing"
)

// benchIDs are typical ids: the shapes search results carry.
var benchIDs = []struct{ name, id string }{
	{"legacy-short", "orders:o1"},
	{"self-contained-short", "cin_4f2a/orders:o1"},
	{"legacy-long", "salesforce_opportunities:0065g00000XyZabAAF-rev.2"},
	{"self-contained-long", "cin_4f2a7c91/salesforce_opportunities:0065g00000XyZabAAF"},
	{"non-ASCII", "cin_4f2a/données:été-2024"},
}

// bareSplit is the baseline Parse is measured against: it splits an id
// the same way and validates nothing.
func bareSplit(id string) (conn, stream, record string) {
	conn, rest, ok := strings.Cut(id, "/")
	if !ok {
		conn, rest = "", id
	}
	stream, record, _ = strings.Cut(rest, ":")
	return conn, stream, record
}

var (
	sinkHandle  Handle
	sinkStrings [3]string
	sinkString  string
	sinkRequest FetchRequest
)

// BenchmarkParse measures Parse beside its baseline twin, the bare split,
// on the same ids in the same run.
func BenchmarkParse(b *testing.B) {
	for _, bm := range benchIDs {
		b.Run(bm.name+"/parse", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.id)))
			for b.Loop() {
				sinkHandle, _ = Parse(bm.id)
			}
		})
		b.Run(bm.name+"/split", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.id)))
			for b.Loop() {
				sinkStrings[0], sinkStrings[1], sinkStrings[2] = bareSplit(bm.id)
			}
		})
	}
}

func BenchmarkParseInvalid(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_, err := Parse("cin_a/orders:../../etc/passwd")
		if err == nil {
			b.Fatal("accepted")
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, bm := range benchIDs {
		h := MustParse(bm.id)
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.id)))
			for b.Loop() {
				sinkString, _ = Encode(h.ConnectionID(), h.Stream(), h.RecordID())
			}
		})
	}
}

func BenchmarkResolveFetch(b *testing.B) {
	cases := []struct{ name, id, conn string }{
		{"embedded", "cin_4f2a/orders:o1", ""},
		{"embedded-equal", "cin_4f2a/orders:o1", "cin_4f2a"},
		{"explicit", "orders:o1", "cin_4f2a"},
		{"unscoped", "orders:o1", ""},
	}
	for _, bm := range cases {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkRequest, _ = ResolveFetch(bm.id, bm.conn)
			}
		})
	}
}

func BenchmarkSelfContainedID(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sinkString, _ = SelfContainedID("orders:o1", "cin_4f2a")
	}
}
