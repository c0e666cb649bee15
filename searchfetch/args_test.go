package searchfetch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/searchfetch"
)

// TestArguments: arguments that break the input schema are typed
// invalid_arguments errors before any backend call; the rest reach the
// backend with their values.
func TestArguments(t *testing.T) {
	huge := `{"query":"` + strings.Repeat("a", searchfetch.MaxArgumentsSize) + `"}`
	longKey := `{"` + strings.Repeat("k", 1000) + `":"x"}`
	tests := []struct {
		name string
		mode searchfetch.Mode
		tool string
		args string
		ok   bool
		want string // the query or id that reaches the backend
	}{
		{"search", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":"refund"}`, true, "refund"},
		{"search with an empty query", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":""}`, true, ""},
		{"search with spaces around", searchfetch.ModeDefault, searchfetch.SearchName, " \n{ \"query\" : \"a b\" }\t", true, "a b"},
		{"search with escapes", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":"\u00e9\n\"x\""}`, true, "é\n\"x\""},
		{"chatgpt search", searchfetch.ModeChatGPT, searchfetch.SearchName, `{"query":"refund"}`, true, "refund"},
		{"fetch", searchfetch.ModeDefault, searchfetch.FetchName, `{"id":"orders:o1"}`, true, "orders:o1"},
		{"chatgpt fetch", searchfetch.ModeChatGPT, searchfetch.FetchName, `{"id":"orders:o1"}`, true, "orders:o1"},

		{"absent", searchfetch.ModeDefault, searchfetch.SearchName, ``, false, ""},
		{"null", searchfetch.ModeDefault, searchfetch.SearchName, `null`, false, ""},
		{"empty object", searchfetch.ModeDefault, searchfetch.SearchName, `{}`, false, ""},
		{"array", searchfetch.ModeDefault, searchfetch.SearchName, `["refund"]`, false, ""},
		{"string", searchfetch.ModeDefault, searchfetch.SearchName, `"refund"`, false, ""},
		{"not JSON", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":`, false, ""},
		{"trailing value", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":"a"}{"query":"b"}`, false, ""},
		{"trailing garbage", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":"a"}x`, false, ""},
		{"number", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":5}`, false, ""},
		{"null value", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":null}`, false, ""},
		{"object value", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":{"q":"a"}}`, false, ""},
		{"array value", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":["a"]}`, false, ""},
		{"given twice", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":"a","query":"b"}`, false, ""},
		{"other case", searchfetch.ModeDefault, searchfetch.SearchName, `{"Query":"a"}`, false, ""},
		{"unknown", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":"a","limit":"3"}`, false, ""},
		{"unknown long key", searchfetch.ModeDefault, searchfetch.SearchName, longKey, false, ""},
		{"too large", searchfetch.ModeDefault, searchfetch.SearchName, huge, false, ""},
		{"fetch without id", searchfetch.ModeDefault, searchfetch.FetchName, `{"connection_id":"c1"}`, false, ""},
		{"fetch id a number", searchfetch.ModeDefault, searchfetch.FetchName, `{"id":17}`, false, ""},
		{"fetch connection_id a number", searchfetch.ModeDefault, searchfetch.FetchName, `{"id":"orders:o1","connection_id":1}`, false, ""},
		{"chatgpt fetch with connection_id", searchfetch.ModeChatGPT, searchfetch.FetchName, `{"id":"orders:o1","connection_id":"c1"}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{}
			tools := searchfetch.New(b, &searchfetch.Options{Mode: tt.mode})
			call := tools.Search
			if tt.tool == searchfetch.FetchName {
				call = tools.Fetch
			}
			res := call(context.Background(), raw(tt.args))
			if !tt.ok {
				e := requireError(t, res, searchfetch.CodeInvalidArguments)
				assert.Equal(t, 0, b.calls(), "backend calls")
				assert.LessOrEqual(t, len(res.Text), 1024, "the envelope does not echo huge input")
				assert.NotEmpty(t, e.Hint())
				return
			}
			require.False(t, res.IsError, res.Text)
			if tt.tool == searchfetch.SearchName {
				assert.Equal(t, []string{tt.want}, b.queries)
			} else {
				require.Len(t, b.requests, 1)
				assert.Equal(t, tt.want, b.requests[0].EchoID)
			}
		})
	}
}
