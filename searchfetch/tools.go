package searchfetch

import (
	"encoding/json"
	"log/slog"
)

// The names of the two tools, in both modes.
const (
	SearchName = "search"
	FetchName  = "fetch"
)

// Tool is the definition of one tool, for an adapter to turn into its SDK's
// tool.
type Tool struct {
	// Name is SearchName or FetchName.
	Name string
	// Description is what the model reads before its first call.
	Description string
	// InputSchema is the JSON Schema of the arguments. It lists every
	// argument the tool takes and forbids others.
	InputSchema json.RawMessage
	// ReadOnly is the readOnlyHint annotation: the tool does not modify
	// anything. It is true for both tools.
	ReadOnly bool
}

// Tools is the search and fetch tool pair over one [Backend]. It is safe for
// concurrent use.
type Tools struct {
	backend Backend
	opts    Options
	search  Tool
	fetch   Tool
}

// New returns the tool pair over b, configured by opts (nil means the
// defaults). It panics if b is nil, as a server without a backend is a
// programming error.
func New(b Backend, opts *Options) *Tools {
	if b == nil {
		panic("searchfetch: New with a nil Backend")
	}
	t := &Tools{backend: b}
	if opts != nil {
		t.opts = *opts
	}
	if t.opts.Timeout == 0 {
		t.opts.Timeout = DefaultTimeout
	}
	if t.opts.Logger == nil {
		t.opts.Logger = slog.New(slog.DiscardHandler)
	}
	t.opts.Preview.Format = previewFormat(t.opts.Mode)
	t.search = searchTool(t.opts.Mode)
	t.fetch = fetchTool(t.opts.Mode)
	if t.opts.SearchDescription != "" {
		t.search.Description = t.opts.SearchDescription
	}
	if t.opts.FetchDescription != "" {
		t.fetch.Description = t.opts.FetchDescription
	}
	return t
}

// SearchTool returns the definition of the search tool. The returned Tool
// shares its InputSchema with t: do not modify it.
func (t *Tools) SearchTool() Tool { return t.search }

// FetchTool returns the definition of the fetch tool. The returned Tool
// shares its InputSchema with t: do not modify it.
func (t *Tools) FetchTool() Tool { return t.fetch }
