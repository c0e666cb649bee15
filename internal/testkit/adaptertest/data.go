package adaptertest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/searchfetch"
)

// record is a searchfetch.Backend over Records whose documents are JSON
// records: data instead of text.
type record struct {
	Backend
	data json.RawMessage
}

// Fetch fetches as Backend does, with data as the document's Data.
func (r *record) Fetch(ctx context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	doc, err := r.Backend.Fetch(ctx, req)
	doc.Text, doc.Data = "", r.data
	return doc, err
}

// records: a document's Data reaches the client through the SDK as the
// result's data member, a JSON object in both channels, valid against the
// output schema; over the fetch budget it is text with data_as_text, and
// in ChatGPT mode always text.
func records(t *testing.T, connect Connect) {
	data := json.RawMessage(`{"uid":"rYdddlPWk","title":"API \u0026 jobs","panels":[{"id":1,"expr":"sum(rate(x{job=\"api\"}[5m])) > 0"}]}`)
	b := &record{data: data}
	var want any
	require.NoError(t, json.Unmarshal(data, &want))

	doc := requireDocument(t, connect(t, b, nil).Call(t, searchfetch.FetchName, map[string]any{"id": WantIDs[0]}))
	assert.Equal(t, want, doc["data"])
	assert.NotContains(t, doc, "text")

	small := connect(t, &record{data: json.RawMessage(`[` + string(data) + `,"` + pad(2<<10) + `"]`)},
		&searchfetch.Options{FetchBudget: searchfetch.MinFetchBudget})
	doc = requireDocument(t, small.Call(t, searchfetch.FetchName, map[string]any{"id": WantIDs[0]}))
	assert.Equal(t, true, doc["data_as_text"])
	assert.Equal(t, true, doc["truncated"])
	assert.IsType(t, "", doc["text"])

	chatGPT := connect(t, b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT})
	doc = requireDocument(t, chatGPT.Call(t, searchfetch.FetchName, map[string]any{"id": WantIDs[0]}))
	assert.Equal(t, `{"uid":"rYdddlPWk","title":"API & jobs","panels":[{"id":1,"expr":"sum(rate(x{job=\"api\"}[5m])) > 0"}]}`, doc["text"])
	assert.NotContains(t, doc, "data")
}

// pad returns n bytes of text.
func pad(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}
