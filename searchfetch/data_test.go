package searchfetch_test

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/adaptertest"
	"github.com/mcpid/mcpid/internal/testkit/economy"
	"github.com/mcpid/mcpid/searchfetch"
)

// dashboard is a Grafana dashboard as its API returns it (6 KB compact):
// PromQL with quoted labels, links with '&', markdown with HTML.
//
//go:embed testdata/dashboard.json
var dashboard []byte

// marshalled returns the dashboard as a Go backend writes it with
// json.Marshal: compact, its keys sorted, and '<', '>', '&' escaped.
func marshalled(t testing.TB) []byte {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(dashboard, &v))
	b, err := json.Marshal(v)
	require.NoError(t, err)
	require.Contains(t, string(b), `\u0026`, "the fixture has what json.Marshal escapes")
	return b
}

// dataResult is the JSON of a fetch result in ModeDefault, members absent
// as nil.
type dataResult struct {
	Text        *string         `json:"text"`
	Data        json.RawMessage `json:"data"`
	DataAsText  *bool           `json:"data_as_text"`
	Truncated   *bool           `json:"truncated"`
	TotalLength *int            `json:"total_length"`
	NextOffset  *int            `json:"next_offset"`
}

// fetchData returns the fetch result of args from tools, checked: the
// same JSON in both channels, valid against the fetch tool's output
// schema, within budget; and decoded.
func fetchData(t *testing.T, tools *searchfetch.Tools, args string, budget int) (searchfetch.Result, dataResult) {
	t.Helper()
	res := tools.Fetch(context.Background(), raw(args))
	require.False(t, res.IsError, res.Text)
	require.Equal(t, res.Text, string(res.StructuredContent), "text and structuredContent")
	assert.LessOrEqual(t, len(res.Text), budget)
	var structured any
	require.NoError(t, json.Unmarshal(res.StructuredContent, &structured))
	assert.NoError(t, adaptertest.Resolve(t, tools.FetchTool().OutputSchema).Validate(structured), "against the output schema: %s", res.Text)
	var got dataResult
	require.NoError(t, json.Unmarshal([]byte(res.Text), &got))
	return res, got
}

