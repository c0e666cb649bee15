package searchfetch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/searchfetch"
)

// BenchmarkTools measures the tools without any SDK, beside the same
// tools written by hand in the same run: the hand-written ones decode their
// arguments with encoding/json, call adaptertest.HandSearch or HandFetch,
// and make the text, as the adapters' round-trip baselines do, so the
// difference is what the adapters add to a round trip. The inline calls
// are those of Options.Inline: the tool's cost less theirs is that of
// running the backend on a pooled worker, the default. The authorized
// ones are those of an Options.Authorize that allows everything.
func BenchmarkTools(b *testing.B) {
	backend := &adaptertest.Backend{}
	tools := searchfetch.New(backend, nil)
	inline := searchfetch.New(backend, &searchfetch.Options{Inline: true})
	authorized := searchfetch.New(backend, &searchfetch.Options{Authorize: func(context.Context, searchfetch.Access) error { return nil }})
	hand := adaptertest.HandTools(backend)
	search, fetch := []byte(`{"query":"refund"}`), []byte(`{"id":"c1/orders:o1"}`)
	calls := []struct {
		name string
		args []byte
		call func(context.Context, []byte) error
	}{
		{"search/tool", search, toolCall(tools.Search)},
		{"search/inline", search, toolCall(inline.Search)},
		{"search/authorized", search, toolCall(authorized.Search)},
		{"search/hand", search, handCall(hand[0])},
		{"fetch/tool", fetch, toolCall(tools.Fetch)},
		{"fetch/inline", fetch, toolCall(inline.Fetch)},
		{"fetch/authorized", fetch, toolCall(authorized.Fetch)},
		{"fetch/hand", fetch, handCall(hand[1])},
	}
	ctx := context.Background()
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.call(ctx, c.args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// text keeps the hand-written tools' text alive, as a result would.
var text string

// handCall returns tool, decoding its arguments with encoding/json, as a
// benchmark's call.
func handCall(tool adaptertest.HandTool) func(context.Context, []byte) error {
	return func(ctx context.Context, args []byte) error {
		var err error
		text, _, err = tool.Call(ctx, func(v any) error { return json.Unmarshal(args, v) })
		return err
	}
}

// toolCall returns call as a benchmark's call, failing on a tool error.
func toolCall(call func(context.Context, json.RawMessage) searchfetch.Result) func(context.Context, []byte) error {
	return func(ctx context.Context, args []byte) error {
		if res := call(ctx, args); res.IsError {
			return errors.New(res.Text)
		}
		return nil
	}
}

// BenchmarkSearchHits measures a search of 10 hits beside one of 10,000
// with 1 MiB fields, in each Structured choice: what StructuredShown and
// ChatGPT mode render stays with the budget, while the count of the hits
// not shown judges every hit's id (each id counted once), at a cost that
// grows with the number of hits but not with their fields; StructuredAll
// serializes every hit.
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

// BenchmarkFetchCut measures a fetch whose text fits the budget beside one
// of a 5 MiB text, cut at the default budget, from its start and from the
// middle, and the same in ChatGPT mode: the cut costs a pass over the part
// shown, besides the check that the whole text is valid UTF-8.
func BenchmarkFetchCut(b *testing.B) {
	big := strings.Repeat("plain text, \"quoted\" <b>bold</b> & 日本語 🙂\n", (5<<20)/50)
	mid := len(big) / 2
	for mid%50 != 0 || !utf8.RuneStart(big[mid]) {
		mid++
	}
	for _, c := range []struct {
		name, text, args string
		mode             searchfetch.Mode
	}{
		{"fits", "3 items, shipped to Berlin.", `{"id":"c1/orders:o1"}`, searchfetch.ModeDefault},
		{"5MiB/start", big, `{"id":"c1/orders:o1"}`, searchfetch.ModeDefault},
		{"5MiB/middle", big, fmt.Sprintf(`{"id":"c1/orders:o1","offset":%d}`, mid), searchfetch.ModeDefault},
		{"5MiB/chatgpt", big, `{"id":"c1/orders:o1"}`, searchfetch.ModeChatGPT},
	} {
		tools := searchfetch.New(&recorder{doc: searchfetch.Document{Title: "T", Text: c.text}}, &searchfetch.Options{Mode: c.mode, Inline: true})
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := tools.Fetch(context.Background(), []byte(c.args)); res.IsError {
					b.Fatal(res.Text)
				}
			}
		})
	}
}

// BenchmarkFetchData measures a fetch of a JSON record (the 6 KB
// dashboard of TestFetchDataTokens, as json.Marshal writes it) given as
// Data, which the tools check and write again, beside its twin given as
// Text, inline.
func BenchmarkFetchData(b *testing.B) {
	data := marshalled(b)
	ctx := context.Background()
	for _, c := range []struct {
		name string
		doc  searchfetch.Document
	}{
		{"text", searchfetch.Document{Title: "API service", Text: string(data)}},
		{"data", searchfetch.Document{Title: "API service", Data: data}},
	} {
		tools := searchfetch.New(scripted{doc: c.doc}, &searchfetch.Options{Inline: true})
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if res := tools.Fetch(ctx, []byte(`{"id":"c1/dash:d1"}`)); res.IsError {
					b.Fatal(res.Text)
				}
			}
		})
	}
}
