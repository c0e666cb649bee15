package searchfetch

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/mcpid/mcpid"
)

// Mode selects the contract the two tools follow.
type Mode uint8

// The modes of [Options.Mode].
const (
	// ModeDefault is for any MCP client (the zero value).
	ModeDefault Mode = iota
	// ModeChatGPT follows OpenAI's search and fetch contract.
	ModeChatGPT
)

// String returns "default" or "chatgpt".
func (m Mode) String() string {
	if m == ModeChatGPT {
		return "chatgpt"
	}
	return "default"
}

// Structured selects what the structuredContent of a search holds.
type Structured uint8

// The values of [Options.Structured].
const (
	// StructuredShown holds exactly what the text shows (the zero value).
	StructuredShown Structured = iota
	// StructuredAll holds every hit, unbudgeted: only for clients that
	// never show structuredContent to a model.
	StructuredAll
	// StructuredNone gives no structuredContent and no output schema.
	StructuredNone
)

// String returns "shown", "all" or "none".
func (s Structured) String() string {
	switch s {
	case StructuredAll:
		return "all"
	case StructuredNone:
		return "none"
	}
	return "shown"
}

// MinBudget is the smallest preview budget the tools use: room for the
// counts of a search that shows no hit.
const MinBudget = 128

// DefaultFetchBudget is the fetch budget when [Options.FetchBudget] is
// zero: 64 KiB, within what hosts show a model of one tool result.
const DefaultFetchBudget = 64 << 10

// MinFetchBudget is the smallest fetch budget the tools use: room for a
// document's other fields besides some of its text.
const MinFetchBudget = 1 << 10

// DefaultTimeout is how long a backend call may take when
// [Options.Timeout] is zero.
const DefaultTimeout = 30 * time.Second

// Options configures [New]. The zero value, and a nil *Options, mean the
// defaults.
type Options struct {
	Mode Mode // the contract of the tools
	// Preview configures the search text; Format follows Mode.
	Preview    mcpid.PreviewOptions
	Structured Structured // what a search's structuredContent holds
	// OpenWorld sets both tools' openWorldHint: true for open sources (the web).
	OpenWorld bool
	// Sealer, when set, seals the ids search shows and binds its cursors
	// to the caller; fetch refuses an id no search issued (unknown_id).
	Sealer *mcpid.Sealer
	// AcceptUnsealed lets fetch take unsealed ids too, unprotected.
	AcceptUnsealed bool
	// Aliases, when set, gives connections short names the model sees
	// instead. Never give an alias to another connection while ids embed it.
	Aliases *mcpid.Aliases
	// Authorize, when set, decides whether the caller may read a
	// connection, before any backend call: a nil error allows.
	Authorize func(ctx context.Context, a Access) error
	// SearchName and FetchName name the tools ("" means the defaults):
	// valid MCP tool names, and different. Descriptions and hints use them.
	SearchName string
	FetchName  string
	// Timeout bounds each backend and authorizer call (0 means
	// DefaultTimeout; a negative one runs inline, bounded by the request).
	Timeout time.Duration
	// Inline runs the backend on the SDK's goroutine of the call: set it
	// only for a backend that honours its context.
	Inline bool
	// FetchBudget bounds the bytes of a fetch result's JSON (0 means
	// DefaultFetchBudget); a longer text is cut, and the model reads on.
	FetchBudget int
	// SearchDescription and FetchDescription, if set, replace the defaults.
	SearchDescription string
	FetchDescription  string
	// QueryArg and IDArg name the query and id arguments ("" means "query"
	// and "id"); descriptions, hints and errors use them.
	QueryArg string
	IDArg    string
	// SearchArgs and FetchArgs declare the arguments a tool takes beside its
	// own, as a JSON Schema object merged into its input schema. The tool
	// checks each property's type, enum and required, the backend the rest;
	// it receives them as Query.Args and FetchRequest.Args.
	SearchArgs json.RawMessage
	FetchArgs  json.RawMessage
	// BareIDs lets fetch take the ids a server issued before mcpid's, as a
	// record's key in the connection connection_id names, else in
	// DefaultConnection. Bare are the ids that do not open, with a Sealer,
	// else those mcpid.Parse rejects.
	BareIDs bool
	// DefaultConnection is the connection of a bare id given without
	// connection_id; "" means none, and such an id is invalid_id.
	DefaultConnection string
	// Logger records the failures the model sees only generically, with
	// their own words; nil means slog.Default(), as it is at each call.
	Logger *slog.Logger
	// OnDropped, else Logger, hears of each hit left out as unfetchable.
	OnDropped func(index int, hit mcpid.Hit, err error)
	// OnCall, when set, hears of every call once, with its outcome, before
	// the answer returns: keep it quick. It may be called concurrently.
	OnCall func(ctx context.Context, c Call)
}
