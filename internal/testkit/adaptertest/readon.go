package adaptertest

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/searchfetch"
)

// long is a searchfetch.Backend over Records whose documents all have
// text as their text.
type long struct {
	Backend
	text string
}

// Fetch fetches as Backend does, with text as the document's text.
func (l *long) Fetch(ctx context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	doc, err := l.Backend.Fetch(ctx, req)
	doc.Text = l.text
	return doc, err
}

// readOn: a document longer than the fetch budget is read to its end by
// offsets through the SDK, each part within the budget, its
// structuredContent valid against the output schema and equal to its
// text; an offset that is not an integer is refused about offset; ChatGPT
// mode marks the cut in metadata.
func readOn(t *testing.T, connect Connect) {
	const budget = 8 << 10
	text := strings.Repeat(`Refund "policy" <30 days> & 返金 🙂`+"\n", 3000)
	b := &long{text: text}
	c := connect(t, b, &searchfetch.Options{FetchBudget: budget})
	var all strings.Builder
	args := map[string]any{"id": WantIDs[0]}
	for part := 0; ; part++ {
		require.Less(t, part, len(text), "no progress")
		a := c.Call(t, searchfetch.FetchName, args)
		doc := requireDocument(t, a)
		assert.LessOrEqual(t, len(a.Texts[0]), budget, "part %d", part)
		all.WriteString(doc["text"].(string))
		if doc["truncated"] == nil {
			break
		}
		assert.Equal(t, true, doc["truncated"])
		assert.Equal(t, float64(len(text)), doc["total_length"])
		args = map[string]any{"id": WantIDs[0], "offset": doc["next_offset"]}
	}
	assert.True(t, all.String() == text, "the parts joined are the text")

	for _, offset := range []any{1.5, "3", -1} {
		a := c.Call(t, searchfetch.FetchName, map[string]any{"id": WantIDs[0], "offset": offset})
		e := RequireToolError(t, a, searchfetch.CodeInvalidArguments)
		assert.Equal(t, searchfetch.FieldOffset, e.Field, "offset %v", offset)
	}
	wholeOffsets(t, c, text)

	c = connect(t, b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, FetchBudget: budget})
	a := c.Call(t, searchfetch.FetchName, map[string]any{"id": WantIDs[0]})
	doc := requireDocument(t, a)
	assert.LessOrEqual(t, len(a.Texts[0]), budget)
	meta := doc["metadata"].(map[string]any)
	assert.Equal(t, "true", meta["truncated"])
	assert.Equal(t, strconv.Itoa(len(text)), meta["total_length"])
	assert.Contains(t, doc["text"], "\n\n[The text is cut here: ")
}

// wholeOffsets: an offset written as JSON Schema's "integer" allows, with
// a fraction of zeros, an exponent or a minus zero, reads from that
// integer through the SDK, as a client that prints every number as a
// float sends it; a fraction too small for a float64, and an exponent
// beyond ±30, are refused about offset. (A number beyond a float64's
// range, such as 1e400, mcp-go refuses itself, as a JSON-RPC error, before
// any tool runs.)
func wholeOffsets(t *testing.T, c Client, text string) {
	args := func(offset string) json.RawMessage {
		return json.RawMessage(`{"id":"` + WantIDs[0] + `","offset":` + offset + `}`)
	}
	for _, tt := range []struct {
		offset string
		want   int
	}{
		{`-0`, 0}, {`0.0`, 0}, {`1.0`, 1}, {`10e-1`, 1}, {`1e3`, 1000}, {`1E+3`, 1000}, {`2.5e1`, 25},
	} {
		a := c.Call(t, searchfetch.FetchName, args(tt.offset))
		doc := requireDocument(t, a)
		assert.True(t, strings.HasPrefix(text[tt.want:], doc["text"].(string)), "offset %s reads from %d", tt.offset, tt.want)
	}
	for _, offset := range []string{`1e31`, `1e-31`, `1e300`, `-1.0`} {
		a := c.Call(t, searchfetch.FetchName, args(offset))
		e := RequireToolError(t, a, searchfetch.CodeInvalidArguments)
		assert.Equal(t, searchfetch.FieldOffset, e.Field, "offset %s", offset)
	}
	t.Run("an offset only float64 rounding makes whole", func(t *testing.T) {
		if why := argumentsDecoded(c); why != "" {
			t.Skip("an offset read as written: " + why)
		}
		a := c.Call(t, searchfetch.FetchName, args(`1.0000000000000001`))
		e := RequireToolError(t, a, searchfetch.CodeInvalidArguments)
		assert.Equal(t, searchfetch.FieldOffset, e.Field)
	})
}

// ArgumentsDecoder is a Client whose SDK may hand the tools a call's
// arguments decoded and re-encoded, rather than as the client sent them.
// ArgumentsDecoded returns why, or "" when the SDK hands them as sent; it
// must tell by the SDK's behaviour, not its version. What only the bytes
// as sent can show (a member given twice, a number only float64 rounding
// makes whole) is then skipped, by a test that names it.
type ArgumentsDecoder interface {
	ArgumentsDecoded() string
}

// argumentsDecoded returns c's ArgumentsDecoded, or "" for a Client that
// is no ArgumentsDecoder.
func argumentsDecoded(c Client) string {
	if d, ok := c.(ArgumentsDecoder); ok {
		return d.ArgumentsDecoded()
	}
	return ""
}
