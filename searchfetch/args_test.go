package searchfetch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
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
		{"escaped key", searchfetch.ModeDefault, searchfetch.SearchName, `{"\u0071uery":"a"}`, true, "a"},
		{"surrogate pair", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":"\ud83d\ude00"}`, true, "\U0001F600"},
		{"invalid UTF-8 value", searchfetch.ModeDefault, searchfetch.SearchName, "{\"query\":\"a\xffb\"}", true, "a\uFFFDb"},
		{"bad escape", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":"\x"}`, false, ""},
		{"raw control character", searchfetch.ModeDefault, searchfetch.SearchName, "{\"query\":\"a\tb\"}", false, ""},
		{"trailing comma", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":"a",}`, false, ""},
		{"unterminated", searchfetch.ModeDefault, searchfetch.SearchName, `{"query":"a`, false, ""},
		{"key without value", searchfetch.ModeDefault, searchfetch.SearchName, `{"query"}`, false, ""},
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

// referenceArgs is a slow, plainly written reading of a call's arguments
// through encoding/json's tokens: the string value of each of names, ""
// when absent, or ok false. The first of names is required.
func referenceArgs(raw []byte, names ...string) (vals []string, ok bool) {
	if len(raw) > searchfetch.MaxArgumentsSize {
		return nil, false
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return nil, false // no required argument
	}
	if !json.Valid(raw) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return nil, false
	}
	vals = make([]string, len(names))
	seen := make([]bool, len(names))
	for dec.More() {
		key, _ := dec.Token()
		val, _ := dec.Token()
		s, isString := val.(string)
		i := slices.Index(names, key.(string))
		if i < 0 || seen[i] || !isString {
			return nil, false
		}
		vals[i], seen[i] = s, true
	}
	return vals, seen[0]
}

// FuzzArguments checks how both tools read their arguments against
// referenceArgs: the same verdict, and the same values reach the backend
// (for fetch, unless ResolveFetch rejects them first).
func FuzzArguments(f *testing.F) {
	for _, s := range []string{`{"query":"a"}`, `{"query":"\u00e9\n"}`, `{"\u0071uery":"a"}`, `{"query":"a","query":"b"}`,
		`{"query":5}`, `{"query":"a",}`, `[]`, `null`, ``, " {\t\"query\" :\r\"\\/\" } ", "{\"query\":\"\xff\"}", `{"query":"\ud800"}`,
		`{"id":"c1/orders:o1"}`, `{"id":"orders:o1","connection_id":"c1"}`, `{"connection_id":"c1","id":"s:r"}`,
		`{"id":"s:r","id":"s:r"}`, `{"id":"s:r","connection_id":null}`, `{"id":"s:r","connection_id":"c","connection_id":"c"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		b := &recorder{}
		tools := searchfetch.New(b, nil)
		res := tools.Search(context.Background(), raw)
		want, ok := referenceArgs(raw, "query")
		require.Equal(t, ok, !res.IsError, "search args %q: %s", raw, res.Text)
		if ok {
			require.Equal(t, want, b.queries)
		} else {
			require.Equal(t, searchfetch.CodeInvalidArguments, decodeCode(t, res), "search args %q", raw)
		}

		res = tools.Fetch(context.Background(), raw)
		want, ok = referenceArgs(raw, "id", "connection_id")
		if !ok {
			require.True(t, res.IsError, "fetch args %q: %s", raw, res.Text)
			require.Equal(t, searchfetch.CodeInvalidArguments, decodeCode(t, res), "fetch args %q", raw)
			return
		}
		if _, err := mcpid.ResolveFetch(want[0], want[1]); err != nil {
			require.True(t, res.IsError, "fetch args %q: %s", raw, res.Text)
			require.NotEqual(t, searchfetch.CodeInvalidArguments, decodeCode(t, res), "fetch args %q", raw)
			return
		}
		require.False(t, res.IsError, "fetch args %q: %s", raw, res.Text)
		require.Len(t, b.requests, 1)
		assert.Equal(t, want[0], b.requests[0].EchoID)
	})
}

// decodeCode returns the code of a tool error's envelope.
func decodeCode(t *testing.T, res searchfetch.Result) mcpid.Code {
	var e mcpid.Error
	require.NoError(t, json.Unmarshal(res.StructuredContent, &e))
	return e.Code
}
