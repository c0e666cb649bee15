package adaptertest

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// long is a searchfetch.Backend over Records whose documents all have
// text as their text.
type long struct {
	Backend
	text string
}

// Fetch fetches as Backend does, with text as the document's text.
func (l *long) Fetch(ctx context.Context, req mcpid.FetchRequest) (searchfetch.Document, error) {
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

	c = connect(t, b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, FetchBudget: budget})
	a := c.Call(t, searchfetch.FetchName, map[string]any{"id": WantIDs[0]})
	doc := requireDocument(t, a)
	assert.LessOrEqual(t, len(a.Texts[0]), budget)
	meta := doc["metadata"].(map[string]any)
	assert.Equal(t, "true", meta["truncated"])
	assert.Equal(t, strconv.Itoa(len(text)), meta["total_length"])
	assert.Contains(t, doc["text"], "\n\n[The text is cut here: ")
}
