package searchfetch

import (
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/toolname"
)

// The default names of the two tools, in both modes.
const (
	SearchName = "search"
	FetchName  = "fetch"
)

// Tool is the definition of one tool. An adapter turns it into its SDK's
// tool. Its four annotations are always explicit, false values included,
// since some hosts reject a tool that leaves one unset.
type Tool struct {
	// Name is the name the tool is registered under: Options.SearchName
	// or Options.FetchName.
	Name string
	// Description is what the model reads before its first call.
	Description string
	// InputSchema is the JSON Schema of the arguments. It lists every
	// argument the tool takes and forbids others.
	InputSchema json.RawMessage
	// OutputSchema is the JSON Schema that every structuredContent of the
	// tool validates against, error envelopes included; nil with
	// StructuredNone.
	OutputSchema json.RawMessage
	// ReadOnly is the readOnlyHint annotation: the tool does not modify
	// anything. It is true for both tools.
	ReadOnly bool
	// Destructive is the destructiveHint annotation: false for both tools.
	Destructive bool
	// Idempotent is the idempotentHint annotation: true for both tools.
	Idempotent bool
	// OpenWorld is the openWorldHint annotation: Options.OpenWorld.
	OpenWorld bool
}

// Tools is the search and fetch tool pair over one [Backend]. It is safe for
// concurrent use.
type Tools struct {
	backend Backend
	opts    Options
	search  Tool
	fetch   Tool
	hints   hints
	// window is the most hits a search looks at for the preview: no
	// more than MaxHits, nor than the budget has room for.
	window int
}

// Validate checks that o can configure the tools. It returns an error when
// SearchName or FetchName is not a valid MCP tool name, or when the two are
// equal. A nil *Options is valid.
func (o *Options) Validate() error {
	if o == nil {
		return nil
	}
	search, fetch := cmp.Or(o.SearchName, SearchName), cmp.Or(o.FetchName, FetchName)
	for _, name := range []string{search, fetch} {
		if !toolname.MCP.Valid(name) {
			return fmt.Errorf("searchfetch: %s is not a valid MCP tool name (1 to 128 of A-Z a-z 0-9 _ - .)", quote(name))
		}
	}
	if search == fetch {
		return fmt.Errorf("searchfetch: search and fetch are both named %s", quote(search))
	}
	return nil
}

// New returns the tool pair over b, configured by opts (nil means the
// defaults). It panics if b is nil, if opts.Sealer has no key (the zero
// [mcpid.Sealer], which would seal nothing and open nothing), or if
// opts.Validate fails, as such a server is a programming error.
func New(b Backend, opts *Options) *Tools {
	if b == nil {
		panic("searchfetch: New with a nil Backend")
	}
	if err := opts.Validate(); err != nil {
		panic(err)
	}
	// A Sealer with a key always adds a seal: only one without returns
	// an id as it is (mcpid.Sealer documents the zero value so).
	if opts != nil && opts.Sealer != nil && opts.Sealer.Seal("") == "" {
		panic("searchfetch: New with a Sealer that has no key; use mcpid.NewSealer")
	}
	t := &Tools{backend: b}
	if opts != nil {
		t.opts = *opts
	}
	o := &t.opts
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.SearchName, o.FetchName = cmp.Or(o.SearchName, SearchName), cmp.Or(o.FetchName, FetchName)
	t.hints = newHints(o.Mode, o.SearchName, o.FetchName)
	o.Preview.Format = previewFormat(o.Mode)
	if o.Preview.Budget == 0 {
		o.Preview.Budget = mcpid.DefaultBudget
	}
	o.Preview.Budget = max(o.Preview.Budget, MinBudget)
	switch {
	case o.Preview.MaxHits == 0:
		t.window = mcpid.DefaultMaxHits
	case o.Preview.MaxHits > 0:
		t.window = o.Preview.MaxHits
	}
	t.window = min(t.window, o.Preview.Budget/minHitBytes)
	t.search, t.fetch = t.tools()
	if o.SearchDescription != "" {
		t.search.Description = o.SearchDescription
	}
	if o.FetchDescription != "" {
		t.fetch.Description = o.FetchDescription
	}
	return t
}

// minHitBytes is the fewest bytes a shown hit takes in either format, so
// that a budget of B bytes shows at most B/minHitBytes hits.
const minHitBytes = 8

// SearchTool returns the definition of the search tool. The returned Tool
// shares its schemas with t: do not modify them.
func (t *Tools) SearchTool() Tool { return t.search }

// FetchTool returns the definition of the fetch tool. The returned Tool
// shares its schemas with t: do not modify them.
func (t *Tools) FetchTool() Tool { return t.fetch }
