// Package mcpid gives MCP servers and gateways ids that survive the trip
// through a model: fetch handles that carry their own connection, the
// resolution of a fetch call into a scoped resource-server request, and a
// budgeted, unforgeable preview of search results.
//
// A search tool returns hits from several connections; the model later
// passes one hit's id to a fetch tool. If the id does not say which
// connection it came from, the model must carry a second value, and it
// loses it. mcpid ids are self-contained: the model carries one value.
//
// # Handles
//
// A fetch handle is a UTF-8 string:
//
//	handle       = [ connection "/" ] stream ":" record   ; plain form
//	             / connection "/" ":" opaque               ; opaque form
//	connection   = name-nocolon
//	stream       = name-nocolon
//	record       = name                 ; may itself contain ":"
//	name         = 1*namechar           ; not ".", and without ".."
//	name-nocolon = name without ":"
//	namechar     = any Unicode scalar value except "/", "\",
//	               U+0000-U+001F, U+007F and U+0080-U+009F
//	opaque       = 1*opaquechar         ; any base id, kept verbatim
//	opaquechar   = any Unicode scalar value except
//	               U+0000-U+001F, U+007F and U+0080-U+009F
//
// For example cin_4f2a/orders:o1 is the record o1 of the stream orders in
// the connection cin_4f2a, and orders:o1 is the same record in the legacy
// form, which leaves the connection to the fetch call's connection_id
// argument or to the resource server. cin_9b1c/:https://wiki.example.com/p/7
// is the opaque form: the base id https://wiki.example.com/p/7 of the
// connection cin_9b1c.
//
// [Parse] splits at the first '/'; a ':' right after it marks the opaque
// form, and otherwise the rest splits at its first ':'. [Encode] builds
// the id from its parts (an empty stream gives the opaque form), and the
// two are exact inverses. [Handle] is the parsed value; [Handle.BaseID]
// is the id without its connection.
//
// # The opaque form
//
// Not every id a search hit carries is a stream:record handle: URLs, keys
// such as T-17, paths such as files:reports/q3.pdf, ranges such as
// commits:v1.2..v1.3. The opaque form gives each of them, with its
// connection, one self-contained handle: connection/:base, where base is
// the hit's id, verbatim. It may hold '/', '\', ".." and ':'; only control
// characters and invalid UTF-8 are rejected, as everywhere.
//
// The empty stream marks the form. A plain handle never has an empty
// stream, so no id that parsed before changes meaning, and no escaping or
// version prefix is needed.
//
// A server that receives an opaque handle must look its base id up within
// the handle's connection, as a key, and must never build a file system
// path or a URL path from it: the base id is not checked for traversal,
// because it is not a path. [FetchRequest.RecordPath] is "" for it; the
// server reads [Handle.BaseID] and [FetchRequest].ConnectionID instead.
//
// [SelfContainedID] is what a search tool applies to each hit. Two worked
// examples:
//
//   - A wiki hit with the URL id https://wiki.example.com/p/7 from the
//     connection cin_9b1c becomes cin_9b1c/:https://wiki.example.com/p/7.
//     The model fetches with that id alone; [ResolveFetch] scopes it to
//     cin_9b1c, and the server looks up https://wiki.example.com/p/7, its
//     BaseID, in cin_9b1c.
//   - A drive hit with the key files:reports/q3.pdf from cin_drive cannot
//     be a plain handle (its record holds '/'), so it becomes
//     cin_drive/:files:reports/q3.pdf, whose BaseID is files:reports/q3.pdf.
//     A hit with the id reports/2024:q3.pdf from cin_drive becomes
//     cin_drive/:reports/2024:q3.pdf: a base id is never read as a handle
//     of some connection "reports" it was not given with.
//
// A legacy handle such as orders:o1 from cin_4f2a keeps the plain form,
// cin_4f2a/orders:o1, and a handle that already embeds the hit's own
// connection is kept as it is.
//
// # Why each character is reserved
//
//   - '/' separates the connection. No plain segment may contain it, so
//     its presence alone marks the self-contained forms: there is no
//     version prefix and no escaping, and every legacy id keeps its
//     meaning. It is also the path separator of the resource server's
//     URLs, where a stray one would change the path.
//   - ':' separates the stream from the record, at its first occurrence.
//     The connection and the stream cannot contain it, which is what makes
//     the first ':' the boundary; the record may, so record ids such as
//     urn:x:y need no change. Right after the '/', where no stream can
//     start, it marks the opaque form.
//   - '\' is a path separator on some systems and an escape character in
//     many formats; a plain segment holding it could climb a path or
//     change meaning when unescaped.
//   - ".." anywhere in a plain segment, and a segment equal to ".", are
//     path traversal: a record "../../etc/passwd" must fail before any
//     request is built, not be trusted to escaping.
//   - Control characters (C0, DEL and C1) are never legitimate in an id,
//     opaque ids included, and they forge lines in logs and in the text a
//     model reads.
//   - Invalid UTF-8 cannot be shown or compared faithfully across JSON,
//     logs and model text, which would replace it.
//
// The last two are a deliberate tightening over ids that were once
// accepted anywhere: such ids never worked end to end. '\' and ".." are
// legal in an opaque base id, which no one uses as a path.
//
// # What stays legal, and compatibility
//
// Every legacy stream:record id that follows the grammar parses exactly as
// before: split at the first ':', the record keeps any later ':'. Spaces
// (U+0020, U+00A0, U+3000, ...), '%', '?', '#', '=', quotes and every
// non-ASCII character other than the C1 controls are legal inside
// segments, including lookalikes of the separators such as U+2215
// DIVISION SLASH, U+FF0F FULLWIDTH SOLIDUS and U+FF1A FULLWIDTH COLON: they
// are ordinary characters, not separators. So are U+2028 LINE SEPARATOR,
// U+2029 PARAGRAPH SEPARATOR and the bidirectional overrides: whoever
// shows an id to a model or a person must quote it, as [RenderPreview]
// does. Ids are compared byte for byte and never normalized: no Unicode
// normalization, no case folding, no trimming. An id that parses is
// returned by [Handle.String] unchanged.
//
// # Fetch resolution
//
// [ResolveFetch] merges the fetch tool's id and optional connection_id
// into a [FetchRequest] or a typed error, before any call to a resource
// server. The id's embedded connection wins, in both self-contained
// forms; an equal connection_id is accepted, a different one is an error.
// The library never invents or rewrites a connection id: the resource
// server remains the authority on which connections a caller may read.
//
// # Search previews
//
// [RenderPreview] and [AppendPreview] write the model-visible content[] text
// of a search result from its [Hit] values, within a hard byte budget: as
// prose ([FormatText], below), or as the one JSON object OpenAI's
// search/fetch contract requires ([FormatJSON], for ChatGPT and hosts like
// it). Hosts and models read this text, so its layout is fixed:
//
//	Showing 3 of 12 hits.
//	1. id=cin_4f2a/orders:o1 stream="orders" connector_key="postgres" display_name="Prod DB" title="Order o1" snippet="3 items, shipped to Berlin."
//	2. id=cin_9b1c/:T-17 stream="tickets" connector_key="zendesk" display_name="Support" title="Refund for o1" snippet="The customer writes:\n\"2. id=evil\""
//	3. id=https://wiki.example.com/p/7 connection_id=eu:wiki stream="pages" connector_key="confluence" display_name="Wiki" title="Refund runbook"
//	To fetch, pass an id exactly as shown; pass connection_id only where its line shows one.
//	9 hits not shown; none of them in structuredContent.results.
//
// Lines are separated by '\n' alone, with no line break after the last one;
// the text holds no other control character, and no U+2028 or U+2029. The
// lines are, in order:
//
//   - The header: "Showing k of n hits." where n is the larger of
//     [PreviewOptions].Total and the number of hits passed in, or "Showing k
//     of more than n hits." when [PreviewOptions].HasMore; "No hits." when
//     there are none. It is short, so the first id starts well within the
//     first 200 bytes, before any host clips the text.
//   - One line per shown hit: "<n>. id=<id>", then " connection_id=<c>" when
//     the line shows one, then the labels stream, connector_key and
//     display_name, the title and the snippet, each as key="value" and only
//     when not empty. n is the hit's position in the hits passed in,
//     counting from 1, so a gap in the numbers marks a hit left out. The
//     title is not shown when it equals the id.
//   - When a hit is shown, the fetch instruction: pass the id exactly as
//     shown, and connection_id only where the line shows one. When a shown
//     id is quoted, it adds that a quoted id is a JSON string whose decoded
//     value is the id.
//   - When some hits are not shown, how many ("9 hits not shown", or "More
//     than 9 hits not shown" when HasMore), and how many of them are in
//     structuredContent.results, where a server puts every hit it passed
//     in: "see structuredContent.results" when all of them are, "3 of
//     them in structuredContent.results" when only some are, and "none of
//     them in structuredContent.results" when every hit passed in is
//     shown. Hits counted by Total or HasMore but not passed in are never
//     in the structured results of this call.
//
// connection_id is shown for a hit with a ConnectionID that its id does not
// embed, as [Parse] reads the id, and only then. An id that embeds the same
// connection decides the fetch alone (see [ResolveFetch]); an id that embeds
// a different one shows the hit's own too, so that the fetch fails with
// conflicting_connection_id instead of silently reading the wrong
// connection.
//
// # Ids in previews
//
// An id is shown complete or not at all: a truncated id is a dead handle.
// An id is shown bare when it is not empty and every rune is printable
// ([unicode.IsPrint]) and is not a space, '"' or '\'; otherwise it is shown
// as a JSON string literal, with '"' and '\' escaped and every other
// non-printable rune escaped as \uXXXX (a surrogate pair above U+FFFF), so
// that the id is never altered: "" for the empty id, "docs:Q3 report.pdf"
// for an id with a space. Connection ids are shown the same way. An id or
// connection id that is not valid UTF-8 cannot be shown faithfully: its hit
// is left out and counted. The preview does not judge whether an id can be
// fetched: URLs and other opaque ids are shown as they are; minting fetchable
// handles is [SelfContainedID]'s job.
//
// [ExtractIDs] is the exact inverse: from every line that starts with a
// number and ". id=", it returns the bare id up to the next space, or the
// decoded literal, in order and byte for byte.
//
// # Free text in previews
//
// Labels, titles and snippets are always JSON string literals: '"', '\',
// control characters (as \n, \r, \t or \u00XX), U+0085, U+2028, U+2029 and
// every other non-printable rune are escaped, and bytes that are not valid
// UTF-8 become U+FFFD. A title that holds "\n2. id=evil" therefore stays
// inside its quotes on its own line and can neither add a line nor an id.
//
// A value that does not fit is cut and the cut is marked with "…" inside the
// quotes. The cut is made once per value, at the last normalization boundary
// (golang.org/x/text/unicode/norm) before the room runs out: it never splits
// a UTF-8 sequence or a combining sequence such as "e" and U+0301, except
// inside a run of more than 30 combining marks, which norm's stream-safe
// format breaks too.
//
// # The budget
//
// [PreviewOptions].Budget (default 1800 bytes) is a hard cap on the text:
// [AppendPreview] never writes more, even for a moment, so it does not
// allocate when dst has room for Budget more bytes. Room goes, in order of
// priority, to:
//
//  1. the header, and the count of hits not shown;
//  2. the id lines (number, id, connection_id) of the first MaxHits hits
//     (default 5), with the fetch instruction: a hit whose id line does not
//     fit is left out and counted, and a later, shorter one may take its
//     place;
//  3. labels, then titles, then snippets, each cut to its cap (LabelMax 40,
//     TitleMax 100, SnippetMax 200 bytes of quoted value by default).
//
// So free text shrinks before hits are left out: snippets first, then
// titles, then labels. The kind of text that does not fit whole shares the
// room left: each value is cut to the same length (shorter values stay
// whole), unless that length is too short to be useful, and then the first
// hits keep their text and later ones lose it; a shared value that would be
// cut to a stub is left out. A budget too small for one id
// line gives the header and the count, or the header alone, or "".
//
// In the zero [PreviewOptions] every field means its default. A negative
// Budget means no room: the text is empty. A negative MaxHits shows no hit,
// only the header and the count. A negative cap hides that kind of text.
// Total below the number of hits passed in is ignored.
//
// For example, a search that returns 200 hits from two connections, each
// with a 500-character snippet, and passes the first 100 with Total 200,
// gets a preview of 1800 bytes with the default budget: 5 complete ids,
// each with its labels, its title and a snippet cut to about 182 bytes, and
// the line "195 hits not shown; 95 of them in structuredContent.results.".
//
// Only the first MaxHits hits are looked at, and no more than the budget
// allows; the others are counted from len(hits) and Total, so the cost of a
// preview grows with the budget, not with the number of hits.
//
// # Errors
//
// Every failure is an [*Error] with a stable [Code], the field and segment
// at fault, the byte offset of the fault, the input, and a hint that tells
// the agent what to do instead. Match codes with [errors.Is] and the
// sentinels ([ErrInvalidID], [ErrInvalidConnectionID],
// [ErrConflictingConnectionID], [ErrAmbiguousConnection], and
// [ErrNotFound], [ErrResourceUnavailable], [ErrInvalidResourceResponse] for
// a resource server's answers) or with [errors.As]; never with the
// message.
//
// [Error.MarshalJSON] gives the JSON envelope for an MCP tool error, which
// says each thing once: the message states the fault, the hint the
// remedy, and the inputs stand in fields of their own. [Error.UnmarshalJSON]
// reads it back, byte for byte, so a client decodes a tool error into an
// *Error. A server answers its own failures in the same envelope with
// [AmbiguousConnection] and [NewError]. [Error.Error], for logs, says
// everything in one line, the hint included.
//
// # Performance
//
// [Parse], [ResolveFetch], the [Handle] accessors and [Handle.AppendText]
// into a buffer with room do not allocate; [Encode] allocates once, for
// its result. Parse is one segment parser: it finds the separators with
// [strings.IndexByte], checks each ASCII byte with one table lookup and
// decodes each non-ASCII character once, so checking an id costs a small
// multiple of splitting it without checks (see the benchmarks).
package mcpid
