package searchfetch

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/toolname"
)

// The default names of the two tools, in both modes.
const (
	SearchName = "search"
	FetchName  = "fetch"
)

// Tool is the definition of one tool, which an adapter turns into its
// SDK's; its four annotations are always explicit, false ones included.
type Tool struct {
	Name        string // as registered
	Description string // what the model reads before its first call
	// InputSchema and OutputSchema are the JSON Schemas of the arguments
	// and of every structuredContent (nil with StructuredNone).
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// ReadOnly, Destructive, Idempotent and OpenWorld are the annotations.
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
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
	// hung counts the backend calls that outlived their deadline and
	// still run (see MaxHungCalls).
	hung atomic.Int64
	// maxHung is MaxHungCalls, and pool the process's workers, but in
	// tests.
	maxHung int64
	pool    *pool
}

// Validate reports, as an error, a SearchName or FetchName that is not a
// valid MCP tool name, or the two equal; a QueryArg, IDArg, SearchArgs or
// FetchArgs the tools cannot take (any of them in ChatGPT mode); and a
// BareIDs or DefaultConnection that cannot hold. A nil *Options is valid.
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
	if err := o.validateIDs(); err != nil {
		return err
	}
	_, _, err := o.extraArgs()
	return err
}

// validateIDs reports, as an error, a BareIDs or DefaultConnection that
// cannot hold: in ChatGPT mode, where no connection_id can be passed,
// BareIDs needs DefaultConnection; DefaultConnection serves bare ids only,
// and must be a valid connection id.
func (o *Options) validateIDs() error {
	switch {
	case o.Mode == ModeChatGPT && o.BareIDs && o.DefaultConnection == "":
		return errors.New("searchfetch: in ChatGPT mode, where fetch takes no connection_id, BareIDs needs a DefaultConnection")
	case o.DefaultConnection == "":
		return nil
	case !o.BareIDs:
		return errors.New("searchfetch: DefaultConnection is the connection of bare ids: set BareIDs too")
	}
	if _, err := mcpid.Encode(o.DefaultConnection, "", "x"); err != nil {
		return fmt.Errorf("searchfetch: DefaultConnection %s is not a valid connection id", quote(o.DefaultConnection))
	}
	return nil
}

// extraArgs returns the arguments SearchArgs and FetchArgs declare, or an
// error for argument names or schemas the tools cannot take: a QueryArg or
// IDArg that is not a valid name or is that of another of the tool's
// arguments, a schema [compileArgs] refuses, or, in ChatGPT mode, whose
// contract fixes both tools' arguments, any of the four.
func (o *Options) extraArgs() (search, fetch *extraArgs, err error) {
	if o.Mode == ModeChatGPT {
		if o.QueryArg != "" || o.IDArg != "" || len(o.SearchArgs) > 0 || len(o.FetchArgs) > 0 {
			return nil, nil, errors.New("searchfetch: ChatGPT mode's contract fixes the arguments: set no QueryArg, IDArg, SearchArgs or FetchArgs")
		}
		return nil, nil, nil
	}
	query, id := cmp.Or(o.QueryArg, "query"), cmp.Or(o.IDArg, mcpid.FieldID)
	switch {
	case !toolname.MCP.Valid(query) || query == FieldCursor:
		return nil, nil, fmt.Errorf("searchfetch: QueryArg %s is not a valid argument name (1 to 128 of A-Z a-z 0-9 _ - ., not cursor)", quote(query))
	case !toolname.MCP.Valid(id) || id == mcpid.FieldConnectionID || id == FieldOffset:
		return nil, nil, fmt.Errorf("searchfetch: IDArg %s is not a valid argument name (1 to 128 of A-Z a-z 0-9 _ - ., not connection_id or offset)", quote(id))
	}
	if search, err = compileArgs(o.SearchArgs, []ownArg{{query, "string"}, {FieldCursor, "string"}}); err != nil {
		return nil, nil, fmt.Errorf("searchfetch: SearchArgs %w", err)
	}
	if fetch, err = compileArgs(o.FetchArgs, []ownArg{{id, "string"}, {mcpid.FieldConnectionID, "string"}, {FieldOffset, "integer"}}); err != nil {
		return nil, nil, fmt.Errorf("searchfetch: FetchArgs %w", err)
	}
	return search, fetch, nil
}

// New returns the tool pair over b, configured by opts (nil means the
// defaults). It panics if b is nil, opts.Sealer has no key (the zero
// [mcpid.Sealer]) or opts.Validate fails: a programming error.
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
	t := &Tools{backend: b, maxHung: MaxHungCalls, pool: &workers}
	if opts != nil {
		t.opts = *opts
	}
	o := &t.opts
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	o.SearchName, o.FetchName = cmp.Or(o.SearchName, SearchName), cmp.Or(o.FetchName, FetchName)
	searchExtra, fetchExtra, _ := o.extraArgs() // valid: Validate passed
	o.QueryArg, o.IDArg = cmp.Or(o.QueryArg, "query"), cmp.Or(o.IDArg, mcpid.FieldID)
	t.hints = newHints(o.Mode, o.SearchName, o.FetchName, o.QueryArg, o.IDArg)
	t.hints.searchArgs.extra, t.hints.fetchArgs.extra = searchExtra, fetchExtra
	if searchExtra != nil {
		t.hints.same = "arguments"
	}
	o.Preview.Format = previewFormat(o.Mode)
	if o.Preview.Budget == 0 {
		o.Preview.Budget = mcpid.DefaultBudget
	}
	o.Preview.Budget = max(o.Preview.Budget, MinBudget)
	if o.FetchBudget == 0 {
		o.FetchBudget = DefaultFetchBudget
	}
	o.FetchBudget = max(o.FetchBudget, MinFetchBudget)
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

// logger returns Options.Logger, or, when it is nil, slog.Default() as it
// is at the time of the call, so that a program that sets its default
// logger after New is heard.
func (t *Tools) logger() *slog.Logger {
	if t.opts.Logger != nil {
		return t.opts.Logger
	}
	return slog.Default()
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
