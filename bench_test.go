package mcpid

import (
	"math"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// benchIDs are the shapes search results carry, one row per class of id
// up to 64 bytes: typical, long, non-ASCII, opaque and escaped
// connections, then the worst cases of 64 bytes (dense 2-byte text,
// emoji, a connection of escapes).
var benchIDs = []struct{ name, id string }{
	{"typical-legacy", "orders:o1"},
	{"typical-self-contained", "cin_4f2a/orders:o1"},
	{"long-legacy", "salesforce_opportunities:0065g00000XyZabAAF-rev.2"},
	{"long-self-contained", "cin_4f2a7c91/salesforce_opportunities:0065g00000XyZabAAF"},
	{"non-ASCII", "cin_4f2a/données:été-2024"},
	{"non-ASCII-long", "cin_4f2a/文書:第三四半期の売上報告書-2024年.pdf"},
	{"opaque-key", "cin_4f2a/:T-17"},
	{"opaque-url", "cin_9b1c/:https://wiki.example.com/p/7?rev=3#intro"},
	{"escaped-connection", "projects%2Fp1%2Fconnections%2Fc2/orders:o1"},
	{"escaped-connection-long", "projects%2Facme%2Flocations%2Feu%2Fconnections%2Fd1/:1BxiMVs0"},
	{"escaped-arn-opaque", "arn%3Aaws%3As3%3A%3A%3Aacme-reports/:q3/summary.pdf"},
	{"escaped-non-ASCII", "équipe%3Aventes/文書:第三四半期-2024"},
	{"worst-2-byte-64", "s:ПродажиЗаТретийКварталГодаИтоги"},
	{"worst-emoji-64", "c/s:😀😃😄😁😆😅😂🤣😊😇🙂🙃😉😌😍"},
	{"worst-escapes-64", strings.Repeat("%2F", 20) + "/s:r"},
}

// netipAddr is the baseline Parse is measured against: the standard
// library's parse of a full IPv6 address, a short string with a grammar.
const netipAddr = "2001:db8:85a3::8a2e:370:7334"

var (
	sinkHandle  Handle
	sinkAddr    netip.Addr
	sinkString  string
	sinkRequest FetchRequest
)

// BenchmarkParse measures Parse of each class of id beside its baseline
// twin, netip.ParseAddr of a full IPv6 address, in the same run.
// docs/performance.md reads each class's ratio of the two.
func BenchmarkParse(b *testing.B) {
	for _, bm := range benchIDs {
		b.Run(bm.name+"/parse", func(b *testing.B) {
			if _, err := Parse(bm.id); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bm.id)))
			for b.Loop() {
				sinkHandle, _ = Parse(bm.id)
			}
		})
		b.Run(bm.name+"/netip", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkAddr, _ = netip.ParseAddr(netipAddr)
			}
		})
	}
}

// BenchmarkParseRatio reports, per class of id, Parse's cost as a multiple
// of netip.ParseAddr's (x-netip), from batches of 100 calls of each that
// alternate in one loop: each side's fastest batch is the one that other
// work on the machine disturbed least, so the ratio holds on a busy
// machine, where BenchmarkParse's separate runs drift apart.
func BenchmarkParseRatio(b *testing.B) {
	const batch = 100
	for _, bm := range benchIDs {
		b.Run(bm.name, func(b *testing.B) {
			best := [2]time.Duration{math.MaxInt64, math.MaxInt64}
			for b.Loop() {
				t0 := time.Now()
				for range batch {
					sinkHandle, _ = Parse(bm.id)
				}
				t1 := time.Now()
				for range batch {
					sinkAddr, _ = netip.ParseAddr(netipAddr)
				}
				t2 := time.Now()
				best[0], best[1] = min(best[0], t1.Sub(t0)), min(best[1], t2.Sub(t1))
			}
			b.ReportMetric(float64(best[0].Nanoseconds())/batch, "parse-ns")
			b.ReportMetric(float64(best[1].Nanoseconds())/batch, "netip-ns")
			b.ReportMetric(float64(best[0])/float64(best[1]), "x-netip")
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
		{"opaque", "cin_9b1c/:https://wiki.example.com/p/7", ""},
		{"escaped-equal", "projects%2Fp1%2Fconnections%2Fc2/orders:o1", "projects/p1/connections/c2"},
		{"escaped-alone", "projects%2Fp1%2Fconnections%2Fc2/orders:o1", ""},
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
	for _, bm := range []struct{ name, base string }{
		{"legacy", "orders:o1"},
		{"opaque", "https://wiki.example.com/p/7"},
		{"embedded", "cin_4f2a/orders:o1"},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkString, _ = SelfContainedID(bm.base, "cin_4f2a")
			}
		})
	}
}
