package mcpid

import "math"

// Hit is one search result as [RenderPreview] shows it: its id, the
// connection it came from, and free text that helps the model choose.
type Hit struct {
	// ID is the id the model passes to fetch, shown complete or not at
	// all; typically [SelfContainedID] made it.
	ID string
	// ConnectionID is the connection the hit came from; the text form
	// shows it unless ID embeds this same connection.
	ConnectionID string
	// ConnectorKey, Stream and DisplayName are labels: the kind of
	// source, the stream and the source's name (text form only).
	ConnectorKey string
	Stream       string
	DisplayName  string
	// Title is the record's title.
	Title string
	// Snippet is an excerpt of the record.
	Snippet string
	// URL is where a person can open the record, shown only when it is an
	// absolute http or https URL, whole or not at all.
	URL string
}

// Format selects the shape of a preview: [FormatJSON] for hosts that
// expect OpenAI's search/fetch contract (ChatGPT), [FormatText] for hosts
// that show the text to a model as prose.
type Format uint8

// The formats of a preview.
const (
	// FormatText is a header, one numbered line per shown hit, the fetch
	// instruction and the count of hits not shown. It is the zero value.
	FormatText Format = iota
	// FormatJSON is the one JSON object that OpenAI's contract requires:
	// {"results":[{"id","title","url","text"},…]}, with no count of hits
	// not shown, so a server puts every hit in its structured results.
	FormatJSON
)

// PreviewOptions configures [RenderPreview] and [AppendPreview]. The zero
// value means the defaults; a negative Budget or MaxHits means none, a
// negative field cap hides that field, and every value is safe.
type PreviewOptions struct {
	Budget  int  // hard cap on the bytes of the text; 0 means 1800
	MaxHits int  // the most hits to show (only these are looked at); 0 means 8
	Total   int  // hits in the whole result, when more than those passed in
	HasMore bool // the result has hits beyond Total (or the hits passed in)
	// MayHaveMore reports that the result may have hits beyond Total that
	// were not counted: the text says so ("or more") without claiming
	// them. HasMore, which claims them, wins.
	MayHaveMore bool
	// Terse leaves out the fetch instruction and the count of hits not
	// shown, for a caller that ends the text with a line of its own and
	// has no room for them.
	Terse      bool
	MaxLabel   int // cap on each label in bytes, quotes and … included; 0 means 40
	MaxTitle   int // cap on the title, counted alike; 0 means 100
	MaxSnippet int // cap on the snippet, counted alike; 0 means 120

	// Format is the shape of the text; any value but FormatJSON means
	// FormatText.
	Format Format
}

// The defaults of PreviewOptions: what a zero Budget and a zero MaxHits
// mean.
const (
	DefaultBudget  = 1800
	DefaultMaxHits = 8
)

// The defaults of the field caps of PreviewOptions. A snippet of 120
// bytes is two sentences: enough to choose a hit by, while the record
// itself is one fetch away.
const (
	defaultBudget     = DefaultBudget
	defaultMaxHits    = DefaultMaxHits
	defaultMaxLabel   = 40
	defaultMaxTitle   = 100
	defaultMaxSnippet = 120
)

// maxBudget is the largest budget a preview uses: no text comes near it,
// and below it no sum of lengths overflows an int.
const maxBudget = math.MaxInt >> 8

// stackPreview is the size of the buffer RenderPreview renders into on
// the stack: room for a preview of the default budget, so that only a
// larger budget costs an allocation besides the string.
const stackPreview = 2048

// RenderPreview returns the model-visible text of a search result, in
// opts.Format and within opts.Budget bytes. An id is shown complete or
// not at all, never altered, and quoted where it could pass for another;
// free text is quoted and cut, and can add neither a line nor an id. Its
// cost depends on the budget, not on len(hits) or the fields' lengths.
func RenderPreview(hits []Hit, opts PreviewOptions) string {
	p := newPreview(hits, opts)
	if p.budget <= 0 {
		return ""
	}
	var stack [stackPreview]byte
	buf := stack[:0]
	if n := p.size(); n > len(stack) {
		buf = make([]byte, 0, n)
	}
	return string(p.append(buf))
}

// AppendPreview appends the text [RenderPreview] returns to dst. It never
// writes more than opts.Budget bytes, and does not allocate when dst has
// room for them.
func AppendPreview(dst []byte, hits []Hit, opts PreviewOptions) []byte {
	p := newPreview(hits, opts)
	if p.budget <= 0 {
		return dst
	}
	return p.append(dst)
}

// append writes the preview to dst in its format.
func (p *preview) append(dst []byte) []byte {
	if p.format == FormatJSON {
		return p.appendJSON(dst)
	}
	return p.appendText(dst)
}
