package searchfetch

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/weburl"
)

// searchResult is one hit in the default mode's structuredContent.
// Its fields are mcpid.Hit's, in the same order, so a Hit converts to it.
type searchResult struct {
	ID           string `json:"id"`
	ConnectionID string `json:"connection_id,omitempty"`
	ConnectorKey string `json:"connector_key,omitempty"`
	Stream       string `json:"stream,omitempty"`
	DisplayName  string `json:"display_name,omitempty"`
	Title        string `json:"title,omitempty"`
	Snippet      string `json:"snippet,omitempty"`
	URL          string `json:"url,omitempty"`
}

// searchOutput is the default mode's structuredContent.
type searchOutput struct {
	Results []searchResult `json:"results"`
	Total   int            `json:"total"`
	HasMore bool           `json:"has_more,omitempty"`
}

// chatResult is one hit of OpenAI's search contract, the shape of
// mcpid.FormatJSON.
type chatResult struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	URL   string `json:"url"`
	Text  string `json:"text,omitempty"`
}

// chatOutput is ChatGPT mode's structuredContent.
type chatOutput struct {
	Results []chatResult `json:"results"`
}

// Search runs the search tool on args, the raw JSON arguments of the call
// ({"query": "…"}), and returns its answer. Every hit gets its id from
// [mcpid.SelfContainedID], hits that share an id are shown once, and a hit
// that no id can fetch fails the search (see the package documentation).
// Then:
//
// In ModeDefault, Text is the [mcpid.FormatText] preview and
// StructuredContent is
//
//	{"results":[{"id":…,"connection_id":…,"connector_key":…,"stream":…,
//	  "display_name":…,"title":…,"snippet":…,"url":…},…],"total":…,"has_more":…}
//
// with every hit shown, empty fields left out (has_more too),
// connection_id the hit's own connection whether or not its id embeds it,
// and total the larger of SearchResult.Total and the number of hits.
//
// In ModeChatGPT, Text is the [mcpid.FormatJSON] preview and
// StructuredContent is {"results":[{"id":…,"title":…,"url":…,"text":…},…]}
// with every hit shown, text being the snippet (left out when empty) and url the
// hit's URL when it is an absolute http or https URL, "" otherwise.
//
// A failure is a tool error; see the package documentation.
func (t *Tools) Search(ctx context.Context, args json.RawMessage) Result {
	var vals [1]string
	if err := readArgs(args, searchArgs, vals[:]); err != nil {
		return ErrorResult(err)
	}
	res, err := callBackend(ctx, t, SearchName, func(ctx context.Context) (SearchResult, error) {
		return t.backend.Search(ctx, vals[0])
	})
	if err != nil {
		return ErrorResult(err)
	}
	hits, err := fetchableHits(res.Hits)
	if err != nil {
		return ErrorResult(err)
	}
	opts := t.opts.Preview
	opts.Total, opts.HasMore = res.Total, res.HasMore
	text := mcpid.RenderPreview(hits, opts)
	var structured any
	if t.opts.Mode == ModeChatGPT {
		structured = chatOutputOf(hits)
	} else {
		structured = searchOutputOf(hits, res)
	}
	b, err := json.Marshal(structured)
	if err != nil {
		return ErrorResult(err)
	}
	return okResult(text, b)
}

// fetchableHits returns the hits to show: each with the id
// [mcpid.SelfContainedID] gives it, which fetches that hit alone, and each
// id once (the first hit that has it). A hit whose id cannot fetch it is an
// invalid_resource_response error naming the hit: one whose connection is
// not a connection id or whose id is empty, not valid UTF-8 or holds a
// control character, and one with no connection whose id is not a legacy
// stream:record handle (an id that looks self-contained is never taken to
// be one).
func fetchableHits(in []mcpid.Hit) ([]mcpid.Hit, error) {
	hits := make([]mcpid.Hit, 0, len(in))
	seen := make(map[string]struct{}, len(in))
	for i, h := range in {
		id, embedded := mcpid.SelfContainedID(h.ID, h.ConnectionID)
		if !embedded {
			if err := unfetchable(i, h); err != nil {
				return nil, err
			}
		}
		if _, dup := seen[id]; dup {
			continue
		}
		seen[id] = struct{}{}
		h.ID = id
		hits = append(hits, h)
	}
	return hits, nil
}

// unfetchable returns the error for the hit at index i, which
// SelfContainedID did not embed, or nil when its id fetches it as it is: a
// legacy handle with no connection.
func unfetchable(i int, h mcpid.Hit) error {
	hit := "hit " + strconv.Itoa(i+1)
	switch {
	case h.ID == "":
		return badHit(hit + " has an empty id")
	case !utf8.ValidString(h.ID) || strings.ContainsFunc(h.ID, isControl):
		return badHit(hit + " has an id that is not valid UTF-8 or holds a control character")
	case h.ConnectionID != "":
		return badHit(hit + " has the connection id " + quote(h.ConnectionID) + ", which is not a valid connection id")
	}
	if hd, err := mcpid.Parse(h.ID); err != nil || hd.IsSelfContained() {
		return badHit(hit + " has no connection and the id " + quote(h.ID) + ", which is not a stream:record handle")
	}
	return nil
}

// isControl reports whether r is a control character that no id may hold.
func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) }

// searchOutputOf returns the default mode's structuredContent for hits.
func searchOutputOf(hits []mcpid.Hit, res SearchResult) searchOutput {
	out := searchOutput{
		Results: make([]searchResult, len(hits)),
		Total:   max(res.Total, len(hits)),
		HasMore: res.HasMore,
	}
	for i, h := range hits {
		out.Results[i] = searchResult(h)
	}
	return out
}

// chatOutputOf returns ChatGPT mode's structuredContent for hits.
func chatOutputOf(hits []mcpid.Hit) chatOutput {
	out := chatOutput{Results: make([]chatResult, len(hits))}
	for i, h := range hits {
		url := ""
		if weburl.Valid(h.URL) {
			url = h.URL
		}
		out.Results[i] = chatResult{ID: h.ID, Title: h.Title, URL: url, Text: h.Snippet}
	}
	return out
}
