package searchfetch_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// escapedArgs returns the fetch arguments {"id": id} as the most verbose
// client writes them: a space after ':', every non-ASCII rune as \uXXXX
// (a surrogate pair above U+FFFF), '<', '>' and '&' as Go's encoding/json
// writes them.
func escapedArgs(id string) []byte {
	var b strings.Builder
	b.WriteString(`{"id": "`)
	for _, r := range id {
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20 || r == '<' || r == '>' || r == '&' || (r >= 0x80 && r <= 0xFFFF):
			fmt.Fprintf(&b, `\u%04x`, r)
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteString(`"}`)
	return []byte(b.String())
}

// TestNoShownIDOverTheArgumentLimit: with a budget above the fetch tool's
// argument limit, search never shows an id whose fetch arguments, escaped
// as a client may escape them, exceed MaxArgumentsSize: such a hit is left
// out, counted and reported. Every id it shows fetches with its arguments
// so escaped.
func TestNoShownIDOverTheArgumentLimit(t *testing.T) {
	s := sealer(t)
	tests := []struct {
		name string
		base string // the hit's id, in connection c1
	}{
		{"ASCII, 70,024 bytes", strings.Repeat("a", 70_024)},
		{"CJK, a quarter of that in runes", strings.Repeat("文", 70_024/4)},
		{"above U+FFFF", strings.Repeat("𠀀", 6_000)},
		{"HTML-escaped bytes", strings.Repeat("<&>", 4_000)},
	}
	for _, tt := range tests {
		for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
			for _, sealed := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/sealed=%v", tt.name, mode, sealed), func(t *testing.T) {
					require.Less(t, len(tt.base), searchfetch.MaxArgumentsSize*2)
					opts := &searchfetch.Options{Mode: mode, Preview: mcpid.PreviewOptions{Budget: 1 << 20, MaxHits: 10}}
					if sealed {
						opts.Sealer = s
					}
					var reports []dropReport
					opts.OnDropped = reportsTo(t, &reports)
					b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{
						{ID: tt.base, ConnectionID: "c1", Title: "huge"},
						{ID: "orders:o1", ConnectionID: "c1", Title: "small"},
					}}}
					tools := searchfetch.New(b, opts)
					res := tools.Search(context.Background(), raw(`{"query":"q"}`))
					require.False(t, res.IsError, res.Text)
					want := "c1/orders:o1"
					if sealed {
						want = s.Seal(want)
					}
					assert.Equal(t, []string{want}, ids(mcpid.ExtractHits(res.Text)))
					assert.Equal(t, []dropReport{{0, tt.base, "the hit has an id whose fetch arguments would exceed 65536 bytes"}}, reports)
					if mode == searchfetch.ModeDefault {
						assert.Contains(t, string(res.StructuredContent), `"total":2`)
					}
				})
			}
		}
	}
}

// TestShownIDsFetchAtTheArgumentLimit: around the limit, an id is shown
// exactly when its escaped fetch arguments fit MaxArgumentsSize, and then
// fetch takes them.
func TestShownIDsFetchAtTheArgumentLimit(t *testing.T) {
	for _, unit := range []string{"a", "文", "𠀀", `"`, "<"} {
		for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
			t.Run(unit+"/"+mode.String(), func(t *testing.T) {
				b := &recorder{doc: searchfetch.Document{Title: "T"}}
				tools := searchfetch.New(b, &searchfetch.Options{Mode: mode, Preview: mcpid.PreviewOptions{Budget: 1 << 20}})
				// The most units whose arguments fit, found with the
				// reference writer.
				fit := sort.Search(searchfetch.MaxArgumentsSize, func(n int) bool {
					return len(escapedArgs("c1/:"+strings.Repeat(unit, n+1))) > searchfetch.MaxArgumentsSize
				})
				for _, n := range []int{fit - 1, fit, fit + 1, fit + 2} {
					base := strings.Repeat(unit, n)
					b.result = searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: base, ConnectionID: "c1"}}}
					res := tools.Search(context.Background(), raw(`{"query":"q"}`))
					args := escapedArgs("c1/:" + base)
					if len(args) > searchfetch.MaxArgumentsSize {
						requireError(t, res, mcpid.CodeInvalidResourceResponse)
						continue
					}
					require.False(t, res.IsError, "n=%d: %.200s", n, res.Text)
					require.Len(t, mcpid.ExtractHits(res.Text), 1, "n=%d", n)
					doc := tools.Fetch(context.Background(), args)
					require.False(t, doc.IsError, "n=%d: %.200s", n, doc.Text)
				}
			})
		}
	}
}
