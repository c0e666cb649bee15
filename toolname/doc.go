// Package toolname names the tools of many MCP servers behind one client or
// gateway. It has two forms for the same tool, each with one job. It never
// converts one into the other:
//
//   - The routing key, built by [Join] and taken apart by [Split], is
//     lossless: it carries the server and the tool exactly, for any pair of
//     strings. It is for the gateway's own tables, logs and wire formats,
//     not for the model.
//   - The model-facing name, handed out by [Assign], is what the model sees
//     and calls. It is bounded and valid for the provider's tool-name rule
//     ([Profile]). It is mapped back to its server and tool by looking it
//     up in the [Table], never by parsing it.
//
// # Routing keys
//
// A routing key is the escaped server, then "::", then the tool as it is
// ("kube:prod" and "ns::get" give "kube%3Aprod::ns::get"). Only the server
// is escaped, so the first "::" is always the separator, and [Split]
// accepts exactly the keys [Join] writes.
//
// # Model-facing names
//
// Providers restrict tool names far more than MCP servers do, and differ
// from each other. A [Profile] holds one provider's rule; every name is
// non-empty and ASCII, and valid over MCP too:
//
//	Profile    characters           first character    MaxLen
//	OpenAI     A-Z a-z 0-9 _ -      any                64
//	Anthropic  A-Z a-z 0-9 _ -      any                128
//	Gemini     A-Z a-z 0-9 _ . -    letter or _        63
//	MCP        A-Z a-z 0-9 _ . -    any                128
//	Portable   A-Z a-z 0-9 _ -      letter or _        63
//
// [Assign] names a whole set of keys at once. A tool keeps its own name
// when that name is unique, valid and free of "__". Otherwise it is named
// "server__tool", folded into the profile's alphabet, and shortened or
// hashed as needed. Names are injective, deterministic and independent of
// the order of the keys. Only a qualified name holds "__", so that no
// server can name its tools after another's. Every key whose name is not
// its bare tool name is reported, with a [Reason], by [Table.Fallbacks]
// and [WithLogger]. The [Table] that Assign returns gives each key's name
// ([Table.Name]) and each name's key ([Table.Key], an exact lookup).
// [Table.Route], for the calls a gateway serves, also accepts a
// downstream's own bare tool name while one live key has it.
//
// # Names over a gateway's life
//
// A gateway builds each table from the one before with [WithPrevious]. A
// key keeps its name while it is present, and a name is never given to
// another key. [Table.MarshalJSON] carries the chain across restarts
// ([WithPrevious]'s example runs one). [Update] with a [Store] does all of
// this, [NewFileStore] keeping the file (see below). By hand it is:
//
//	// Start: restore the table saved by the last run, if any.
//	var prev *toolname.Table
//	if data, err := os.ReadFile(path); err == nil {
//		prev = new(toolname.Table)
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
//	// write data to path, serve names, route calls with names.Route
//	prev = names
//
// # Names shared by every replica
//
// A gateway that runs as several replicas keeps its chain in a [Store]
// that all of them reach. It names its tools with [Update] instead of
// Assign. Update loads the latest table and assigns from it. It stores the
// result only when a key gets a name the chain never held, and retries
// when another replica stored first ([ErrStale]). A replica serves only
// what Update returned. So every replica gives a tool one name, and no
// name ever goes to a second tool. [NewFileStore] keeps a chain in a file
// for a single process. The modules github.com/mcpid/mcpid/toolname/redisstore
// and github.com/mcpid/mcpid/toolname/pgstore keep it in Redis or
// PostgreSQL for replicas, and toolname/storetest checks any Store.
//
// The rules that keep a shared chain safe:
//
//   - A table records its chain: a random id made with the chain's first
//     table, a generation one past the table it continues, and the
//     options that shape names ([Table.Chain]). Update with other options
//     is [ErrChainMismatch], never a renaming of every tool. Options change
//     only on purpose, by seeding a new chain ([Seed]).
//   - A chain never goes backwards. A store value remembers the chain id
//     and the highest generation it has loaded or stored. It refuses
//     ([ErrRollback]) a load of another chain, an older table, or none (a
//     server restarted without persistence, a restored backup). Seed
//     starts a chain again, only on an empty one.
//   - Nor sideways: a generation number is a claim, the names are the
//     proof. A store value refuses ([ErrRollback]) any later table that
//     does not continue the one it holds. A table continues another when
//     it gives every name the other gives, live or retired, to the same
//     key ([Table.Continues]). So neither a fork from a restored backup nor a
//     well-formed edit of the stored value sends a name to another tool.
//     The store is trusted like a gateway's own disk. A process that
//     starts has nothing to compare its first load with but a backup of
//     its own (mcpid-gateway's -backup).
//   - A stored value that is not a table is an error ([ErrInvalidTable]),
//     never an empty chain, and is left as it is.
//
// Every write stores the whole table, with every name the chain ever
// gave. A chain of 100,000 retired names is several MB of JSON, written
// on each new name. A store decodes a value only when its revision
// changed. So an Update that stores nothing costs a revision check and an
// Assign.
//
// # Errors
//
// Every error the package's rules give is an [*Error]. Test its Code with
// [errors.Is] and the sentinels, such as [ErrInvalidKey]. What a store
// could not do (a file it could not write, a server it could not reach,
// a context that ended) is returned as that error, wrapped.
//
// # Reference
//
// The doc comments say what each identifier is and what a caller must
// know. docs/toolname.md in the repository holds the rest of each
// contract. It gives the escapes of routing keys and why, Assign's naming
// scheme step by step, and the sources of the profiles. It gives the JSON
// of a table and what UnmarshalJSON accepts, the rules of stores, Update,
// Seed and FileStore, and the fields of Error for each code.
package toolname
