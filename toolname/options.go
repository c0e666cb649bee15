package toolname

import (
	"context"
	"log/slog"
)

// An Option configures [Assign]. The zero Option does nothing.
type Option struct {
	apply func(*options)
}

type options struct {
	logger     *slog.Logger
	prev       *Names
	qualifyAll bool
	reserved   []string
}

// WithLogger makes [Assign] log every fallback to logger. It logs one
// record at level Info per key whose name is not its bare tool name, in the
// order of [Names.Fallbacks], with the attributes "server", "tool", "name"
// and "reason" (the [Reason] as a string). A nil logger logs nothing.
func WithLogger(logger *slog.Logger) Option {
	return Option{apply: func(o *options) { o.logger = logger }}
}

// WithPrevious continues the chain of tables that ends in prev.
//
// Servers come and go, but a model's conversation and a client's cached
// tool list still hold the names they were given, so a gateway builds
// each table from the one before, the table the model has seen so far:
//
//   - every key that prev names, or named before it left, keeps that name
//     while the name is valid under the profile (a change of profile or
//     MaxLen may end that) and not reserved; a key that leaves and comes
//     back gets its name back;
//   - every other key gets a name that no key in the chain ever held;
//   - the result remembers every name of the chain, so that a name is
//     never given to a second key, however long the chain, and
//     [Names.Resolve] reports false for a name no key holds now.
//
// [Names.MarshalJSON] and [Names.UnmarshalJSON] carry the chain across
// restarts. A nil prev starts a new chain, as if WithPrevious were not
// given.
func WithPrevious(prev *Names) Option {
	return Option{apply: func(o *options) { o.prev = prev }}
}

// WithQualifyAll names every key "server__tool".
//
// The names are folded, shortened or hashed as needed, as the MCP
// specification advises aggregators to do, instead of keeping unique tool
// names bare. A key's name then depends only on the key and the profile,
// not on which other keys are present, even without [WithPrevious]: a
// qualified name that folding or a server name holding "__" could make
// equal to another key's is given a hash suffix of its raw identity (but
// for a 50-bit hash collision, or a tool named like another key's hashed
// name, which [Assign] resolves in key order).
//
// Names carried over by [WithPrevious] are kept as they are, so turning
// the option on along a chain qualifies the new keys only.
func WithQualifyAll() Option {
	return Option{apply: func(o *options) { o.qualifyAll = true }}
}

// WithReserved keeps names for the caller's own tools. [Assign] never gives
// them to a key, and a key that held one gets a new name. Each name must be
// valid under the profile. The names of several WithReserved options add
// up.
func WithReserved(names ...string) Option {
	return Option{apply: func(o *options) { o.reserved = append(o.reserved, names...) }}
}

// logFallbacks logs every fallback of n, when a logger was given.
func (o *options) logFallbacks(n *Names) {
	if o.logger == nil {
		return
	}
	for _, f := range n.fallbacks {
		o.logger.LogAttrs(context.Background(), slog.LevelInfo, "toolname: fallback name",
			slog.String("server", f.Key.Server),
			slog.String("tool", f.Key.Tool),
			slog.String("name", f.Name),
			slog.String("reason", f.Reason.String()),
		)
	}
}