// TestFetchData: a document's Data is the result's data member in both
// channels, with no text member, as the tools write JSON: compact, a
// backend's own escapes ('<', '>', '&', U+2028 as json.Marshal writes
// them, \u00e9) written as the characters, JSON's own (\" \\ \n, control
// bytes) kept, bytes that are not UTF-8 as U+FFFD, members in their order,
// numbers as written.
func TestFetchData(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"object, as json.Marshal writes it",
			"{\n  \"title\": \"a \\u003cb\\u003e \\u0026 c\",\n  \"q\": \"rate(x{job=\\\"api\\\"}[5m])\",\n  \"n\": 1.50,\n  \"list\": [1, true, null, {}],\n  \"sep\": \"x\\u2028y\"\n}",
			"{\"title\":\"a <b> & c\",\"q\":\"rate(x{job=\\\"api\\\"}[5m])\",\"n\":1.50,\"list\":[1,true,null,{}],\"sep\":\"x\u2028y\"}"},
		{"array", ` [ {"a" : "caf\u00e9"} , 2e3 ] `, `[{"a":"café"},2e3]`},
		{"JSON's own escapes", `{"s":"line\nnext \\ \"q\" \u0001 \/"}`, `{"s":"line\nnext \\ \"q\" \u0001 /"}`},
		{"not UTF-8", "{\"s\":\"a\xffb\"}", "{\"s\":\"a\ufffdb\"}"},
		{"an escaped backslash before u2028", `{"s":"\\u2028"}`, `{"s":"\\u2028"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{doc: searchfetch.Document{Title: "Dash", Data: json.RawMessage(tt.data), URL: "https://grafana.example/d/1"}}
			tools := searchfetch.New(b, nil)
			res, got := fetchData(t, tools, `{"id":"c1/dash:d1"}`, searchfetch.DefaultFetchBudget)
			want := `{"id":"c1/dash:d1","title":"Dash","data":` + tt.want + `,"url":"https://grafana.example/d/1"}`
			if diff := cmp.Diff(want, res.Text); diff != "" {
				t.Errorf("fetch result (-want +got):\n%s", diff)
			}
			assert.Nil(t, got.Text, "no text member beside data")
			assert.Nil(t, got.DataAsText)
		})
	}
}

// TestFetchDataRefused: a document with both Text and Data, or with Data
// that is not one JSON object or array, is invalid_resource_response; the
// model reads the tools' words, and the log the tool, the connection and
// why.
func TestFetchDataRefused(t *testing.T) {
	tests := []struct {
		name    string
		doc     searchfetch.Document
		message string
		why     string // in the log only; "" when the message says it all
	}{
		{"text and data", searchfetch.Document{Text: "t", Data: json.RawMessage(`{}`)},
			"the source returned a document with both text and data", ""},
		{"not JSON", searchfetch.Document{Data: json.RawMessage(`{"a":`)},
			"the source returned data that is not a JSON object or array", "unexpected end of JSON input"},
		{"a string", searchfetch.Document{Data: json.RawMessage(`"{}"`)},
			"the source returned data that is not a JSON object or array", `starts with '\"'`},
		{"a number", searchfetch.Document{Data: json.RawMessage(` 42`)},
			"the source returned data that is not a JSON object or array", "starts with '4'"},
		{"null", searchfetch.Document{Data: json.RawMessage(`null`)},
			"the source returned data that is not a JSON object or array", "starts with 'n'"},
		{"two values", searchfetch.Document{Data: json.RawMessage(`{} {}`)},
			"the source returned data that is not a JSON object or array", "after top-level value"},
	}
	for _, tt := range tests {
		for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
			t.Run(tt.name+"/"+mode.String(), func(t *testing.T) {
				var log bytes.Buffer
				b := &recorder{doc: tt.doc}
				tools := searchfetch.New(b, &searchfetch.Options{Mode: mode, Logger: slog.New(slog.NewTextHandler(&log, nil))})
				res := tools.Fetch(context.Background(), raw(`{"id":"c1/dash:d1"}`))
				e := requireError(t, res, mcpid.CodeInvalidResourceResponse)
				assert.Equal(t, tt.message, e.Message())
				assert.Equal(t, "report the source as faulty", e.Hint())
				assert.Contains(t, log.String(), "level=ERROR")
				assert.Contains(t, log.String(), "tool=fetch connection_id=c1")
				assert.Contains(t, log.String(), tt.message)
				if tt.why != "" {
					assert.NotContains(t, res.Text, tt.why)
					assert.Contains(t, log.String(), tt.why)
				}
			})
		}
	}
}

// TestFetchDataOverBudget: Data that does not fit the fetch budget is
// given as text, its compact JSON, marked "data_as_text": true in every
// part, and read by offsets as any text: the parts joined are the data as
// the data member would have held it. An offset other than 0 reads the
// text even of data that fits; one past its end is refused.
func TestFetchDataOverBudget(t *testing.T) {
	data := marshalled(t)
	b := &recorder{doc: searchfetch.Document{Title: "API service", Data: data}}
	whole := searchfetch.New(b, nil)
	_, fits := fetchData(t, whole, `{"id":"c1/dash:d1"}`, searchfetch.DefaultFetchBudget)
	require.NotNil(t, fits.Data, "at the default budget the dashboard is data")
	compact := string(fits.Data)

	for _, budget := range []int{searchfetch.MinFetchBudget, 4000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			tools := searchfetch.New(b, &searchfetch.Options{FetchBudget: budget})
			var all strings.Builder
			args := `{"id":"c1/dash:d1"}`
			for offset, parts := 0, 0; ; parts++ {
				require.Less(t, parts, len(compact), "no progress")
				_, got := fetchData(t, tools, args, budget)
				require.NotNil(t, got.Text, "given as text")
				assert.Nil(t, got.Data)
				require.NotNil(t, got.DataAsText, "the result says the data is given as text")
				assert.True(t, *got.DataAsText)
				all.WriteString(*got.Text)
				if got.Truncated == nil {
					break
				}
				assert.Equal(t, len(compact), *got.TotalLength)
				require.Equal(t, offset+len(*got.Text), *got.NextOffset)
				offset = *got.NextOffset
				args = fmt.Sprintf(`{"id":"c1/dash:d1","offset":%d}`, offset)
			}
			assert.Equal(t, compact, all.String(), "the parts joined are the data")
		})
	}
	t.Run("offset into data that fits", func(t *testing.T) {
		_, got := fetchData(t, whole, `{"id":"c1/dash:d1","offset":10}`, searchfetch.DefaultFetchBudget)
		require.NotNil(t, got.Text)
		assert.Equal(t, compact[10:], *got.Text)
		assert.True(t, *got.DataAsText)
		_, got = fetchData(t, whole, `{"id":"c1/dash:d1","offset":0}`, searchfetch.DefaultFetchBudget)
		assert.Equal(t, compact, string(got.Data), "offset 0 is the start: data")
	})
	t.Run("offset past the end", func(t *testing.T) {
		res := whole.Fetch(context.Background(), raw(fmt.Sprintf(`{"id":"c1/dash:d1","offset":%d}`, len(compact)+1)))
		e := requireError(t, res, searchfetch.CodeInvalidArguments)
		assert.Equal(t, searchfetch.FieldOffset, e.Field)
	})
}

// TestFetchDataChatGPT: OpenAI's document shape has no data member, so in
// ModeChatGPT Data is always the text, its compact JSON, cut as any text.
func TestFetchDataChatGPT(t *testing.T) {
	data := marshalled(t)
	b := &recorder{doc: searchfetch.Document{Title: "API service", Data: data}}
	def := searchfetch.New(b, nil)
	_, fits := fetchData(t, def, `{"id":"c1/dash:d1"}`, searchfetch.DefaultFetchBudget)
	for _, budget := range []int{searchfetch.DefaultFetchBudget, 4000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			tools := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, FetchBudget: budget})
			res := tools.Fetch(context.Background(), raw(`{"id":"c1/dash:d1"}`))
			require.False(t, res.IsError, res.Text)
			require.Equal(t, res.Text, string(res.StructuredContent))
			var structured any
			require.NoError(t, json.Unmarshal(res.StructuredContent, &structured))
			assert.NoError(t, adaptertest.Resolve(t, tools.FetchTool().OutputSchema).Validate(structured))
			var got struct {
				Text     string            `json:"text"`
				Data     json.RawMessage   `json:"data"`
				Metadata map[string]string `json:"metadata"`
			}
			require.NoError(t, json.Unmarshal([]byte(res.Text), &got))
			assert.Nil(t, got.Data)
			if budget == searchfetch.DefaultFetchBudget {
				assert.Equal(t, string(fits.Data), got.Text, "the data's compact JSON")
				return
			}
			assert.Equal(t, "true", got.Metadata["truncated"])
			assert.True(t, strings.HasPrefix(got.Text, string(fits.Data[:1000])), "the data's compact JSON, cut")
		})
	}
}

// TestFetchDataTokens reports what a model pays for a JSON record (a 6 KB
// Grafana dashboard, as a Go backend's json.Marshal writes it) fetched as
// Text, an escaped string, and as Data, in each channel, in o200k tokens;
// and checks that Data costs at least a tenth less.
func TestFetchDataTokens(t *testing.T) {
	data := marshalled(t)
	asText := searchfetch.New(&recorder{doc: searchfetch.Document{Title: "API service", Text: string(data)}}, nil)
	asData := searchfetch.New(&recorder{doc: searchfetch.Document{Title: "API service", Data: data}}, nil)
	text, _ := fetchData(t, asText, `{"id":"c1/dash:d1"}`, searchfetch.DefaultFetchBudget)
	structured, got := fetchData(t, asData, `{"id":"c1/dash:d1"}`, searchfetch.DefaultFetchBudget)
	require.NotNil(t, got.Data)
	for _, c := range []struct {
		channel    string
		text, data string
	}{
		{"text", text.Text, structured.Text},
		{"structuredContent", string(text.StructuredContent), string(structured.StructuredContent)},
	} {
		tt, dt := economy.TokensPerID(t, c.text, 1), economy.TokensPerID(t, c.data, 1)
		t.Logf("%s: as Text %.0f o200k tokens (%d bytes), as Data %.0f (%d bytes): %.1f%% fewer",
			c.channel, tt, len(c.text), dt, len(c.data), 100*(tt-dt)/tt)
		assert.Less(t, dt, 0.9*tt, c.channel)
	}
}
