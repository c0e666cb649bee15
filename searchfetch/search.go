package searchfetch

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"

	"github.com/mcpid/mcpid"
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

// Search runs the search tool and returns its answer. args are the raw JSON
// arguments of the call ({"query": "…"}). Every hit gets its id from
// [mcpid.SelfContainedID], hits that share an id are shown once, and a hit
// that no id can fetch fails the search (see the package documentation).
// Only the hits the preview can show are looked at (no more than MaxHits,
// nor than the budget has room for), but with StructuredAll, which shows
// every hit. Then:
//
// In ModeDefault, Text is the [mcpid.FormatText] preview. With
// StructuredShown, StructuredContent is
//
//	{"results":[{"id":…,"connection_id":…,"connector_key":…,"stream":…,
//	  "display_name":…,"title":…,"snippet":…},…],"total":…,"has_more":…}
//
// with the hits the text shows and the fields it shows, as [mcpid.ExtractHits]
// reads them back (connection_id only where the text shows one, fields cut
// where the text cuts them, empty ones left out, has_more too), and total
// the larger of SearchResult.Total and the number of hits; the text counts
// the hits it does not show as not in structuredContent. Both fit the
// budget: where the structured form would not, both are rendered for a
// smaller one. With StructuredAll, results holds every hit with every
// field and its own connection_id, and url, unbudgeted.
//
// In ModeChatGPT, Text is the [mcpid.FormatJSON] preview and
// StructuredContent is the same object: {"results":[{"id":…,"title":…,
// "url":…,"text":…},…]}.
//
// With StructuredNone, StructuredContent is nil.
//
// A failure is a tool error; see the package documentation.
func (t *Tools) Search(ctx context.Context, args json.RawMessage) Result {
	var vals [1]string
	if err := readArgs(args, t.hints.searchArgs, vals[:]); err != nil {
		return t.errorResult(err)
	}
	res, err := callBackend(ctx, t, t.opts.SearchName, Backend.Search, vals[0])
	if err != nil {
		return t.relayedError(err, nil, false)
	}
	limit := t.window
	if t.opts.Structured == StructuredAll && t.opts.Mode == ModeDefault {
		limit = len(res.Hits)
	}
	hits, looked, err := fetchableHits(res.Hits, limit, t.opts.Sealer, t.hints.badHit)
	if err != nil {
		return t.errorResult(err)
	}
	opts := t.opts.Preview
	// Hits not looked at count as distinct: the backend's count stands.
	opts.Total = max(res.Total, len(hits)+len(res.Hits)-looked)
	opts.HasMore = res.HasMore
	switch {
	case t.opts.Structured == StructuredNone:
		return okResult(mcpid.RenderPreview(hits, opts), nil)
	case t.opts.Mode == ModeChatGPT:
		text := mcpid.RenderPreview(hits, opts)
		return okResult(text, json.RawMessage(text))
	case t.opts.Structured == StructuredAll:
		// Every hit with every field and its own connection id.
		return okResult(mcpid.RenderPreview(hits, opts), structuredOf(hits, opts))
	}
	return shownResult(hits, opts)
}

// shownResult renders hits for StructuredShown: the text, and as
// structuredContent the hits it shows, both within opts.Budget. It renders
// again with only the hits shown, so that the text does not count the
// others as in structuredContent, and for a smaller budget while the
// structured form is over budget, until both agree and fit. Each round
// shows fewer hits or writes a shorter text; after maxRounds it shows none.
func shownResult(hits []mcpid.Hit, opts mcpid.PreviewOptions) Result {
	budget := opts.Budget
	for round := 0; ; round++ {
		if round == maxRounds {
			hits = nil
		}
		text := mcpid.RenderPreview(hits, opts)
		shown := mcpid.ExtractHits(text)
		if len(shown) < len(hits) {
			hits = onlyShown(hits, shown)
			continue
		}
		structured := structuredOf(shown, opts)
		if len(structured) <= budget || len(hits) == 0 {
			return okResult(text, structured)
		}
		opts.Budget = min(opts.Budget, len(text)) - (len(structured) - budget)
		if opts.Budget <= 0 { // 0 would mean the default budget
			hits, opts.Budget = nil, budget
		}
	}
}

