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
//	handle       = [ connection "/" ] stream ":" record
//	connection   = name-nocolon
//	stream       = name-nocolon
//	record       = name                 ; may itself contain ":"
//	name         = 1*namechar           ; not ".", and without ".."
//	name-nocolon = name without ":"
//	namechar     = any Unicode scalar value except "/", "\",
//	               U+0000-U+001F, U+007F and U+0080-U+009F
//
// For example cin_4f2a/orders:o1 is the record o1 of the stream orders in
// the connection cin_4f2a, and orders:o1 is the same record in the legacy
// form, which leaves the connection to the fetch call's connection_id
// argument or to the resource server.
//
// [Parse] splits at the first '/' and then at the first ':' after it;
// [Encode] builds the id from its parts, and the two are exact inverses.
// [Handle] is the parsed value.
//
// # Why each character is reserved
//
//   - '/' separates the connection. No segment may contain it, so its
//     presence alone marks the self-contained form: there is no version
//     prefix and no escaping, and every legacy id keeps its meaning. It is
//     also the path separator of the resource server's URLs, where a stray
//     one would change the path.
//   - ':' separates the stream from the record, at its first occurrence.
//     The connection and the stream cannot contain it, which is what makes
//     the first ':' the boundary; the record may, so record ids such as
//     urn:x:y need no change.
//   - '\' is a path separator on some systems and an escape character in
//     many formats; a segment holding it could climb a path or change
//     meaning when unescaped.
//   - ".." anywhere in a segment, and a segment equal to ".", are path
//     traversal: a record "../../etc/passwd" must fail before any request
//     is built, not be trusted to escaping.
//   - Control characters (C0, DEL and C1) are never legitimate in an id,
//     and they forge lines in logs and in the text a model reads.
//   - Invalid UTF-8 cannot be shown or compared faithfully across JSON,
//     logs and model text, which would replace it.
//
// The last two are a deliberate tightening over ids that were once
// accepted anywhere: such ids never worked end to end.
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
// server. The id's embedded connection wins; an equal connection_id is
// accepted, a different one is an error. The library never invents or
// rewrites a connection id: the resource server remains the authority on
// which connections a caller may read.
//
// # Errors
//
// Every failure is an [*Error] with a stable [Code], the field and segment
// at fault, the byte offset of the fault, and a hint that tells the agent
// what to pass instead. Match codes with [errors.Is] and the sentinels
// ([ErrInvalidID], [ErrInvalidConnectionID], [ErrConflictingConnectionID],
// [ErrAmbiguousConnection]) or with [errors.As]; never with the message.
// [Error.MarshalJSON] gives the JSON envelope for an MCP tool error.
//
// # Performance
//
// [Parse], [ResolveFetch], the [Handle] accessors and [Handle.AppendText]
// into a buffer with room do not allocate; [Encode] allocates once, for
// its result. Parse checks eight bytes at a time, a plain ASCII word with
// one test, so checking an id costs a small multiple of splitting it
// without checks (see the benchmarks).
package mcpid
