// Package searchfetch gives an MCP server its search and fetch tools, apart
// from any SDK.
//
// The server implements a [Backend]. This package supplies the tool
// definitions, the argument checks, the ids, the preview text, the
// structured results and the error envelopes. The modules
// github.com/mcpid/mcpid/gosdk and github.com/mcpid/mcpid/mcpgo register the
// two tools on a server of the official go-sdk or of mcp-go in one call.
// A server on another SDK calls [Tools.Search] and [Tools.Fetch] itself and
// turns each [Result] into its SDK's tool result.
//
// # What the tools do
//
// search calls [Backend.Search] and gives every hit the id the model should
// fetch it by: [mcpid.SelfContainedID] of the hit's id and connection. That
// id fetches that hit, and no other, by itself, in both modes. Hits that
// come out with the same id are shown once, the first of them.
//
// A hit that no shown id can fetch is left out and counted among the hits
// not shown. It is reported to the server ([Options.OnDropped], or
// [Options.Logger]) with its index and why. Such a hit is one:
//
//   - whose connection is not a connection id (see [mcpid.ResolveFetch]),
//     as CORP\drive;
//   - whose id is empty, not valid UTF-8 or holds a control character;
//   - that has no connection and an id that is not a legacy stream:record
//     handle (a single-source server gives its hits its source's name as
//     connection);
//   - or whose fetch arguments would exceed [MaxArgumentsSize] as a client
//     may escape them (every non-ASCII rune as \uXXXX).
//
// One odd record does not take down every search that finds it. The search
// fails, with invalid_resource_response, only when the backend returned
// hits the caller may read and none of them can be shown (on a first page
// with no further backend page). Its answer holds one text content item,
// the preview the model reads. It holds structuredContent as
// [Options.Structured] chooses.
//
// # Every channel a host shows the model is budgeted
//
// Hosts differ in what they give the model of a tool result. Claude Code,
// VS Code, Copilot CLI, the Codex app and ChatGPT with a widget give it
// structuredContent, as JSON, and drop the text when both are present.
// Codex CLI, Cursor and ChatGPT connectors give it the text.
//
// So by default ([StructuredShown]) structuredContent holds exactly what the
// text shows. It has the same hits, in the same order, with the same
// complete ids. Its fields are cut where the text cuts them, it has
// connection_id only where the text shows one, and it has the counts.
// Serialized, it fits the preview's budget, as the text does, whatever the
// backend returned. [StructuredAll] gives every hit with every field,
// unbudgeted, for clients that do not show structuredContent to a model.
// [StructuredNone] gives none. A search looks only at the hits the preview
// can show. So its cost grows with the budget, not with the number of hits
// the backend returns (but with StructuredAll).
//
// # Definitions hosts accept
//
// Both tools declare an output schema. Every structuredContent they return
// validates against it, error envelopes included, since a client that
// validates (the TypeScript SDK's does) validates an error result too. Both
// set all four annotations explicitly, false ones included, since a host's
// review may reject a tool that leaves one unset. They are readOnlyHint
// true, destructiveHint false, idempotentHint true, and openWorldHint as
// [Options.OpenWorld] says. The tools are named search and fetch unless
// [Options.SearchName] and [Options.FetchName] say otherwise. Descriptions,
// argument descriptions and error hints name them as registered.
//
// fetch resolves its arguments with [mcpid.ResolveFetch] before it calls
// [Backend.Fetch]. A malformed id, a malformed connection_id and a
// connection_id that conflicts with the id's own are answered without any
// backend call. The document the backend returns goes back with its id set
// to the id as the model gave it. It goes as the text of one content item
// (its JSON) and as structuredContent. That JSON fits [Options.FetchBudget]
// (64 KiB by default), escapes included. A longer text is cut at a UTF-8
// boundary, and the result says so. In ModeDefault it gives next_offset,
// which the model passes back as fetch's offset argument to read on. A
// record that is JSON goes as [Document.Data], the result's data member,
// rather than as an escaped string. Data that does not fit is given as
// text, read on alike.
//
// # Authorization
//
// A handle is a name, not a capability (MCP 2026-07-28): an id names a
// connection, and a caller who holds it may still have no right to read
// it. [Options.Authorize] is asked on every call, with the caller the
// transport verified in the context ([Caller], [CallerFrom]).
//
// fetch asks it for the connection its request names before the backend
// runs. A denial is forbidden, the same answer whether or not the record
// exists. search asks it once per distinct connection among all the hits
// the backend returned. It leaves out, uncounted, the hits of a connection
// it denies, so every count a search shows counts only hits the caller may
// read. So every hit a caller is shown is one that caller can fetch.
// Without an authorizer, the backend checks the caller itself.
//
// # Pages
//
// In ModeDefault, search takes an optional cursor argument. A result whose
// caller may have more hits than it shows ends with a line that says to
// call search again with the same query and that cursor.
// structuredContent holds the cursor as next_cursor. Pages follow the hits
// the backend returned, each readable hit shown once across them, for a
// backend that answers a query alike each time. A backend that pages itself
// returns [SearchResult.NextCursor] and gets it back as [Query.Cursor],
// with or without an authorizer.
//
// Pages never lie. A page says "Showing N of N" or ends without a way on
// only when the caller has no further readable hit. When that cannot be
// ruled out, it says "or more" and ends with the cursor's line. When no
// cursor can be given (a backend cursor too long to carry, or one that
// loops), it ends with the advice to narrow the query instead. A page gives
// up its other hits, then the fetch instruction and the count of hits not
// shown, before that line. Only a budget too small for its first hit and
// the line together ends paging without one.
//
// The cursor holds all the state, so any replica serves any page. It counts
// only hits the caller may read. With a Sealer it is bound to the caller,
// the query and the page options, and another's or an edited one is
// refused. Without one it is bound to its query only.
//
// # A server's own shape
//
// A server that already has search and read tools keeps every call that
// worked. [Options.QueryArg] and [Options.IDArg] name the query and the id
// as its tools did. [Options.SearchArgs] and [Options.FetchArgs] declare
// its other arguments, which are checked and handed to the backend as
// [Query.Args] and [FetchRequest.Args]. [Options.BareIDs] with
// [Options.DefaultConnection] keeps the ids it issued before fetching what
// they fetched. Its own tools that take an id read the record fetch would
// through [Tools.Resolve].
//
// # Aliases
//
// Connection ids such as GCP resource names and ARNs are long, and an id
// that embeds one escaped costs a model some 20 tokens before the record's
// own id. [Options.Aliases] gives each connection a short name the model
// sees instead ([mcpid.NewAliases]). search embeds the alias and fetch maps
// it back. The authorizer and the backend only ever see the real
// connection id. An alias, once its ids are shown, is never given to
// another connection while conversations may hold them.
//
// # Modes
//
// [ModeDefault] is for any MCP client. fetch takes id and an optional
// connection_id, and the search text is the prose preview of
// [mcpid.FormatText]. [ModeChatGPT] follows OpenAI's search and fetch
// contract (ChatGPT connectors, deep research, company knowledge). search
// takes exactly {"query"} and fetch exactly {"id"}. The one text item of
// search holds the JSON of [mcpid.FormatJSON]. Since fetch has no
// connection_id in this mode, no answer asks for one. An
// ambiguous_connection error (a legacy id from an older conversation,
// found in several connections) lists instead the self-contained ids to
// retry with ([mcpid.AmbiguousConnectionIDs]).
//
// In ModeChatGPT, structuredContent is the same object as the text, and a
// fetched document's url follows the rule of the search results: an
// absolute http or https URL, or "".
//
// # Errors
//
// Every failure is a tool error (isError true). Its one text item and its
// structuredContent are both the JSON envelope of an [*mcpid.Error]
// ([mcpid.Error.MarshalJSON]). So a model reading text and a client reading
// fields see the same thing:
//
//   - [CodeInvalidArguments]: arguments that are not a JSON object, lack a
//     required argument, or exceed [MaxArgumentsSize] bytes. Also an
//     argument that is not a string (or, for one the server declared, not
//     of its type and enum, with its name as Field). Also an argument the
//     tool does not take, in both modes (a misspelled connection_id must
//     not be dropped silently), or one named twice.
//   - [CodeInvalidArguments] with Field [FieldOffset]: an offset argument
//     that is not a JSON integer, is negative, or lies past the end of the
//     text or inside a character. A JSON integer is a number whose exact
//     value is whole, such as 3, 3.0 or 3e0, with an exponent within ±30.
//   - the codes of [mcpid.ResolveFetch]: invalid_id, invalid_connection_id
//     and conflicting_connection_id. [Options.IDArg] is the Field of an
//     error about the id. A bare id with no connection to read it in is
//     invalid_id.
//   - an [*mcpid.Error] the backend returns, such as
//     [mcpid.AmbiguousConnection] for a resource server's 409 or a
//     not_found: passed on as it is (but for ambiguous_connection in
//     ModeChatGPT, above).
//   - resource_unavailable, retryable: a backend that does not answer
//     within [Options.Timeout]. Also any other backend error that says the
//     same call may succeed later (a deadline, a cancellation, Timeout or
//     Temporary reporting true).
//   - resource_error, not retryable: any other backend error and a backend
//     panic.
//   - invalid_resource_response, logged as a backend failure is: a search
//     whose hits no id can fetch, not one of them (above). Also a document
//     whose fields besides its text leave no room for text within the fetch
//     budget, or one with both Text and Data or with Data that is not a
//     JSON object or array.
//   - forbidden: a fetch the authorizer denies. An authorizer that does not
//     answer within [Options.Timeout] gives resource_unavailable. Its own
//     *mcpid.Error passes as it is.
//
// The resource_unavailable and resource_error envelopes of a backend
// failure are generic: neither holds the backend's own message.
// [Options.Logger] (else slog.Default) records that message at level Error
// with the tool and the connection.
//
// Every hint the tools write names a step that can succeed, with the tools
// as registered. A forbidden answer may be to an id the model was shown
// (the server restarted without the alias it embeds), so it says to search
// again. A search whose backend fails with a code about fetch's arguments
// says to search with other words, since search takes only a query.
//
// # What the operator sees
//
// [Options.OnCall] hears every call once, with its outcome ([Call]). That is
// the code the model saw, the caller and the connections read. It is also
// the time spent in the backend and the authorizer, and the hits shown,
// dropped and denied.
// An audit log, metrics and traces hang on it; the example server's -otel
// flag wires it to OpenTelemetry.
//
// # Choices where the contract is silent
//
// query is required in both modes; what an empty query means is the
// backend's choice. Unknown arguments are rejected in both modes, and keys
// match exactly (encoding/json would match "ID" to id). The backend runs
// on a pooled worker goroutine with its context bounded by
// [Options.Timeout]. The call is answered at the timeout even when the
// backend ignores its context. A panic is recovered as a tool error.
// [Options.Inline] runs it on the goroutine the SDK gives each call
// instead, for a backend that honours its context. The authorizer runs as
// the backend does, with a bound of its own: a fetch may spend Timeout in
// the authorizer and Timeout in the backend.
//
// In a search, an authorizer's answer that decides nothing (a timeout, an
// *mcpid.Error whose code is not forbidden) is the search's answer: a hit
// is left out only for a denial. The fetch arguments a shown id must fit
// are counted as the most verbose client writes them. That is a space after
// ':' and ',', every non-ASCII rune as \uXXXX, and '<', '>' and '&' as
// \u003c, \u003e and \u0026, as Go's encoding/json writes them. In
// ModeChatGPT a hint a backend wrote is replaced only when it names
// connection_id (or "connection id"), which fetch does not take there.
//
// # Reference
//
// The doc comments say what each identifier is and the rule a caller must
// know. docs/tools.md in the repository holds the rest of each contract:
// every option's fine print, the JSON of each answer, the paging rules, the
// authorizer's bounds, the backend's obligations and the fields of [Call].
package searchfetch
