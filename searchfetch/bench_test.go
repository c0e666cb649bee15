package searchfetch_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/mcpid/mcpid/internal/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
)

// BenchmarkTools measures the tools without any SDK, beside the same
// tools written by hand (adaptertest.HandSearch and HandFetch) in the same
// run: the cost the adapters add to a round trip is the difference.
func BenchmarkTools(b *testing.B) {
	backend := &adaptertest.Backend{}
	tools := searchfetch.New(backend, nil)
	ctx := context.Background()
	calls := []struct {
		name string
		call func(context.Context, []byte) bool // reports success
	}{
		{"search/tool", func(ctx context.Context, _ []byte) bool {
			return !tools.Search(ctx, []byte(`{"query":"refund"}`)).IsError
		}},
		{"search/hand", func(ctx context.Context, _ []byte) bool {
			_, _, err := adaptertest.HandSearch(ctx, backend, "refund")
			return err == nil
		}},
		{"fetch/tool", func(ctx context.Context, _ []byte) bool {
			return !tools.Fetch(ctx, []byte(`{"id":"c1/orders:o1"}`)).IsError
		}},
		{"fetch/hand", func(ctx context.Context, _ []byte) bool {
			_, err := adaptertest.HandFetch(ctx, backend, "c1/orders:o1", "")
			return err == nil
		}},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !c.call(ctx, nil) {
					b.Fatal("call failed")
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
