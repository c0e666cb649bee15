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
	// HasMore reports that the caller has or may have hits after these.
	HasMore bool `json:"has_more,omitempty"`
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
	res, err := runBackend(ctx, t, t.opts.SearchName, Backend.Search, Query{Text: query, Cursor: c.backend, Limit: t.window, Args: extra})
	if err != nil {
		return t.backendError(ctx, err, Access{Tool: t.opts.SearchName}, nil, false)
	}
	limit := t.window
	if t.opts.Structured == StructuredAll && t.opts.Mode == ModeDefault {
		limit = len(res.Hits)
	}
	g := t.authorizeHits(ctx, start, res.Hits)
	sel, err := t.selectHits(ctx, res.Hits, g, c.passed, limit)
	t.noteSelection(ctx, sel)
	if err != nil {
		return t.passOn(err, err, nil, false) // the authorizer's
	}
	var next string // the backend page a model pages on to
	if t.opts.Mode == ModeDefault {
		next = t.nextBackend(ctx, res, c)
	}
	// A first page none of whose hits can be fetched is shown empty, with
	// a cursor to the next backend page, as is such a page reached by a
	// cursor: only a first page that is also the last fails.
	if sel.none != nil && vals[1] == "" && next == "" {
		return t.passOn(sel.none, sel.none, nil, false)
	}
	hits := sel.hits
	opts := t.opts.Preview
	opts.Total, opts.HasMore, opts.MayHaveMore = t.counts(&sel, res, c)
	if t.opts.Mode == ModeChatGPT {
		return t.chatGPTResult(ctx, hits, opts)
	}
	p := t.pageResult(hits, opts, t.newPaging(ctx, bound, res, &sel, c, next, opts))
	t.noteShown(ctx, hits[p.lo:p.hi])
	return p.r
}

// chatGPTResult renders a ChatGPT-mode page of hits, the hits the
// selection kept: the JSON form, in both channels as Options.Structured
// chooses.
func (t *Tools) chatGPTResult(ctx context.Context, hits []mcpid.Hit, opts mcpid.PreviewOptions) Result {
	var text string
	if t.opts.OnCall == nil {
		text = mcpid.RenderPreview(hits, opts)
	} else {
		var at []int
		text, _, at = renderShown(hits, opts)
		shown := make([]mcpid.Hit, len(at))
		for k, i := range at {
			shown[k] = hits[i]
		}
		t.noteShown(ctx, shown)
	}
	if t.opts.Structured == StructuredNone {
		return okResult(text, nil)
	}
	return okResult(text, json.RawMessage(text))
}

// countsFor reports whether the tools may use res's counts: with no
// authorizer, or when the backend counted them for the caller
// (SearchResult.CountsForCaller).
func (t *Tools) countsFor(res SearchResult) bool {
	return t.opts.Authorize == nil || res.CountsForCaller
}

// nextBackend returns the backend's cursor to the page after res, the
// page c names, when a model can page on to it, else "". It is followed
// whatever res.CountsForCaller says: it is a position, which tells a
// caller only that the backend has more, and no count. A cursor the tools
// cannot carry ends paging, and so does, logged at Warn, one that names
// the page it came with or one past maxBackendPages: a backend whose
// cursors loop pages no model forever.
func (t *Tools) nextBackend(ctx context.Context, res SearchResult, c cursor) string {
	next := res.NextCursor
	switch {
	case !validBackendCursor(next):
		return ""
	case next == c.backend:
		t.logger().WarnContext(ctx, "searchfetch: backend cursor names the page it came with; paging ends",
			"tool", t.opts.SearchName, "cursor", next)
		return ""
	case c.pages >= maxBackendPages:
		t.logger().WarnContext(ctx, "searchfetch: a search reached the most backend pages it follows; paging ends",
			"tool", t.opts.SearchName, "pages", c.pages, "max", maxBackendPages)
		return ""
	}
	return next
}

// counts returns the total, has_more and "more may exist" of a page of
// res whose selection is sel, reached by the cursor c. The total counts
// the readable hits of the page from c on, or, when the tools may use it
// and it is larger, the backend's Total of the whole result less the
// readable hits earlier pages passed: a known total, shown as it is.
// has_more is the backend's HasMore, when the tools may use it. More may
// exist, without a number, when hits were neither shown nor counted, or
// the backend has a further page and no known total covers it. A
// backend's own Total and HasMore count records the tools never saw,
// which may be another connection's: with an authorizer they stand only
// when the backend counted them for the caller
// (SearchResult.CountsForCaller).
func (t *Tools) counts(sel *selection, res SearchResult, c cursor) (total int, hasMore, mayHaveMore bool) {
	total = sel.counted()
	known := false
	if t.countsFor(res) {
		if rest := res.Total - c.earlier - c.passed; res.Total > 0 && rest >= total {
			total, known = rest, true
		}
		hasMore = res.HasMore
	}
	return total, hasMore, !known && (sel.unsure || res.NextCursor != "")
}

// maxRounds bounds the renders of a layout: one or two in practice, two
// more for each hit passed over.
const maxRounds = 32

// structuredOf returns the default mode's structuredContent for hits,
// with the counts of opts and the cursor next ("" for none): has_more
// when more hits exist or may exist.
func structuredOf(hits []mcpid.Hit, opts mcpid.PreviewOptions, next string) json.RawMessage {
	out := searchOutput{Results: make([]searchResult, len(hits)), Total: max(opts.Total, len(hits)), HasMore: opts.HasMore || opts.MayHaveMore, NextCursor: next}
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
