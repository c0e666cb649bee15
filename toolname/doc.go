// Package toolname names the tools of many MCP servers behind one client or
// gateway. It has two forms for the same tool, each with one job, and never
// converts one into the other:
//
//   - The routing key, built by [Join] and taken apart by [Split], is
//     lossless: it carries the server and the tool exactly, for any pair of
//     strings. It is for the gateway's own tables, logs and wire formats,
//     not for the model.
//   - The model-facing name, handed out by [Assign], is what the model sees
//     and calls. It is bounded and valid for the provider's tool-name rule
//     ([Profile]), and it is mapped back to its server and tool by looking
//     it up in the [Names] table, never by parsing it.
//
// # Routing keys
//
// A routing key is the escaped server, then "::", then the tool as it is:
//
//	routing-key = escaped-server "::" tool
//
// Escaping the server writes every '%' as %25 and then every ':' as %3A, so
// an escaped server holds no ':' at all. The first "::" in a key is
// therefore always the separator, whatever the tool name holds: tool names
// are never escaped and may contain "::", start with ':', or be anything
// else. [Split] splits at the first "::" and unescapes %3A and %25; it
// accepts only the canonical upper-case escapes, and rejects a raw ':' or
// any other use of '%' in the server part, so that it accepts exactly the
// keys [Join] writes. The two are exact inverses, for empty strings and
// invalid UTF-8 too: Split(Join(s, t)) is (s, t), and Join of what Split
// returns is the key byte for byte.
//
// '%' is escaped first because it is the escape character: a server
// literally named "weird%3A:name" becomes "weird%253A%3Aname", which Split
// reads back as the same name rather than as "weird::name". Servers
// without '%' and ':', the common case, appear in the key unchanged
// ("github::create_issue").
//
// Splitting at the last "::" instead would misroute. The tool "ns::get" on
// the server "kube:prod" has the key
//
//	kube%3Aprod::ns::get
//
// Split at the first "::" gives the server "kube:prod" and the tool
// "ns::get", as intended. Split at the last one, the same key would name
// the tool "get" on a server "kube%3Aprod::ns", or, once unescaped,
// "kube:prod::ns": a call meant for one tool would go to another tool, on
// whatever server answers to that name. Only the server side of the
// separator is escaped, so only the first "::" is unambiguous.
//
// # Model-facing names
//
// Providers restrict tool names far more than MCP servers do, and differ
// from each other. A [Profile] holds one provider's rule: the characters a
// name may use, whether it must start with a letter or '_', and MaxLen, its
// greatest length. Every name is non-empty and ASCII.
//
//	Profile    characters           first character    MaxLen
//	OpenAI     A-Z a-z 0-9 _ -      any                64
//	Anthropic  A-Z a-z 0-9 _ -      any                128
//	Gemini     A-Z a-z 0-9 _ . -    letter or _        63
//	MCP        A-Z a-z 0-9 _ . -    any                128
//	Portable   A-Z a-z 0-9 _ -      letter or _        63
//
// Where the rules come from:
//
//   - OpenAI: the API reference for function tools says a name may use
//     a-z, A-Z, 0-9, underscores and dashes, at most 64 characters; the API
//     rejects others against the pattern ^[a-zA-Z0-9_-]{1,64}$.
//   - Anthropic: the Messages API validates tool names against
//     ^[a-zA-Z0-9_-]{1,128}$. Some hosts built on it enforce 64; use OpenAI,
//     Portable, or a lower MaxLen for those.
//   - Gemini: the function declaration reference asks for a first character
//     that is a letter or an underscore, then letters, digits, underscores,
//     dots, colons and dashes. Its documents have given the limit as both 63
//     and 64 characters; the profile takes the stricter 63. It leaves out
//     the colon, which MCP does not allow.
//   - MCP: the specification (revision 2025-11-25, "Tool names")
//     recommends 1 to 128 characters from A-Z, a-z, 0-9, '_', '-' and '.'.
//   - Portable is the intersection of all of these, and the default: the
//     zero Profile means Portable.
//
// Every profile's names are valid MCP tool names too, because a gateway
// serves them over MCP. A gateway that serves clients of several providers,
// or does not know which provider a client talks to, should use Portable:
// its names are valid for every one of them. A Profile's MaxLen can lower
// its limit, for a host stricter than its provider, never raise it.
//
// # Assigning names
//
// [Assign] takes the whole set of keys, because whether a name is free
// depends on the others. The set is sorted and duplicates are merged
// first, so the result does not depend on the order of the keys. Each key
// then gets its name as follows.
//
//  1. With [WithPrevious], a key that the previous table named keeps its
//     name (see below). The other steps name the other keys, and treat as
//     taken every name of the chain and every name given to [WithReserved].
//  2. A tool name is unique when exactly one key in the set carries it. A
//     unique tool name that is valid under the profile as it is (no
//     folding, no shortening), holds no "__" and is not taken is the name,
//     as it is. This is the common case, and the names the model sees are
//     the names the servers chose. A bare name is only ever its key's own
//     tool name, byte for byte.
//  3. Otherwise the candidate is "server__tool" ([Qualified]): when several
//     servers offer a tool of that name, when the tool name holds "__",
//     when it is taken, when it must be folded or shortened to be valid
//     (so that a fullwidth "ｓｅａｒｃｈ" can never take "search", whichever
//     comes first), or always with [WithQualifyAll].
//  4. The candidate is folded into the profile's alphabet ([Folded]): text
//     outside ASCII is decomposed (Unicode NFKD, from golang.org/x/text)
//     and its combining marks dropped, which turns "café" into "cafe" and
//     the fullwidth "ｆｏｏ" into "foo"; then every character the profile
//     still does not allow, ASCII punctuation included, becomes one '_'.
//     Letters without a decomposition, such as 'ß' or '日', become '_'.
//     Under a profile that requires it, a '_' is put in front of a
//     candidate that does not start with a letter or '_'.
//  5. Some candidates then get a hash suffix: a '_' and 10 characters from
//     a-z and 2-7 (the first 50 bits of SHA-256 over the raw server and
//     tool, each preceded by its length, in lower-case base32). A candidate
//     longer than MaxLen is cut so that it and its suffix fit in MaxLen
//     ([Shortened]), keeping what the model chooses by: the "__" and the
//     tool part whole while the limit leaves room for it, the server part
//     cut first, down to no less than its first 8 bytes, then the tool
//     part (an 80-byte server's "search" is "<first 44 bytes>__search_"
//     and the hash under Portable). A candidate that is taken or equals
//     another gets the suffix ([Rehashed]). When folding leaves no ASCII
//     letter or digit of the tool name (the tool "日本" folds to "__"), the
//     hash stands in for the tool name, so that such tools stay
//     distinguishable and keep their names when others like them come and
//     go: the name is "server__" and the hash ([Rehashed] too). Should a hashed name still be taken,
//     which takes a 50-bit hash collision or a tool named like a hashed
//     name, the hash input is salted with a counter until the name is
//     free, keys taking their turn in sorted order.
//
// The hash is taken over the raw server and tool, not the folded text, so
// keys that fold alike stay apart. If the servers "a.b", "a_b" and "a-b"
// all offer "search", then under OpenAI, which allows '-' but not '.',
// they are named "a_b__search_rofblegcqs", "a_b__search" and
// "a-b__search"; under MCP, which allows both, "a.b__search", "a_b__search"
// and "a-b__search".
//
// The result is injective (no two keys share a name), every name is valid
// under the profile and at most MaxLen long, and it is deterministic: no
// map order, no random seed, nothing taken from the process. The scheme is
// part of the package's compatibility promise: the same set of keys, with
// the same options and previous table, gets the same names from every
// process and every release, so names can be cached, logged and shown in
// transcripts. The one outside dependency is folding, which follows the
// Unicode tables of golang.org/x/text (decompositions) and of the standard
// library (combining marks). Unicode's stability policy fixes the
// decomposition of assigned characters, but a character that the tables
// in use do not know (and so replace by '_') may fold differently once a
// later Unicode version assigns it. Names of keys that are plain ASCII
// never depend on Unicode data.
//
// # No impersonation
//
// "__" marks a qualified name, and only a qualified name holds it: a name
// that contains "__" is always the qualified name of its own key (folded,
// shortened or hashed as the steps above say). The tool name "a__search"
// is therefore never given out bare: the server "evil" offering it gets
// "evil__a__search", and cannot take "a__search" from the tool "search"
// of the server "a", whatever the order in which the servers arrive; and
// a name without "__" is only ever its key's own tool name. Server names are the
// gateway's to choose; tool names are the downstream servers' to choose,
// and this rule is what keeps a downstream server from naming its tools
// after another server's.
//
// # Names over a gateway's life
//
// Servers come and go, but a model's conversation and a client's cached
// tool list still hold the names they were given. A gateway therefore
// builds each table from the one before, with [WithPrevious], and the
// chain of tables guarantees:
//
//   - Stability: every key keeps its name for as long as it is present,
//     whoever joins or leaves, unless the name stops being valid under the
//     profile (a change of profile or MaxLen) or becomes reserved.
//   - Never reused: a name that one key held is never given to another
//     key, even after the first key has left; [Names.Resolve] reports
//     false for it. A key that leaves and comes back gets its name back.
//   - Persistence: [Names.MarshalJSON] writes the table with the names of
//     the keys that left, and [Names.UnmarshalJSON] reads it back, so the
//     chain continues across restarts.
//
// To keep these promises a table remembers every name of its chain: its
// memory grows with the number of distinct keys ever seen, not with the
// number present. A gateway whose servers invent tool names without end
// should start a new chain (and accept the renames) now and then.
//
// [WithQualifyAll] qualifies every key, as the MCP specification advises
// aggregators: a key's name then depends on the key and the profile alone,
// never on which other keys are present, even without WithPrevious (but
// for a 50-bit hash collision, or a tool named like another key's hashed
// name, which the salt of step 5 resolves in key order). A
// qualified name that could equal another key's is hashed: one that
// needed folding (under OpenAI "my.server__search" would be read as
// "my_server__search"), and one whose server holds "__" or ends in '_'.
//
// A gateway's life, in code ([WithPrevious]'s example runs one):
//
//	// Start: restore the table saved by the last run, if any.
//	var prev *toolname.Names
//	if data, err := os.ReadFile(path); err == nil {
//		prev = new(toolname.Names)
//		if err := prev.UnmarshalJSON(data); err != nil {
//			return err // a damaged table is an error, not a new chain
//		}
//	}
//	// Every time a server joins or leaves, or its tools change:
//	names, err := toolname.Assign(toolname.Portable, keys, toolname.WithPrevious(prev))
//	if err != nil {
//		return err
//	}
//	data, err := json.Marshal(names)
//	// write data to path, serve names, route calls with names.Resolve
//	prev = names
//
// # Fallbacks
//
// Every key whose name is not its bare tool name is reported, so that a
// gateway can explain a renamed tool: [Names.Fallbacks] lists the key, its
// name and a [Reason], a set of the flags [Qualified], [Folded],
// [Shortened] and [Rehashed], and [WithLogger] logs the same list to a
// [log/slog.Logger] while Assign runs.
//
// # Errors
//
// Every error is an [*Error]; test its Code with [errors.Is] and the
// sentinels [ErrInvalidRoutingKey], [ErrInvalidKey], [ErrInvalidProfile],
// [ErrInvalidReserved] and [ErrInvalidNames]. [Split] rejects what [Join]
// cannot produce. [Assign] rejects a key whose server or tool is empty or
// not valid UTF-8: both are part of a tool's identity, and neither can be
// named faithfully. It rejects a reserved name that is not valid under the
// profile, which is a mistake rather than a reservation, and a MaxLen
// outside what the profile can hold. [Names.UnmarshalJSON] rejects
// anything that MarshalJSON does not write.
//
// An [*Error] has the shape of the mcpid package's Error, so that a reader
// learns one: the same field order (Code, Field, then Index where mcpid
// has Segment, Offset, Input), a [Error.Message] that states only the
// fault, a [Error.Hint] that states only the remedy, an [Error.Error]
// built from the two in the same format, and methods that accept a nil
// *Error.
package toolname
