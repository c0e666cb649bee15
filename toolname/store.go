package toolname

import (
	"context"

	"github.com/mcpid/mcpid/toolname/internal/chainguard"
)

// Revision identifies one stored table of a chain. It is opaque: compare
// revisions for equality only. The empty Revision stands before the
// chain's first table.
type Revision string

// Store is where the latest table of a chain lives, for every replica of
// a gateway; its methods are safe for concurrent use. A Store refuses a
// value that is not a table, and one that goes backwards or sideways;
// toolname/storetest checks every rule.
type Store interface {
	// Load returns the latest table and its revision: nil and "" for a
	// chain never stored.
	Load(ctx context.Context) (*Table, Revision, error)
	// Swap stores next as the table after rev if rev is still the
	// latest, and returns the new revision; otherwise it stores nothing
	// and returns an error matching [ErrStale].
	Swap(ctx context.Context, rev Revision, next *Table) (Revision, error)
}

// Watcher is implemented by a [Store] that can tell at once that another
// replica stored a table. Watch returns a channel that receives the new
// revision after each store (possibly coalesced: a receiver reloads, it
// does not count), and is closed when ctx ends.
type Watcher interface {
	Watch(ctx context.Context) (<-chan Revision, error)
}

// Holder is implemented by a [Store] value that can start from a table
// known elsewhere, such as the backup a replica keeps of the last table it
// saw. Hold sets the table this value holds, before its first Load; a
// later table must continue it: a chain found empty, of another chain,
// older, or not continuing it ([Table.Continues]) is refused with an error
// matching [ErrRollback], and never held, so once the store holds that
// table again, or one that continues it, it is accepted. A value that
// already holds a table keeps the later of the two, and refuses n the same
// way unless one continues the other. Hold(nil) holds nothing.
type Holder interface {
	Hold(n *Table) error
}

// The stores' guard words its rollbacks as this package's errors.
func init() { chainguard.Rollback = rollbackError }
