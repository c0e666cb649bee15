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
	prev       *Table
	qualifyAll bool
	reserved   []string
}

// collect returns the options that opts set, applied in order.
func collect(opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt.apply != nil {
			opt.apply(&o)
		}
	}
	return o
}

// WithLogger makes [Assign] log every fallback to logger, at level Info,
// with the attributes "server", "tool", "name" and "reason".
func WithLogger(logger *slog.Logger) Option {
	return Option{apply: func(o *options) { o.logger = logger }}
}

// WithPrevious continues the chain of tables that ends in prev: a key
// keeps its name, and no name ever goes to a second key. A nil prev starts
// a new chain.
func WithPrevious(prev *Table) Option {
	return Option{apply: func(o *options) { o.prev = prev }}
}

// WithQualifyAll names every key "server__tool", so that a key's name does
// not depend on which other keys are present. Names carried over by
// [WithPrevious] are kept as they are.
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
func (o *options) logFallbacks(n *Table) {
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
