package searchfetch_test

import (
	"context"
	"fmt"
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

// BenchmarkSearchHits measures a search of 10 hits beside one of 10,000
// with 1 MiB fields, in each Structured choice: the cost of StructuredShown
// and of ChatGPT mode stays with the budget, not the number of hits;
// StructuredAll serializes every hit.
func BenchmarkSearchHits(b *testing.B) {
	ctx := context.Background()
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		for _, structured := range []searchfetch.Structured{searchfetch.StructuredShown, searchfetch.StructuredAll} {
			if mode == searchfetch.ModeChatGPT && structured == searchfetch.StructuredAll {
				continue // the same as StructuredShown
			}
			for _, n := range []int{10, 10000} {
				if structured == searchfetch.StructuredAll && n > 10 {
					continue // 10 GiB of JSON
				}
				tools := searchfetch.New(hugeBackend(n), &searchfetch.Options{Mode: mode, Structured: structured})
				b.Run(fmt.Sprintf("%s/%s/%d", mode, structured, n), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if res := tools.Search(ctx, []byte(`{"query":"q"}`)); res.IsError {
							b.Fatal(res.Text)
						}
					}
				})
			}
		}
	}
}
