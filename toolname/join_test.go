package toolname

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/namecases"
)

func TestJoin(t *testing.T) {
	for _, tt := range namecases.RoutingKeys {
		t.Run(tt.Name, func(t *testing.T) {
			assert.Equal(t, tt.Key, Join(tt.Server, tt.Tool))
		})
	}
}

func TestSplit(t *testing.T) {
	for _, tt := range namecases.RoutingKeys {
		t.Run(tt.Name, func(t *testing.T) {
			server, tool, err := Split(tt.Key)
			require.NoError(t, err)
			assert.Equal(t, tt.Server, server)
			assert.Equal(t, tt.Tool, tool)
		})
	}
}

func TestSplitRejects(t *testing.T) {
	for _, tt := range namecases.BadRoutingKeys {
		t.Run(tt.Name, func(t *testing.T) {
			server, tool, err := Split(tt.Key)
			require.ErrorIs(t, err, ErrInvalidRoutingKey)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, CodeInvalidRoutingKey, e.Code)
			assert.Equal(t, tt.Key, e.Input)
			assert.Equal(t, tt.Offset, e.Offset)
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
