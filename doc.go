// Package mcpid gives MCP servers and gateways ids that survive the trip
// through a model.
//
// A search tool returns hits from several connections; the model later
// passes one hit's id to a fetch tool. If the id does not say which
// connection it came from, the model must carry a second value, and it
// loses it. mcpid ids are self-contained: the model carries one value.
//
// # The two calls every server makes
//
// The search tool shows each hit under the id that [SelfContainedID] makes
// of its id and connection. The fetch tool passes the id it gets, with its
// optional connection_id argument, to [ResolveFetch]. It asks the resource
// server for the [FetchRequest] that comes back:
//
//	id, _ := mcpid.SelfContainedID("orders:o1", "cin_4f2a") // cin_4f2a/orders:o1
//	req, err := mcpid.ResolveFetch(id, "")                  // req.ConnectionID is cin_4f2a
//
// The promise is property-tested over arbitrary strings. Every hit that
// search shows is fetchable exactly as shown, by its id alone. No two hits
// share an id, whatever its base id and connection id look like (URLs,
// octo/repo#42, Message-IDs, Windows paths, GCP resource names, ARNs). A
// hit without a connection keeps its id, which fetches only if it is a
// legacy handle. So a single-source server gives its hits its source's
// name as their connection.
//
// Around them, a [Sealer] turns an id a model mangled or made up into an
// error before any fetch. [RenderPreview] writes the hits within a byte
// budget. Every failure is an [*Error] with a stable [Code] and a JSON
// envelope.
//
// # Handles
//
// A fetch handle is a UTF-8 string:
//
//	handle       = [ connection "/" ] stream ":" record   ; plain form
//	             / connection "/" ":" opaque               ; opaque form
//	connection   = 1*( connchar / escape ) ; decodes to a name that
//	                                       ; may hold "/" and ":"
//	escape       = "%25" / "%2F" / "%3A"   ; "%", "/", ":"
//	connchar     = namechar except "%" and ":"
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
// the connection cin_4f2a. orders:o1 is the same record in the legacy
// form, which leaves the connection to the fetch call's connection_id
// argument or to the resource server. cin_9b1c/:https://wiki.example.com/p/7
// is the opaque form: the base id https://wiki.example.com/p/7 of the
// connection cin_9b1c. projects%2Fp1%2Fconnections%2Fc2/:octo/repo#42 is the
// base id octo/repo#42 of the connection projects/p1/connections/c2.
//
// [Parse] splits at the first '/'. A ':' right after it marks the opaque
// form; otherwise the rest splits at its first ':'. [Encode] builds the id
// from its parts (an empty stream gives the opaque form). The two are
// exact inverses. [Handle] is the parsed value; [Handle.BaseID]
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
// the handle's connection, as a key. It must never build a file system
// path or a URL path from it. The base id is not checked for traversal,
// because it is not a path. [FetchRequest.RecordPath] is "" for it. The
// server reads [Handle.BaseID] and [FetchRequest].ConnectionID instead.
//
// Two worked examples of [SelfContainedID], which a search tool applies to
// each hit:
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
// cin_4f2a/orders:o1. Every other base id takes the opaque form, even one
// that looks like a handle of the hit's own connection. In a connection
// named reports, the drive keys reports/2024:q3.pdf and 2024:q3.pdf become
// reports/:reports/2024:q3.pdf and reports/2024:q3.pdf, two ids for two
// records. SelfContainedID never guesses that an id already is a handle. A
// server whose resource server mints self-contained handles parses them and
// passes base id and connection apart.
//
// # Escaped connections
//
// Connection ids are not always plain tokens: GCP resource names
// (projects/p1/connections/c2), ARNs (arn:aws:s3:::bucket) and names such
// as drive:team hold the very characters that separate a handle. So the
// connection segment is the connection id with '%', '/' and ':' escaped as
// %25, %2F and %3A, uppercase. Every connection id that is a name (not
// ".", without '\', ".." or control characters) embeds, and cin_4f2a is
// written as it is. [Parse] accepts only these canonical escapes. Any
// other '%' in a connection segment is invalid_id. So each connection has
// exactly one segment, and [Encode] and Parse stay exact inverses. The
// stream, the record and the opaque base id are never escaped: a '%' there
// is an ordinary character.
//
// # Why each character is reserved
//
//   - '/' separates the connection. No plain segment may contain it (a
//     connection id's own '/' is escaped). So its presence alone marks the
//     self-contained forms: there is no version prefix, and every legacy id
//     keeps its meaning. It is also the path separator of the resource
//     server's URLs, where a stray one would change the path.
//   - '%' starts an escape in the connection segment, and only there; a
//     bare one would make two segments decode to one connection.
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
// legal in an opaque base id, which no one uses as a path. One change made
// before any release: a self-contained id whose connection segment held a
// bare '%' parsed before, and does not now.
//
// # What stays legal, and compatibility
//
// Every legacy stream:record id that follows the grammar parses exactly as
// before: split at the first ':', the record keeps any later ':'. Spaces
// (U+0020, U+00A0, U+3000, ...), '%' (outside the connection), '?', '#',
// '=', quotes and every non-ASCII character other than the C1 controls are
// legal inside segments. That includes lookalikes of the separators such
// as U+2215 DIVISION SLASH, U+FF0F FULLWIDTH SOLIDUS and U+FF1A FULLWIDTH
// COLON: they are ordinary characters, not separators. So are U+2028 LINE
// SEPARATOR, U+2029 PARAGRAPH SEPARATOR and the bidirectional overrides.
// Whoever shows an id to a model or a person must quote it, as
// [RenderPreview] does. Ids are compared byte for byte and never normalized: no Unicode
// normalization, no case folding, no trimming. An id that parses is
// returned by [Handle.String] unchanged.
//
// # Fetch resolution
//
// [ResolveFetch] merges the fetch tool's id and optional connection_id
// into a [FetchRequest] or a typed error, before any call to a resource
// server. The id's embedded connection wins, in both self-contained
// forms. An equal connection_id is accepted; a different one is an error.
// The connection_id argument is the connection id unescaped, and may hold
// '/' and ':'. An embedded connection is compared with it after decoding.
// The library never invents or rewrites a connection id: the resource
// server remains the authority on which connections a caller may read.
//
// A handle is a name, not a capability: anyone can write one. On every
// fetch the server must check that the caller may read the connection the
// request names, exactly as it would for a connection_id argument.
//
// # Sealed ids
//
// Models drift a character, cut an id short, or complete one from memory.
// With sequential record ids the drifted id is valid and silently fetches
// another record. A [Sealer] appends a short HMAC tag to every id a search
// shows (cin_4f2a/orders:o12~k3v9q2x) and opens it at fetch. So an id no
// search issued is an unknown_id error ([ErrUnknownID]) before any
// resource-server call. It is stateless (no table of issued ids) and
// rotates keys (the first seals, every one opens). It is integrity, not
// authorization: the server still checks the caller's grant. A seal adds 8
// bytes to an id, and about 6 tokens of an o200k tokenizer (4 to 8; mean
// 5.7 over 2,000 real-world ids).
//
// # Search previews
//
// [RenderPreview] and [AppendPreview] write the model-visible content[] text
// of a search result from its [Hit] values. They keep within a hard byte
// budget ([PreviewOptions].Budget, 1800 bytes by default). They write one
// of two formats. [FormatText] is numbered lines of prose for hosts that
// show the text to a model. [FormatJSON] is the one JSON object OpenAI's
// search/fetch contract requires, for ChatGPT and hosts like it.
//
// In both, an id is shown complete or not at all (a truncated id is a dead
// handle). The first id comes within the first 200 bytes. Free text is
// quoted and cut so that it can neither add a line nor an id. The cost
// grows with the budget, not with the number of hits. The text form shows
// a hit's connection_id exactly where its id does not embed that
// connection, so that the model passes one only where it is needed. [ExtractIDs] reads the shown ids
// back. The layouts of both forms are fixed, since hosts and models rely
// on them (see Reference).
//
// # Errors
//
// Every failure is an [*Error] with a stable [Code]. It holds the field and
// segment at fault, the byte offset of the fault, the input, and a hint
// that tells the agent what to do instead. Match codes with [errors.Is]
// and the sentinels, or with [errors.As]; never with the message. The
// sentinels are [ErrInvalidID], [ErrInvalidConnectionID],
// [ErrConflictingConnectionID], [ErrAmbiguousConnection] and
// [ErrUnknownID], and for a resource server's answers [ErrNotFound],
// [ErrResourceUnavailable], [ErrResourceError] and
// [ErrInvalidResourceResponse].
//
// [Error.MarshalJSON] gives the JSON envelope for an MCP tool error. It
// says each thing once: the message states the fault, the hint the
// remedy, and the inputs stand in fields of their own. [Error.UnmarshalJSON]
// reads it back, byte for byte, so a client decodes a tool error into an
// *Error. A server answers its own failures in the same envelope with
// [AmbiguousConnection] and [NewError]. [Error.Error], for logs, says
// everything in one line, the hint included.
//
// # Reference
//
// The doc comments say what each identifier is and what a caller must
// know. docs/reference.md in the repository holds the rest of each
// contract: the fault offsets of Parse, ResolveFetch's table of cases, the
// error envelope's fields, the seal's format, the rules of aliases.
// docs/preview.md holds the rest of the preview's: its two layouts, which
// ids it quotes, how it cuts free text and shares the budget, and how it
// is read back.
//
// # Performance
//
// [Parse], [ResolveFetch], the [Handle] accessors and [Handle.AppendText]
// into a buffer with room do not allocate; [Encode] allocates once, for
// its result. Decoding an escaped connection costs one allocation, in
// [Handle.ConnectionID] and in ResolveFetch of such an id alone. Parse
// reads an id once, left to right, in portable Go, and looks closely only
// at separators, escapes, dots and non-ASCII characters (see
// docs/performance.md).
package mcpid
