package searchfetch

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpid/mcpid"
)

// Mode selects the contract the two tools follow.
type Mode uint8

// The modes of [Options.Mode].
const (
	// ModeDefault: fetch takes id and an optional connection_id, and the
	// search text is the prose preview (the zero value).
	ModeDefault Mode = iota
	// ModeChatGPT: OpenAI's search and fetch contract. search takes exactly
	// {"query"}, fetch exactly {"id"}, and each answers with one text item
	// holding JSON.
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
	// StructuredShown: exactly the hits the text shows, in the same
	// order, with the same complete ids, the fields the text shows cut
	// where the text cuts them, and connection_id only where the text
	// shows one, plus total and has_more; serialized, it fits the
	// preview's budget. Hosts that give the model structuredContent
	// instead of the text (Claude Code, VS Code, Copilot CLI, the Codex
	// app, ChatGPT with a widget) so show it what the text would have
	// shown. The zero value.
	StructuredShown Structured = iota
	// StructuredAll: every hit with every field, url included, and its
	// own connection_id, unbudgeted. Only for clients that do not show
	// structuredContent to a model, such as a program that lists every
	// result to a person.
	StructuredAll
	// StructuredNone: no structuredContent and no output schema; the
	// text alone.
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

// MinBudget is the smallest preview budget the tools use. It leaves room
// for the counts of a search that shows no hit in every channel.
const MinBudget = 128

// DefaultFetchBudget is the fetch budget when [Options.FetchBudget] is
// zero: 64 KiB, within what hosts show a model of one tool result (Claude
// Code about 25,000 tokens; Codex CLI 10 KiB, so a server for it sets a
// lower budget).
const DefaultFetchBudget = 64 << 10

// MinFetchBudget is the smallest fetch budget the tools use: room for a
// document's id, title, url and the marks of a cut text besides some of
// the text.
const MinFetchBudget = 1 << 10

// DefaultTimeout is how long a backend call may take when
// [Options.Timeout] is zero.
const DefaultTimeout = 30 * time.Second

// Options configures [New]. The zero value, and a nil *Options, mean the
// defaults.
type Options struct {
	// Mode is the contract of the tools: ModeDefault or ModeChatGPT.
	Mode Mode
	// Preview configures the search text. Format is set by Mode, and Total
	// and HasMore come from the backend's SearchResult; the other fields
	// (budget, hit count, field caps) are used as given, but for a Budget
	// below MinBudget (negative included), which means MinBudget.
	Preview mcpid.PreviewOptions
	// Structured chooses what a search's structuredContent holds; see
	// [Structured]. In ModeChatGPT it is the same object as the text but
	// with StructuredNone. The zero value is StructuredShown.
	Structured Structured
	// OpenWorld is the openWorldHint annotation of both tools: true when
	// the sources reach an open world of external entities (the web, a
	// public index), false for a closed set of the server's own records.
	OpenWorld bool
	// Sealer, when set, seals every id search shows, in the text and in
	// structuredContent, and fetch opens the id it is given before
	// anything else: an id that no search issued (mangled, cut short, made
	// up) is an unknown_id error and never reaches the backend; the
	// document echoes the id as given. It also binds search's cursors to
	// the caller, the query and the page options. See [mcpid.Sealer].
	Sealer *mcpid.Sealer
	// AcceptUnsealed lets fetch take unsealed ids too, for a server that
	// turns sealing on while conversations still hold the ids it showed
	// before: such an id is resolved as it is, without the protection of
	// a seal. Turn it off once those conversations are over. It does
	// nothing without a Sealer.
	AcceptUnsealed bool
	// Aliases, when set, are short names the model sees instead of
	// connection ids (see [mcpid.Aliases]): a GCP connection
	// projects/acme/locations/eu/connections/drive-1 with the alias drive1
	// has ids such as drive1/:1BxiMVs0XRA5nFMdKvB instead of ids that
	// start with projects%2Facme%2Flocations%2Feu%2Fconnections%2Fdrive-1/.
	//
	// search embeds the alias wherever the model sees a connection: the
	// ids, the connection_id of StructuredAll's results, and the
	// available_connections (in ModeChatGPT, available_ids) of an
	// ambiguous_connection error. A hit whose connection has no alias but
	// is another connection's alias is left out, counted and reported
	// (OnDropped), as an unfetchable hit is: its id would fetch from the
	// other connection.
	//
	// fetch opens the seal of the id as given, resolves the opened id
	// (FetchRequest.Handle and EchoID hold it as shown, alias included,
	// without its seal; the document's id is the id as given), then maps
	// an alias it embeds to its connection: the connection_id check,
	// Authorize and the backend see the real connection id
	// (FetchRequest.ConnectionID, Access.ConnectionID), never the alias.
	// A connection_id argument may be the alias or the real id. Ids that
	// embed a real connection id, as minted before the aliases were set,
	// still fetch.
	//
	// Never give an alias to another connection while ids that embed it
	// may live in conversations: they would fetch from the new
	// connection. Retire an alias with its connection.
	Aliases *mcpid.Aliases
	// Authorize, when set, decides whether the caller of a tool may read
	// a connection: a handle is a name, not a capability. The caller is
	// in ctx ([CallerFrom]) when the transport verified one.
	//
	// fetch calls it after the id resolved ([mcpid.ResolveFetch], seal
	// opened) and before the backend, with the connection the request
	// names, "" for an unscoped fetch of a legacy id (the authorizer then
	// decides whether this caller may have the backend find the record,
	// and the backend checks the connection it picks). search calls it
	// once per distinct connection among all the hits the backend
	// returned, not only those it shows, before it judges whether a hit
	// can be fetched, so that every count it shows (the total, the hits
	// not shown, has_more) counts only hits the caller may read. Bounded:
	// at most 64 connections, the first in hit order; at most 8 calls at
	// once; all within one Timeout from the start of the search. Hits of
	// further connections, or of one whose answer did not come in time,
	// are neither shown nor counted, and the result says that more may
	// exist; an answer that does not come in time for a hit the page
	// would show fails the search (resource_unavailable). The backend's
	// own Total and HasMore are ignored unless it counted them for the
	// caller ([SearchResult.CountsForCaller]). An ambiguous_connection
	// answer lists only the connections (in ModeChatGPT, ids) it allows.
	//
	// nil allows. An *mcpid.Error is the answer as it is. Any other error,
	// and a panic, is a denial: fetch answers forbidden
	// ([mcpid.CodeForbidden]), the same whether or not the record exists,
	// and never calls the backend; search leaves out the hits of that
	// connection without counting them (they are not in total, nor among
	// the hits not shown: a count would tell that records exist there),
	// and never fails for them (all denied is an empty result). Each call
	// is bounded as a backend call is (see Timeout): one that does not
	// answer in time is resource_unavailable. It may be called
	// concurrently.
	Authorize func(ctx context.Context, a Access) error
	// SearchName and FetchName are the names the tools are registered
	// under; "" means SearchName and FetchName. The descriptions and the
	// hints mcpid writes are built from these names; a hint a backend
	// wrote reaches the model exactly as written. Each must be a valid MCP tool
	// name (1 to 128 of A-Z a-z 0-9 _ - .), and the two must differ.
	SearchName string
	FetchName  string
	// Timeout bounds each backend call; 0 means DefaultTimeout and a
	// negative value means no bound beyond the request's context. Where
	// the request's context has a deadline that comes first, that
	// deadline alone bounds the call. The backend's context ends at the
	// bound, and the call is answered there whatever the backend does: one
	// that ignores its context (a plain blocking call) gets a
	// resource_unavailable answer (retryable) at the bound, and its late
	// answer is dropped. For that the backend runs on a pooled worker
	// goroutine rather than the SDK's goroutine of the call; a worker whose
	// call outlives the bound is retired and replaced, and at most about
	// [MaxHungCalls] such calls run on before new ones are refused. A panic
	// is recovered as a tool error. A negative Timeout runs the backend
	// inline, as Inline does.
	Timeout time.Duration
	// Inline runs the backend on the SDK's goroutine of the call instead
	// of a pooled worker. Its context still ends at Timeout, but a backend
	// that ignores its context holds the call until it returns: set it only
	// for a backend that honours its context (every request it makes takes
	// ctx). It saves two switches between goroutines and one allocation a
	// call: about 2 µs on 2 cores without an SDK (BenchmarkBound), and 9 to
	// 21% of a search or fetch round trip over an SDK's in-process
	// transport on a loaded 2-core machine, where a switch wakes the other
	// core's thread (docs/performance-adapters.md).
	Inline bool
	// FetchBudget bounds the bytes of a fetch result's JSON, the text and
	// structuredContent each, escapes included; 0 means DefaultFetchBudget
	// and a value below MinFetchBudget (negative included) means
	// MinFetchBudget. A document whose JSON would not fit has its text cut
	// at a UTF-8 boundary where the result fits, and says so. In ModeDefault
	// the result gets the members "truncated": true, "total_length" (the
	// bytes of the whole text) and "next_offset" (the byte of the text
	// where the next part starts), and the fetch tool takes an optional
	// integer argument offset that reads on from such a byte. In
	// ModeChatGPT, whose fetch takes only an id, the document's metadata
	// gets "truncated": "true" and "total_length", and its text ends with
	// a note that it was cut. A document whose other fields (title, url,
	// metadata, the id) leave no room for text within the budget is an
	// invalid_resource_response error. Offsets count bytes of the text as
	// the backend gave it; in a text that is not valid UTF-8 each invalid
	// byte reads as U+FFFD, as encoding/json writes it. A cut costs
	// O(FetchBudget), whatever the text's length.
	FetchBudget int
	// SearchDescription and FetchDescription replace the tools' default
	// descriptions when not empty: say what the sources hold, so that a
	// model knows when to search them. The defaults explain the ids.
	SearchDescription string
	FetchDescription  string
	// Logger, when set, records the backend failures that reach the model
	// only as a generic envelope: errors that are not an *mcpid.Error,
	// panics and timeouts; and, when OnDropped is nil, the search hits
	// left out as unfetchable (at level Warn, with their index and why).
	Logger *slog.Logger
	// OnDropped, when set, is told of every search hit left out because
	// no id the tools show could fetch it: index is its position in
	// SearchResult.Hits, hit is the hit as the backend returned it, and
	// err an invalid_resource_response *mcpid.Error saying why (an empty
	// id, one that is not valid UTF-8 or holds a control character, a
	// connection that is not a connection id, no connection and an id
	// that is not a legacy stream:record handle, fetch arguments that
	// would exceed MaxArgumentsSize). Such a hit is not shown and is counted among the
	// hits not shown; the search fails only when every hit it looked at
	// was left out. It is called on the goroutine of the call, and may be
	// called concurrently by concurrent searches.
	OnDropped func(index int, hit mcpid.Hit, err error)
	// OnCall, when set, hears of every call of either tool once, with its
	// outcome ([Call]): success or error code, caller, connections read,
	// timings, hits shown, dropped and denied, bytes of the answer. It is
	// called on the goroutine of the call, before the answer returns, so
	// it should be quick (hand slow work on); it may be called
	// concurrently. Argument errors, timeouts, denials and backend panics
	// are calls too. Unset, it costs nothing.
	OnCall func(ctx context.Context, c Call)
}
