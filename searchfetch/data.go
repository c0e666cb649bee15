package searchfetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/jsonlit"
)

// A record that is JSON travels as JSON: a dashboard given as Text is an
// escaped string, each quote written \" (and, as encoding/json writes by
// default, each '<', '>' and '&' \u003c…), which cost a model 12% more
// tokens than the same record as the result's data member
// (TestFetchDataTokens).

// dataHead and dataTail are the members of a document given as data
// before and after its data, whose JSON [dataJSON] joins around the data.
type (
	dataHead struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	dataTail struct {
		URL      string            `json:"url"`
		Metadata map[string]string `json:"metadata,omitempty"`
	}
)

// dataJSON returns the JSON of doc given as data: a Document's members,
// with data, written as compactData writes it, where the text would be.
// The data is joined in as it is rather than marshalled as a
// json.RawMessage, which encoding/json would check and compact again.
func dataJSON(doc Document, data []byte) []byte {
	head := marshal(dataHead{ID: doc.ID, Title: doc.Title})
	tail := marshal(dataTail{URL: doc.URL, Metadata: doc.Metadata})
	b := make([]byte, 0, len(head)+len(`,"data":`)+len(data)+len(tail))
	b = append(b, head[:len(head)-1]...) // without its '}'
	b = append(append(b, `,"data":`...), data...)
	b = append(append(b, ','), tail[1:]...) // without its '{'
	return b
}

// The errors of a document whose Data no model can use. The error the
// fetch returns wraps one of them with why, for the log; the model sees
// only these words.
var (
	errTextAndData = mcpid.NewError(mcpid.CodeInvalidResourceResponse,
		"the source returned a document with both text and data", "report the source as faulty")
	errBadData = mcpid.NewError(mcpid.CodeInvalidResourceResponse,
		"the source returned data that is not a JSON object or array", "report the source as faulty")
)

// encodeData returns the JSON of doc, whose Data is set, as
// [Tools.encodeDocument] does: with its data as the data member when it
// fits the fetch budget and offset is "" or 0, and otherwise its data's
// compact JSON as the text, read from offset and cut as any text, with
// "data_as_text": true in ModeDefault. ModeChatGPT, whose document shape
// has no data, always gives it as text. The data is checked and written
// again whole on every call, each part of a read-on included: O(len(Data))
// a call, as the backend's own answer is.
func (t *Tools) encodeData(doc Document, offset string) ([]byte, error) {
	if doc.Text != "" {
		return nil, errTextAndData
	}
	data, err := compactData(doc.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadData, err)
	}
	doc.Data = nil
	if t.opts.Mode == ModeChatGPT {
		doc.Text = string(data)
		return t.encodeText(doc, offset)
	}
	budget := t.opts.FetchBudget
	if n, err := strconv.Atoi(offset); offset == "" || err == nil && n == 0 {
		if b := dataJSON(doc, data); len(b) <= budget {
			return b, nil
		}
	}
	start, err := textOffset(string(data), offset, t.hints.offset)
	if err != nil {
		return nil, err
	}
	return cutDefault(doc, string(data), start, budget, true)
}

// compactData returns the JSON object or array raw as the tools write
// JSON: without white space, each string literal as it was but for one
// with an escape or a byte that is not valid UTF-8, which is written again
// as marshal writes its value ('<', '>', '&', U+2028 and U+2029 as they
// are, \" and \\ as JSON needs), so that a backend's own escapes (those
// json.Marshal writes by default) cost no tokens. Numbers, literals and the
// members' order are kept. Anything but one valid JSON object or array is
// an error saying why.
func compactData(data json.RawMessage) ([]byte, error) {
	raw := []byte(data)
	if !json.Valid(raw) {
		return nil, json.Unmarshal(raw, new(any)) // says why
	}
	if i := jsonlit.SkipSpace(raw, 0); raw[i] != '{' && raw[i] != '[' {
		return nil, fmt.Errorf("the JSON value starts with %s, not { or [", strconv.QuoteRune(rune(raw[i])))
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); {
		switch c := raw[i]; {
		case jsonlit.IsSpace(c):
			i++
		case c == '"':
			end, escaped, _ := jsonlit.End(raw, i) // raw is valid: ok
			lit := raw[i:end]
			if escaped && !asMarshalled(lit) || !escaped && !utf8.Valid(lit) {
				s, _ := jsonlit.Unquote(lit)
				lit = marshal(s)
			}
			out, i = append(out, lit...), end
		default:
			out, i = append(out, c), i+1
		}
	}
	return out, nil
}

// documentError returns the tool error for err, an error of
// [Tools.encodeDocument] for the fetch a describes. One about the document
// the backend returned (invalid_resource_response: text and data both,
// data that is no JSON object or array, no room for the text) is logged at
// level Error with the tool and the connection, as a failing backend is:
// the server's maintainer has a fault to fix. One about the arguments (the
// offset) is the model's to fix, and is not logged.
func (t *Tools) documentError(ctx context.Context, a Access, err error) Result {
	if errors.Is(err, mcpid.ErrInvalidResourceResponse) {
		t.logger().ErrorContext(ctx, "searchfetch: backend returned a document no model can use",
			"tool", a.Tool, "connection_id", a.ConnectionID, "error", err)
	}
	return t.errorResult(err)
}

// asMarshalled reports whether the string literal lit, which holds an
// escape, is written as marshal would write its value: valid UTF-8 whose
// every escape is one marshal writes for the character (\" \\ \n \r \t),
// none that marshal writes as the character itself (\u003c, \u00e9,
// \/...). Most literals of a record hold only those escapes, and keep
// their bytes.
func asMarshalled(lit []byte) bool {
	for i := 0; i < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		i++
		switch lit[i] {
		case '"', '\\', 'n', 'r', 't':
		default:
			return false
		}
	}
	return utf8.Valid(lit)
}
