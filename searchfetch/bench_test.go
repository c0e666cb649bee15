package searchfetch_test

import (
	"context"
	"testing"

	"github.com/mcpid/mcpid/internal/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
)

// BenchmarkTools measures the tools without any SDK: the cost the adapters
// add to a round trip is this, minus the work a hand-written tool does too.
func BenchmarkTools(b *testing.B) {
	tools := searchfetch.New(&adaptertest.Backend{}, nil)
	ctx := context.Background()
	calls := []struct {
		name string
		call func(context.Context, []byte) searchfetch.Result
		args string
	}{
		{"search", func(ctx context.Context, a []byte) searchfetch.Result { return tools.Search(ctx, a) }, `{"query":"refund"}`},
		{"fetch", func(ctx context.Context, a []byte) searchfetch.Result { return tools.Fetch(ctx, a) }, `{"id":"c1/orders:o1"}`},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			args := []byte(c.args)
			b.ReportAllocs()
			for b.Loop() {
				if res := c.call(ctx, args); res.IsError {
					b.Fatal(res.Text)
				}
			}
		})
	}
}
