package searchfetch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// TestErrorEnvelopeUnescaped: an error envelope is written as the tools'
// other JSON is, in both channels: '<', '>', '&', U+2028 and U+2029 as
// they are, where encoding/json would write \u003c and so on, 6 bytes
// for one. It still decodes into the same error.
func TestErrorEnvelopeUnescaped(t *testing.T) {
	const id = "a<b>&c\u2028d\u2029"
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			tools := searchfetch.New(&recorder{}, &searchfetch.Options{Mode: mode, Sealer: sealer(t)})
			res := tools.Fetch(context.Background(), mustArgs(t, id))
			e := requireError(t, res, mcpid.CodeUnknownID)
			assert.Equal(t, id, e.Input)
			assert.Contains(t, res.Text, `"id":"`+id+`"`)
			for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`, `\u2028`, `\u2029`} {
				assert.NotContains(t, res.Text, esc)
				assert.NotContains(t, string(res.StructuredContent), esc)
			}
			var back mcpid.Error
			require.NoError(t, json.Unmarshal(res.StructuredContent, &back))
			assert.Equal(t, mcpid.CodeUnknownID, back.Code)
			assert.Equal(t, id, back.Input)
		})
	}
	res := searchfetch.ErrorResult(mcpid.NewError(mcpid.CodeNotFound, "no <record> & no \u2028 line", ""))
	assert.Contains(t, res.Text, `"message":"no <record> & no `+"\u2028"+` line"`)
	assert.Equal(t, res.Text, string(res.StructuredContent))
}
