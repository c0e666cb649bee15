package toolname

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// routingKeyTests are pairs and the key Join writes for them; Split must
// give each pair back.
var routingKeyTests = []struct {
	name         string
	server, tool string
	key          string
}{
	{"plain", "github", "create_issue", "github::create_issue"},
	{"colon in server, :: in tool", "kube:prod", "ns::get", "kube%3Aprod::ns::get"},
	{"server spelled like an escape", "weird%3A:name", "t", "weird%253A%3Aname::t"},
	{"percent in server", "100%", "x", "100%25::x"},
	{"server of colons", ":::", "t", "%3A%3A%3A::t"},
	{"server of percents", "%%", "t", "%25%25::t"},
	{"tool starts with colon", "s", ":t", "s:::t"},
	{"tool is colons", "s", "::::", "s::::::"},
	{"tool holds escapes", "s", "%3A%25%", "s::%3A%25%"},
	{"tool ends in percent", "a", "b%", "a::b%"},
	{"empty server", "", "tool", "::tool"},
	{"empty tool", "server", "", "server::"},
	{"both empty", "", "", "::"},
	{"escaped server, empty tool", "a:b", "", "a%3Ab::"},
	{"non-ASCII", "café:ü", "日本::語", "café%3Aü::日本::語"},
	{"invalid UTF-8", "\xff:\xfe", "\x80", "\xff%3A\xfe::\x80"},
	{"whitespace and controls", " a\tb\n", "\x00", " a\tb\n::\x00"},
	{"lower-case letters after percent", "%3a", "t", "%253a::t"},
}

// badRoutingKeyTests are keys that Join cannot produce, with the offset
// the error must report (-1: no separator).
var badRoutingKeyTests = []struct {
	name   string
	key    string
	offset int
}{
	{"empty", "", -1},
	{"no separator", "github/create_issue", -1},
	{"single colon", "github:create_issue", -1},
	{"raw colon in server", "kube:prod::get", 4},
	{"lower-case escape", "kube%3aprod::get", 4},
	{"short escape", "a%2::t", 1},
	{"escape of another byte", "%41::t", 0},
	{"invalid hex", "%ZZ::t", 0},
	{"trailing percent", "abc%::t", 3},
	{"percent before separator", "%::t", 0},
	{"half escape before separator", "%2::t", 0},
	{"escape split by separator", "%3::At", 0},
	{"valid escape then bad", "%25%2G::t", 3},
	{"raw colon after escape", "%3A:x::t", 3},
}

func TestJoin(t *testing.T) {
	for _, tt := range routingKeyTests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.key, Join(tt.server, tt.tool))
		})
	}
}

func TestSplit(t *testing.T) {
	for _, tt := range routingKeyTests {
		t.Run(tt.name, func(t *testing.T) {
			server, tool, err := Split(tt.key)
			require.NoError(t, err)
			assert.Equal(t, tt.server, server)
			assert.Equal(t, tt.tool, tool)
		})
	}
}

func TestSplitRejects(t *testing.T) {
	for _, tt := range badRoutingKeyTests {
		t.Run(tt.name, func(t *testing.T) {
			server, tool, err := Split(tt.key)
			require.ErrorIs(t, err, ErrInvalidRoutingKey)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, CodeInvalidRoutingKey, e.Code)
			assert.Equal(t, tt.key, e.Input)
			assert.Equal(t, tt.offset, e.Offset)
			assert.Equal(t, -1, e.Index)
			assert.Empty(t, e.Field)
			assert.Empty(t, server)
			assert.Empty(t, tool)
			assert.False(t, errors.Is(err, ErrInvalidKey))
		})
	}
}

// TestSplitLastSeparator shows the misrouting that splitting at the last
// "::" would cause, and that Split avoids.
func TestSplitLastSeparator(t *testing.T) {
	key := Join("kube:prod", "ns::get")
	i := strings.LastIndex(key, "::")
	assert.Equal(t, "kube%3Aprod::ns", key[:i], "splitting at the last separator")

	server, tool, err := Split(key)
	require.NoError(t, err)
	assert.Equal(t, "kube:prod", server)
	assert.Equal(t, "ns::get", tool)
	assert.NotEqual(t, key, Join("kube:prod::ns", "get"), "distinct pairs have distinct keys")
}

func TestJoinSplitAllocs(t *testing.T) {
	tests := []struct {
		name         string
		server, tool string
		join, split  float64
	}{
		{"plain", "github", "create_issue", 1, 0},
		{"escaped", "kube:prod", "ns::get", 1, 1},
		{"empty", "", "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var key string
			assert.Equal(t, tt.join, testing.AllocsPerRun(100, func() {
				key = Join(tt.server, tt.tool)
			}), "Join")
			assert.Equal(t, tt.split, testing.AllocsPerRun(100, func() {
				if _, _, err := Split(key); err != nil {
					t.Fatal(err)
				}
			}), "Split")
		})
	}
}

var benchKeys = []struct {
	name         string
	server, tool string
}{
	{"plain", "github", "create_issue"},
	{"escaped", "kube:prod-eu-west-1", "namespaces::get"},
	{"long", strings.Repeat("server", 10), strings.Repeat("tool", 20)},
}

var (
	sinkString string
	sinkErr    error
)

func BenchmarkJoin(b *testing.B) {
	for _, bk := range benchKeys {
		b.Run(bk.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bk.server) + len(bk.tool)))
			for b.Loop() {
				sinkString = Join(bk.server, bk.tool)
			}
		})
		// The baseline concatenates without escaping anything.
		b.Run(bk.name+"/baseline", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bk.server) + len(bk.tool)))
			for b.Loop() {
				sinkString = bk.server + "::" + bk.tool
			}
		})
	}
}

func BenchmarkSplit(b *testing.B) {
	for _, bk := range benchKeys {
		key := Join(bk.server, bk.tool)
		b.Run(bk.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(key)))
			for b.Loop() {
				sinkString, _, sinkErr = Split(key)
			}
		})
		// The baseline cuts at the first separator and checks nothing.
		b.Run(bk.name+"/baseline", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(key)))
			for b.Loop() {
				sinkString, _, _ = strings.Cut(key, "::")
			}
		})
	}
}
