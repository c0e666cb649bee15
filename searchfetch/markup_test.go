package searchfetch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/economy"
	"github.com/mcpid/mcpid/searchfetch"
)

// markup is a document of HTML, as a wiki or a mail gives it: tags,
// entities, ampersands in URLs, and a line separator pasted from a word
// processor.
var markup = strings.Repeat(`<div class="note"><p>Q3 &amp; Q4 <b>totals</b> &lt;draft&gt;:`+
	` see <a href="https://wiki.example.com/p?id=7&amp;v=2">the runbook</a>.</p>`+"\u2028"+
	`<ul><li>orders &gt; 100</li><li>refunds &lt; 5%</li></ul></div>`+"\n", 40)

// htmlEscaped is the JSON text b as encoding/json writes it by default:
// '<', '>' and '&' as \u003c, \u003e and \u0026, U+2028 and U+2029
// escaped too; what the tools wrote before.
func htmlEscaped(t *testing.T, b []byte) []byte {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	require.NoError(t, enc.Encode(v))
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// TestFetchMarkupUnescaped: a markup document is fetched, in both modes
// and both channels, with '<', '>', '&', U+2028 and U+2029 as they are:
// valid JSON that decodes to the document, fewer bytes and tokens than
// the HTML-escaped JSON, and more text in each part of a cut document.
func TestFetchMarkupUnescaped(t *testing.T) {
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		for _, budget := range []int{searchfetch.DefaultFetchBudget, 4000} {
			name := map[searchfetch.Mode]string{searchfetch.ModeDefault: "default", searchfetch.ModeChatGPT: "chatgpt"}[mode]
			t.Run(name+"/"+map[bool]string{true: "whole", false: "cut"}[budget > len(markup)], func(t *testing.T) {
				b := &recorder{doc: searchfetch.Document{Title: "Notes <Q3> & <Q4>", Text: markup, URL: "https://wiki.example.com/p?id=7&v=2"}}
				tools := searchfetch.New(b, &searchfetch.Options{Mode: mode, FetchBudget: budget})
				res := tools.Fetch(context.Background(), raw(`{"id":"c1/docs:d1"}`))
				require.False(t, res.IsError, res.Text)
				require.Equal(t, res.Text, string(res.StructuredContent), "both channels")
				out := []byte(res.Text)
				require.True(t, json.Valid(out))
				assert.LessOrEqual(t, len(out), budget)
				for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`} {
					assert.NotContains(t, res.Text, esc)
				}
				var doc struct {
					Title, Text, URL string
				}
				require.NoError(t, json.Unmarshal(out, &doc))
				assert.Equal(t, "Notes <Q3> & <Q4>", doc.Title)
				assert.Equal(t, "https://wiki.example.com/p?id=7&v=2", doc.URL)
				if budget > len(markup) {
					assert.Equal(t, markup, doc.Text)
				} else {
					assert.True(t, strings.HasPrefix(markup, strings.SplitN(doc.Text, "\n\n[The text is cut", 2)[0]))
				}
				before := htmlEscaped(t, out)
				tokens := economy.TokensPerID(t, res.Text, 1)
				tokensBefore := economy.TokensPerID(t, string(before), 1)
				t.Logf("%s, budget %d: %d bytes and %.0f o200k tokens per channel (HTML-escaped: %d bytes, %.0f tokens); %d bytes of text",
					name, budget, len(out), tokens, len(before), tokensBefore, len(doc.Text))
				assert.Less(t, len(out), len(before))
				assert.Less(t, tokens, tokensBefore)
			})
		}
	}
}

// TestSearchStructuredUnescaped: search's structuredContent writes
// '<', '>', '&', U+2028 and U+2029 of titles and snippets as they are, in
// both modes, and decodes to the text's values.
func TestSearchStructuredUnescaped(t *testing.T) {
	hit := mcpid.Hit{ID: "docs:d1", ConnectionID: "c1", Title: "a <b> & c\u2028d", Snippet: "<p>x\u2029y</p>", URL: "https://x.example/?a=1&b=2"}
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{hit}}}
		res := searchfetch.New(b, &searchfetch.Options{Mode: mode}).Search(context.Background(), raw(`{"query":"q"}`))
		require.False(t, res.IsError, res.Text)
		require.True(t, json.Valid(res.StructuredContent))
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`} {
			assert.NotContains(t, string(res.StructuredContent), esc, "mode %d", mode)
		}
		var out struct {
			Results []struct{ Title, Snippet, Text string }
		}
		require.NoError(t, json.Unmarshal(res.StructuredContent, &out))
		require.Len(t, out.Results, 1)
		assert.Equal(t, hit.Title, out.Results[0].Title)
		assert.Equal(t, hit.Snippet, out.Results[0].Snippet+out.Results[0].Text)
	}
}
