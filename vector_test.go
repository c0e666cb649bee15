package mcpid

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpid/mcpid/internal/testkit/idcases"
)

// refClasses is chunkClasses worked out byte by byte: the reference the
// vector kernel is checked against.
func refClasses(s string) chunkClasses {
	var k chunkClasses
	for i := 0; i < len(s); i++ {
		bit := uint64(1) << i
		switch c := s[i]; {
		case c == '%':
			k.pct |= bit
		case c == '.':
			k.dot |= bit
		case c == '/':
			k.slash |= bit
		case c == ':':
			k.colon |= bit
		case c == '\\':
			k.backslash |= bit
		case c < ' ' || c == 0x7f:
			k.always |= bit
		case c >= 0x80:
			k.hi |= bit
			switch {
			case c <= 0xbf:
				k.cont |= bit
			case c >= 0xc3 && c <= 0xdf:
				k.lead2 |= bit
			case c >= 0xe1 && c <= 0xef && c != 0xed:
				k.lead3 |= bit
			}
		}
	}
	// The non-ASCII bytes are checked by the kernel when all of them make
	// characters of the leads it knows, whole within s.
	checked := true
	for i := 0; i < len(s) && checked; {
		c := s[i]
		if c < 0x80 {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		checked = (r != utf8.RuneError || n > 1) && (n == 2 && c >= 0xc3 || n == 3 && c != 0xe0 && c != 0xed)
		i += n
	}
	k.always |= k.hi
	if checked {
		k.always &^= k.hi
	}
	return k
}

// kernelStrings are strings of 1 to 64 bytes of every class, and of
// characters cut anywhere.
func kernelStrings() []string {
	pieces := []string{"a", "Z", "0", "-", "_", " ", "%", "%2F", "%3A", "%25", ".", "..", "/", ":", "\\", "\x00", "\x1f", "\x7f",
		"é", "Ω", "\u0080", "\u00a0", "ж", "文", "書", "\u0800", "\ud7ff", "\ue000", "\uffff", "😀", "\xc0", "\xc1", "\xc2", "\xe0\xa0",
		"\xed\xa0\x80", "\xf4\x8f\xbf\xbf", "\xf5", "\xff", "\x80", "\xbf", "\xe6\x96"}
	rng := rand.New(rand.NewPCG(1, 2))
	// Characters cut by the end of a full chunk.
	out := []string{strings.Repeat("a", 63) + "\xc3", strings.Repeat("a", 63) + "\xe6", strings.Repeat("a", 62) + "\xe6\x96"}
	for n := 1; n <= 64; n++ {
		for range 40 {
			var b strings.Builder
			for b.Len() < n {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			out = append(out, b.String()[:n])
		}
	}
	return out
}

// TestVectorKernel compares the vector kernel with the reference on every
// length from 1 to 64, over strings of every class.
func TestVectorKernel(t *testing.T) {
	if chunk != vectorChunk {
		t.Skip("no vector kernel on this processor or build")
	}
	for _, s := range kernelStrings() {
		var k chunkClasses
		k.classify(s)
		if want := refClasses(s); k != want {
			t.Fatalf("classify(%q) = %+v, want %+v", s, k, want)
		}
	}
}

// TestParseChunkAgreesWithScan: an id that the classes alone accept parses
// to the same Handle with scan, and every class of id the benchmarks
// measure is accepted from its classes.
func TestParseChunkAgreesWithScan(t *testing.T) {
	if chunk != vectorChunk {
		t.Skip("no vector kernel on this processor or build")
	}
	ids := kernelStrings()
	for _, tc := range idcases.Cases() {
		ids = append(ids, tc.ID)
	}
	accepted := 0
	for _, id := range ids {
		if len(id) > vectorChunk || id == "" {
			continue
		}
		h, ok := parseChunk(id)
		want, f := parseScan(id)
		if ok && (f.fault != faultNone || h != want) {
			t.Fatalf("parseChunk(%q) = %#v, scan gives %#v, %v", id, h, want, f)
		}
		if ok {
			accepted++
		}
	}
	if accepted < 50 {
		t.Fatalf("parseChunk accepted %d ids only", accepted)
	}
	for _, bm := range benchIDs {
		if _, ok := parseChunk(bm.id); !ok {
			t.Errorf("parseChunk(%q) leaves it to scan", bm.id)
		}
	}
}

// FuzzParseChunk: the vector kernel classes every string as the reference
// does, and an id that parseChunk accepts parses alike with scan.
func FuzzParseChunk(f *testing.F) {
	for _, bm := range benchIDs {
		f.Add(bm.id)
	}
	for _, tc := range idcases.Cases() {
		f.Add(tc.ID)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if chunk != vectorChunk || id == "" || len(id) > vectorChunk {
			return
		}
		var k chunkClasses
		k.classify(id)
		if want := refClasses(id); k != want {
			t.Fatalf("classify(%q) = %+v, want %+v", id, k, want)
		}
		if h, ok := parseChunk(id); ok {
			if want, f := parseScan(id); f.fault != faultNone || h != want {
				t.Fatalf("parseChunk(%q) = %#v, scan gives %#v, %v", id, h, want, f)
			}
		}
	})
}

// TestNibbleTables checks every byte's classes in both tables.
func TestNibbleTables(t *testing.T) {
	class := func(tb *nibbleTables, c int) uint8 { return tb.lo[c&15] & tb.hi[c>>4] }
	if alwaysClasses != 1<<5|1<<6|1<<7 {
		t.Errorf("alwaysClasses = %#x, want the classes of controls, DEL and non-ASCII bytes", alwaysClasses)
	}
	for c := range 256 {
		var want uint8
		if i := strings.IndexByte("%./:\\", byte(c)); i >= 0 {
			want = 1 << i
		}
		switch {
		case c < ' ':
			want = 1 << 5
		case c == 0x7f:
			want = 1 << 6
		case c >= 0x80:
			want = 1 << 7
		}
		if got := class(&stopNibbles, c); got != want {
			t.Errorf("stopNibbles class of %#x = %#x, want %#x", c, got, want)
		}
		want = 0
		switch {
		case c >= 0x80 && c <= 0xbf:
			want = 1 << 7
		case c >= 0xe1 && c <= 0xef && c != 0xed:
			want = 1 << 6
		case c >= 0xc3 && c <= 0xcf:
			want = 1 << 5
		case c >= 0xd0 && c <= 0xdf:
			want = 1 << 4
		}
		if got := class(&utf8Nibbles, c); got != want {
			t.Errorf("utf8Nibbles class of %#x = %#x, want %#x", c, got, want)
		}
		for k := range 16 {
			if stopNibbles.lo[k] != stopNibbles.lo[k+16] || stopNibbles.hi[k] != stopNibbles.hi[k+16] {
				t.Fatalf("stopNibbles lanes differ at %d", k)
			}
		}
	}
}
