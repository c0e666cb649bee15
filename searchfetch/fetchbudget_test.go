package searchfetch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// cutResult is the JSON of a fetch result in ModeDefault, with the members
// of a cut text as pointers, nil when absent.
type cutResult struct {
	ID          string            `json:"id"`
	Title       string            `json:"title"`
	Text        string            `json:"text"`
	URL         string            `json:"url"`
	Metadata    map[string]string `json:"metadata"`
	Truncated   *bool             `json:"truncated"`
	TotalLength *int              `json:"total_length"`
	NextOffset  *int              `json:"next_offset"`
}

// texts are documents' texts that stress the budget: multi-byte runes of
// every length, and bytes that JSON escapes (quotes, backslashes, <, >, &,
// control bytes, U+2028), each repeated to size bytes or a little more.
func texts(size int) map[string]string {
	grow := func(unit string) string { return strings.Repeat(unit, size/len(unit)+1) }
	return map[string]string{
		"ascii":         grow("The quick brown fox jumps over the lazy dog. "),
		"multi-byte":    grow("é 中文 ж 🙂 𝄞 ü — "),
		"escape-heavy":  grow(`"<>&\` + "\n\t\x01\x1f\u2028\u2029'"),
		"mixed":         grow("plain text, \"quoted\" <b>bold</b> & 日本語 🙂\n"),
		"all escapes":   grow("<"),
		"four-byte all": grow("𝄞"),
	}
}

// readAll fetches id from tools by offsets until a result is not cut,
// checking each part, and returns the parts joined.
func readAll(t *testing.T, tools *searchfetch.Tools, budget, total int) (string, int) {
	return readAllOf(t, tools, budget, total, true)
}

// readAllOf is readAll; exact tells that each part's text has as many bytes
// as its offsets count, which a text that is not valid UTF-8 has not.
func readAllOf(t *testing.T, tools *searchfetch.Tools, budget, total int, exact bool) (string, int) {
	t.Helper()
	var all strings.Builder
	args := `{"id":"c1/docs:d1"}`
	calls := 0
	for offset := 0; ; calls++ {
		require.Less(t, calls, total+1, "no progress")
		res := tools.Fetch(context.Background(), raw(args))
		require.False(t, res.IsError, res.Text)
		assert.LessOrEqual(t, len(res.Text), budget, "text at offset %d", offset)
		require.Equal(t, res.Text, string(res.StructuredContent), "text and structuredContent")
		var got cutResult
		require.NoError(t, json.Unmarshal([]byte(res.Text), &got))
		assert.Equal(t, "c1/docs:d1", got.ID)
		all.WriteString(got.Text)
		if got.Truncated == nil {
			assert.Nil(t, got.TotalLength, "total_length without truncated")
			assert.Nil(t, got.NextOffset, "next_offset without truncated")
			return all.String(), calls + 1
		}
		assert.True(t, *got.Truncated)
		require.NotNil(t, got.TotalLength)
		require.NotNil(t, got.NextOffset)
		assert.Equal(t, total, *got.TotalLength)
		if exact {
			require.Equal(t, offset+len(got.Text), *got.NextOffset, "next_offset")
		}
		require.Greater(t, *got.NextOffset, offset, "progress")
		offset = *got.NextOffset
		args = fmt.Sprintf(`{"id":"c1/docs:d1","offset":%d}`, offset)
	}
}

// TestFetchReadOn: a document longer than the budget is read to its end by
// offsets: every part fits the budget, escapes included, and the parts
// joined are the text.
func TestFetchReadOn(t *testing.T) {
	t.Run("5 MiB", func(t *testing.T) {
		text := texts(5 << 20)["mixed"]
		b := &recorder{doc: searchfetch.Document{Title: "Big", Text: text, URL: "https://docs.example.com/d1"}}
		tools := searchfetch.New(b, nil)
		got, calls := readAll(t, tools, searchfetch.DefaultFetchBudget, len(text))
		assert.True(t, got == text, "the parts joined are the text")
		assert.Greater(t, calls, (5<<20)/searchfetch.DefaultFetchBudget, "parts")
	})
	for name, text := range texts(40 << 10) {
		for _, budget := range []int{searchfetch.MinFetchBudget, 4000, 9999} {
			t.Run(fmt.Sprintf("%s/%d", name, budget), func(t *testing.T) {
				b := &recorder{doc: searchfetch.Document{Title: "T \"quoted\" <x>", Text: text, Metadata: map[string]string{"k": "v"}}}
				tools := searchfetch.New(b, &searchfetch.Options{FetchBudget: budget})
				got, _ := readAll(t, tools, budget, len(text))
				assert.True(t, got == text, "the parts joined are the text")
			})
		}
	}
	t.Run("invalid UTF-8", func(t *testing.T) {
		text := strings.Repeat("ab\xffc\xe4\xb8 一\x80\x80中\xf0\x9f", 1000)
		b := &recorder{doc: searchfetch.Document{Text: text}}
		tools := searchfetch.New(b, &searchfetch.Options{FetchBudget: searchfetch.MinFetchBudget})
		whole, err := json.Marshal(text)
		require.NoError(t, err)
		var valid string // the text as encoding/json writes it whole
		require.NoError(t, json.Unmarshal(whole, &valid))
		require.NotEqual(t, text, valid)
		got, _ := readAllOf(t, tools, searchfetch.MinFetchBudget, len(text), false)
		assert.True(t, got == valid, "each invalid byte reads as U+FFFD")
	})
}

// TestFetchBudgetFits: a result that fits is the document's JSON as it
// is, without the members of a cut, from offset 0 or from an offset.
func TestFetchBudgetFits(t *testing.T) {
	b := &recorder{doc: searchfetch.Document{Title: "T", Text: "héllo <world>"}}
	tools := searchfetch.New(b, nil)
	for _, tt := range []struct{ args, want string }{
		{`{"id":"c1/docs:d1"}`, `{"id":"c1/docs:d1","title":"T","text":"héllo <world>","url":""}`},
		{`{"id":"c1/docs:d1","offset":0}`, `{"id":"c1/docs:d1","title":"T","text":"héllo <world>","url":""}`},
		{`{"id":"c1/docs:d1","offset":3}`, `{"id":"c1/docs:d1","title":"T","text":"llo <world>","url":""}`},
		{`{"id":"c1/docs:d1","offset":14}`, `{"id":"c1/docs:d1","title":"T","text":"","url":""}`},
	} {
		res := tools.Fetch(context.Background(), raw(tt.args))
		require.False(t, res.IsError, res.Text)
		if diff := cmp.Diff(tt.want, res.Text); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestFetchOffsetRefused: an offset that is not a whole number of bytes
// from 0 to the text's length, at the start of a character, is an
// invalid_arguments error about offset; one that JSON alone refuses never
// reaches the backend.
func TestFetchOffsetRefused(t *testing.T) {
	const text = "aé中🙂" // bytes 0, 1, 3, 6; 10 in all
	tests := []struct {
		name, offset string
		backend      bool // the backend is called: the text decides
	}{
		{"negative", `-1`, false},
		{"negative written with an exponent", `-1e0`, false},
		{"fraction", `1.5`, false},
		{"fraction below a float's precision", `1.0000000000000001`, false},
		{"fraction by its exponent", `15e-1`, false},
		{"exponent beyond 30", `1e31`, false},
		{"negative exponent beyond 30", `10e-31`, false},
		{"zero with a huge exponent", `0e999999999999999999999`, false},
		{"bare minus", `-`, false},
		{"no fraction digits", `1.`, false},
		{"no exponent digits", `1e`, false},
		{"plus sign", `+1`, false},
		{"two signs", `1e+-1`, false},
		{"string", `"3"`, false},
		{"null", `null`, false},
		{"boolean", `true`, false},
		{"leading zero", `03`, false},
		{"object", `{}`, false},
		{"past the end", `11`, true},
		{"far past the end", `99999999999999999999999`, true},
		{"inside é", `2`, true},
		{"inside 中", `5`, true},
		{"inside 🙂", `9`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recorder{doc: searchfetch.Document{Text: text}}
			res := searchfetch.New(b, nil).Fetch(context.Background(), raw(`{"id":"c1/docs:d1","offset":`+tt.offset+`}`))
			e := requireError(t, res, searchfetch.CodeInvalidArguments)
			assert.Equal(t, searchfetch.FieldOffset, e.Field)
			assert.Contains(t, res.Text, `"field":"offset"`)
			assert.Equal(t, tt.backend, b.calls() == 1, "backend called")
		})
	}
	t.Run("a whole number in any notation is taken", func(t *testing.T) {
		for _, tt := range []struct {
			offset string
			want   int
		}{
			{`-0`, 0}, {`0.0`, 0}, {`-0.0e5`, 0}, {`0e-30`, 0}, {`1.0`, 1}, {`10e-1`, 1}, {`0.1e1`, 1},
			{`3.000`, 3}, {`3E0`, 3}, {`1e1`, 10}, {`1E+1`, 10}, {`100e-1`, 10}, {`6.0e0`, 6},
			{`1000000000000000000000000000000e-30`, 1}, {`0.000000000000000000000000000001e30`, 1},
		} {
			b := &recorder{doc: searchfetch.Document{Text: text}}
			res := searchfetch.New(b, nil).Fetch(context.Background(), raw(`{"id":"c1/docs:d1","offset":`+tt.offset+`}`))
			require.False(t, res.IsError, "offset %s: %s", tt.offset, res.Text)
			var got cutResult
			require.NoError(t, json.Unmarshal([]byte(res.Text), &got))
			assert.Equal(t, text[tt.want:], got.Text, "offset %s", tt.offset)
		}
	})
	t.Run("an integer past the end is read as one", func(t *testing.T) {
		for _, offset := range []string{`1e3`, `1e30`, `99999999999999999999999.0`} {
			b := &recorder{doc: searchfetch.Document{Text: text}}
			res := searchfetch.New(b, nil).Fetch(context.Background(), raw(`{"id":"c1/docs:d1","offset":`+offset+`}`))
			e := requireError(t, res, searchfetch.CodeInvalidArguments)
			assert.Equal(t, searchfetch.FieldOffset, e.Field)
			assert.Contains(t, e.Message(), "past the end", "offset %s", offset)
		}
	})
	t.Run("every boundary is taken", func(t *testing.T) {
		for _, offset := range []int{0, 1, 3, 6, 10} {
			b := &recorder{doc: searchfetch.Document{Text: text}}
			res := searchfetch.New(b, nil).Fetch(context.Background(), raw(fmt.Sprintf(`{"id":"c1/docs:d1","offset":%d}`, offset)))
			require.False(t, res.IsError, res.Text)
			var got cutResult
			require.NoError(t, json.Unmarshal([]byte(res.Text), &got))
			assert.Equal(t, text[offset:], got.Text)
		}
	})
	t.Run("ChatGPT mode takes none", func(t *testing.T) {
		b := &recorder{doc: searchfetch.Document{Text: text}}
		res := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT}).Fetch(context.Background(), raw(`{"id":"c1/docs:d1","offset":0}`))
		requireError(t, res, searchfetch.CodeInvalidArguments)
		assert.Equal(t, 0, b.calls())
	})
}

// TestFetchCutChatGPT: ChatGPT mode cuts the text from its start, says so
// at its end and in metadata, and leaves the backend's metadata map as it
// was.
func TestFetchCutChatGPT(t *testing.T) {
	for name, text := range texts(100 << 10) {
		t.Run(name, func(t *testing.T) {
			meta := map[string]string{"source": "wiki"}
			b := &recorder{doc: searchfetch.Document{Title: "Big", Text: text, URL: "https://docs.example.com/d1", Metadata: meta}}
			const budget = 10 << 10 // Codex CLI's
			tools := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, FetchBudget: budget})
			res := tools.Fetch(context.Background(), raw(`{"id":"c1/docs:d1"}`))
			require.False(t, res.IsError, res.Text)
			assert.LessOrEqual(t, len(res.Text), budget)
			assert.Equal(t, res.Text, string(res.StructuredContent))
			var doc searchfetch.Document
			require.NoError(t, json.Unmarshal([]byte(res.Text), &doc))
			want := map[string]string{"source": "wiki", "truncated": "true", "total_length": fmt.Sprint(len(text))}
			if diff := cmp.Diff(want, doc.Metadata); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
			assert.Equal(t, map[string]string{"source": "wiki"}, meta, "the backend's map")
			shown, note, ok := strings.Cut(doc.Text, "\n\n[The text is cut here: ")
			require.True(t, ok, "a note says the text was cut: %q", doc.Text[max(0, len(doc.Text)-100):])
			assert.Equal(t, fmt.Sprintf("these are the first %d of its %d bytes.]", len(shown), len(text)), note)
			assert.True(t, strings.HasPrefix(text, shown), "the text's start")
			assert.True(t, utf8.ValidString(shown))
			assert.Greater(t, len(shown), budget/8, "the budget is used")
		})
	}
}

// TestFetchNoRoom: a document whose other fields fill the budget is an
// invalid_resource_response error in both modes, not an answer over
// budget; one whose text fits beside them is answered whole.
func TestFetchNoRoom(t *testing.T) {
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		t.Run(mode.String(), func(t *testing.T) {
			opts := &searchfetch.Options{Mode: mode, FetchBudget: searchfetch.MinFetchBudget}
			b := &recorder{doc: searchfetch.Document{Title: strings.Repeat("t", searchfetch.MinFetchBudget), Text: "some text"}}
			requireError(t, searchfetch.New(b, opts).Fetch(context.Background(), raw(`{"id":"c1/docs:d1"}`)), mcpid.CodeInvalidResourceResponse)
			b = &recorder{doc: searchfetch.Document{Title: strings.Repeat("t", searchfetch.MinFetchBudget-100), Text: "some text"}}
			res := searchfetch.New(b, opts).Fetch(context.Background(), raw(`{"id":"c1/docs:d1"}`))
			require.False(t, res.IsError, res.Text)
			assert.Contains(t, res.Text, `"text":"some text"`)
		})
	}
}

// TestFetchBudgetOption: 0 means DefaultFetchBudget and a budget below
// MinFetchBudget means MinFetchBudget.
func TestFetchBudgetOption(t *testing.T) {
	text := strings.Repeat("x", 200<<10)
	for _, tt := range []struct{ budget, want int }{
		{0, searchfetch.DefaultFetchBudget},
		{-5, searchfetch.MinFetchBudget},
		{10, searchfetch.MinFetchBudget},
		{100 << 10, 100 << 10},
	} {
		b := &recorder{doc: searchfetch.Document{Text: text}}
		res := searchfetch.New(b, &searchfetch.Options{FetchBudget: tt.budget}).Fetch(context.Background(), raw(`{"id":"c1/docs:d1"}`))
		require.False(t, res.IsError, res.Text)
		assert.LessOrEqual(t, len(res.Text), tt.want, "budget %d", tt.budget)
		assert.Greater(t, len(res.Text), tt.want-100, "budget %d: the budget is used", tt.budget)
	}
}