// maxRounds bounds the renders of shownResult: one or two in practice.
const maxRounds = 16

// onlyShown returns the hits whose ids shown holds, in order. The ids of
// hits are distinct, and shown holds them in the same order.
func onlyShown(hits, shown []mcpid.Hit) []mcpid.Hit {
	out := make([]mcpid.Hit, 0, len(shown))
	for _, h := range hits {
		if len(out) < len(shown) && h.ID == shown[len(out)].ID {
			out = append(out, h)
		}
	}
	return out
}

// structuredOf returns the default mode's structuredContent for hits,
// with the counts of opts.
func structuredOf(hits []mcpid.Hit, opts mcpid.PreviewOptions) json.RawMessage {
	out := searchOutput{Results: make([]searchResult, len(hits)), Total: max(opts.Total, len(hits)), HasMore: opts.HasMore}
	for i, h := range hits {
		out.Results[i] = searchResult(h)
	}
	return marshal(out)
}

// marshal returns the JSON of v, which holds only strings, ints and bools,
// with '<', '>' and '&' written as they are, as the preview writes them.
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("searchfetch: " + err.Error()) // strings, ints and bools always encode
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// fetchableHits returns the hits to show: each with the id
// [mcpid.SelfContainedID] gives it, which fetches that hit alone, and each
// id once (the first hit that has it). A hit whose id cannot fetch it is an
// invalid_resource_response error naming the hit: one whose connection is
// not a connection id or whose id is empty, not valid UTF-8 or holds a
// control character, and one with no connection whose id is not a legacy
// stream:record handle (an id that looks self-contained is never taken to
// be one).
// With a sealer, each id is sealed.
//
// It looks at hits in order until limit of them are kept, and returns how
// many it looked at.
func fetchableHits(in []mcpid.Hit, limit int, sealer *mcpid.Sealer, hint string) (hits []mcpid.Hit, looked int, err error) {
	hits = make([]mcpid.Hit, 0, min(len(in), limit))
	seen := make(map[string]struct{}, min(len(in), limit))
	for i, h := range in {
		if len(hits) == limit {
			return hits, i, nil
		}
		id, embedded := mcpid.SelfContainedID(h.ID, h.ConnectionID)
		if !embedded {
			if err := unfetchable(i, h, hint); err != nil {
				return nil, i, err
			}
		}
		if _, dup := seen[id]; dup {
			continue
		}
		seen[id] = struct{}{}
		if sealer != nil {
			id = sealer.Seal(id)
		}
		h.ID = id
		hits = append(hits, h)
	}
	return hits, len(in), nil
}

// unfetchable returns the error for the hit at index i, which
// SelfContainedID did not embed, or nil when its id fetches it as it is: a
// legacy handle with no connection.
func unfetchable(i int, h mcpid.Hit, hint string) error {
	hit := "hit " + strconv.Itoa(i+1)
	switch {
	case h.ID == "":
		return badHit(hit+" has an empty id", hint)
	case !embeddable(h.ID):
		return badHit(hit+" has an id that is not valid UTF-8 or holds a control character", hint)
	case h.ConnectionID != "":
		return badHit(hit+" has the connection id "+quote(h.ConnectionID)+", which is not a valid connection id", hint)
	}
	if hd, err := mcpid.Parse(h.ID); err != nil || hd.IsSelfContained() {
		return badHit(hit+" has no connection and the id "+quote(h.ID)+", which is not a stream:record handle", hint)
	}
	return nil
}

// embeddable reports whether SelfContainedID embeds id in a valid
// connection: whether id is not empty, is valid UTF-8 and holds no
// control character.
func embeddable(id string) bool {
	_, ok := mcpid.SelfContainedID(id, "c")
	return ok
}
