package toolname

import (
	"context"

	"github.com/mcpid/mcpid/toolname/internal/chainguard"
)

// Revision identifies one stored table of a chain. It is opaque: compare
// revisions for equality only. The empty Revision stands before the
// chain's first table.
type Revision string

// Store is where the latest table of a chain lives, for every replica of a
// gateway. [Update] continues the chain through it and [Seed] starts it.
// Its methods are safe for concurrent use.
//
// Besides the compare-and-swap, a Store keeps these rules, which
// toolname/storetest checks:
//
//   - Load of a value that is not a table (damaged, truncated, another
//     program's) is an error matching [ErrInvalidNames], never an empty
//     chain, and the value is left as it is.
//   - A store value remembers the chain id and the highest generation
//     ([Names.Chain]) it has loaded or stored, and Load refuses, with an
//     error matching [ErrRollback], another chain, an older table, or no
//     table once it has seen one. A table it stores is what it holds from
//     then on.
//   - Nor does a store value go sideways: Load refuses the same way a
//     table, of any generation, that does not continue the one it holds
//     (the last one it loaded or stored; [Names.Continues]), such as a
//     fork from a restored backup or a table edited by hand, and keeps
//     what it held. A refused revision is refused again without a decode.
//   - A store value keeps the table of the revision it read last, and
//     decodes again only when the revision changed.
//   - A context that ends stops Load and Swap with its error.
//
// Every Swap stores the whole table.
type Store interface {
	// Load returns the latest table and its revision: nil and "" for a
	// chain never stored.
	Load(ctx context.Context) (*Names, Revision, error)
	// Swap stores next as the table after rev if rev is still the
	// latest, and returns the new revision; otherwise it stores nothing
	// and returns an error matching [ErrStale].
	Swap(ctx context.Context, rev Revision, next *Names) (Revision, error)
}

// Watcher is implemented by a [Store] that can tell at once that another
// replica stored a table. Watch returns a channel that receives the new
// revision after each store (possibly coalesced: a receiver reloads, it
// does not count), and is closed when ctx ends.
type Watcher interface {
	Watch(ctx context.Context) (<-chan Revision, error)
}

// The stores' guard words its rollbacks as this package's errors.
func init() { chainguard.Rollback = rollbackError }
