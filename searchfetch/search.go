package searchfetch

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

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
	// NextCursor is the cursor of the next page, when there is one.
	NextCursor string `json:"next_cursor,omitempty"`
}

// Search runs the search tool on args, a call's raw JSON arguments: the
// hits the caller may read, each with an id that fetches it alone, within
// the preview's budget in every channel. A failure is a tool error.
func (t *Tools) Search(ctx context.Context, args json.RawMessage) (r Result) {
	if t.opts.OnCall != nil {
		ctx = t.startCall(ctx, t.opts.SearchName)
		defer t.endCall(ctx, &r)
	}
	var start time.Time // of the search, which bounds its authorizations
	if t.opts.Authorize != nil {
		start = time.Now()
	}
	var vals [2]string // query, cursor
	extra, err := readArgs(args, t.hints.searchArgs, vals[:len(t.hints.searchArgs.names)])
	if err != nil {
		return t.errorResult(err)
	}
	query, bound := vals[0], t.cursorBinding(vals[0], extra)
	var c cursor
	if vals[1] != "" {
		if c, err = t.openCursor(ctx, bound, vals[1]); err != nil {
			return t.errorResult(err)
		}
	}
	res, err := callBackend(ctx, t, t.opts.SearchName, Backend.Search, Query{Text: query, Cursor: c.backend, Limit: t.window, Args: extra})
	if err != nil {
		return t.relayedError(ctx, err, Access{Tool: t.opts.SearchName}, nil, false)
	}
	limit := t.window
	if t.opts.Structured == StructuredAll && t.opts.Mode == ModeDefault {
		limit = len(res.Hits)
	}
	g := t.authorizeHits(ctx, start, res.Hits)
	sel, err := t.selectHits(ctx, res.Hits, g, c.passed, limit)
	t.noteSelection(ctx, sel)
	if err != nil {
		return t.relay(err, err, nil, false) // the authorizer's
	}
	if sel.none != nil && vals[1] == "" && !t.pagesOn(res) {
		return t.relay(sel.none, sel.none, nil, false)
	}
	hits := sel.hits
	opts := t.opts.Preview
	opts.Total, opts.HasMore = t.counts(&sel, res, c.passed)
	if t.opts.Mode == ModeChatGPT {
		text := mcpid.RenderPreview(hits, opts)
		if t.opts.Structured == StructuredNone {
			return okResult(text, nil)
		}
		return okResult(text, json.RawMessage(text))
	}
	return t.pageResult(hits, opts, t.newPaging(ctx, bound, res, &sel, c, opts))
}

// pagesOn reports whether a model can page on past res to a further
// backend page: in ModeDefault, with a next page the tools can use and
// carry. A first page none of whose hits can be fetched is then shown
// empty, with a cursor to the next, as is such a page reached by a
// cursor: only a first page that is also the last fails.
func (t *Tools) pagesOn(res SearchResult) bool {
	return t.opts.Mode == ModeDefault && t.nextBackend(res) != ""
}

// countsFor reports whether the tools may use res's counts and cursor:
// with no authorizer, or when the backend counted them for the caller
// (SearchResult.CountsForCaller).
func (t *Tools) countsFor(res SearchResult) bool {
	return t.opts.Authorize == nil || res.CountsForCaller
}

// nextBackend returns the backend's cursor to the page after res when
// the tools may use and carry it, else "".
func (t *Tools) nextBackend(res SearchResult) string {
	if t.countsFor(res) && validBackendCursor(res.NextCursor) {
		return res.NextCursor
	}
	return ""
}

// counts returns the total and has_more of a page of res whose
// selection is sel, from the readable hit from on: the readable hits
// counted, and whether hits were neither shown nor counted, or a further
// backend page exists. A backend's own Total and HasMore count records
// the tools never saw, which may be another connection's: with an
// authorizer they stand only when the backend counted them for the
// caller (SearchResult.CountsForCaller).
func (t *Tools) counts(sel *selection, res SearchResult, from int) (total int, hasMore bool) {
	total, hasMore = sel.counted(), sel.unsure
	if t.countsFor(res) {
		if res.beyondHits() {
			total = max(total, res.Total-from)
		}
		hasMore = hasMore || res.HasMore || res.NextCursor != ""
	}
	return total, hasMore
}

// beyondHits reports whether res.Total counts more hits than res.Hits
// holds: a smaller Total is ignored.
func (res *SearchResult) beyondHits() bool { return res.Total > len(res.Hits) }

// maxRounds bounds the renders of pageResult: one or two in practice.
const maxRounds = 16

// structuredOf returns the default mode's structuredContent for hits,
// with the counts of opts and the cursor next ("" for none).
func structuredOf(hits []mcpid.Hit, opts mcpid.PreviewOptions, next string) json.RawMessage {
	out := searchOutput{Results: make([]searchResult, len(hits)), Total: max(opts.Total, len(hits)), HasMore: opts.HasMore, NextCursor: next}
	for i, h := range hits {
		out.Results[i] = searchResult(h)
	}
	return marshal(out)
}

// marshal returns the JSON of v, which holds only strings, ints, bools
// and maps of strings, with '<', '>', '&', U+2028 and U+2029 written as
// they are (see rawSeparators).
func marshal(v any) json.RawMessage {
	b, err := encode(v)
	if err != nil {
		panic("searchfetch: " + err.Error()) // strings, ints and bools always encode
	}
	return b
}

// encode returns the JSON of v as marshal writes it, or why v does not
// encode. A json.Marshaler's own escapes are kept: [mcpid.Error] writes
// none that JSON does not need but U+2028 and U+2029, which rawSeparators
// writes as they are.
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return rawSeparators(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}
