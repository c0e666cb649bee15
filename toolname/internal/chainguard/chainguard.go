// Package chainguard is what every toolname store does to keep a chain
// from going backwards and to decode each stored table once. The file
// store in toolname and the Redis and PostgreSQL stores in their own
// modules share it, so that the rules that keep every replica's names
// growing, never going back, are written once:
//
//   - a store value remembers the chain id and the highest generation it
//     has loaded or stored, and refuses, with an error matching
//     toolname.ErrRollback, a load that returns another chain, an older
//     table, or no table at all once it has seen one;
//   - a value that does not decode is the decoder's error
//     (toolname.ErrInvalidNames), never an empty chain;
//   - the decoded table of the revision last seen is kept, and a value is
//     decoded again only when the revision changed.
//
// A Guard checks a load against what its store value knew when the load
// began, so that a load racing with a swap through the same value (which
// may read the table just replaced) is not taken for a rollback.
//
// A store keeps one Guard per store value, and goes through it on every
// load and after every swap that stored (toolname.FileStore is one):
//
//	guard := chainguard.New(func(raw []byte) (*toolname.Names, error) {
//		n := new(toolname.Names)
//		if err := n.UnmarshalJSON(raw); err != nil {
//			return nil, err
//		}
//		return n, nil
//	})
//
//	// Load:
//	n, rev, err := guard.Load(func(cached string) (string, []byte, error) {
//		// Read the chain's revision ("" for none) and, unless it is
//		// cached, its value.
//	})
//	return n, toolname.Revision(rev), err
//
//	// Swap, once the compare-and-swap stored next under rev:
//	guard.Stored(string(rev), next)
package chainguard

import "sync"

// Table is a decoded table: *toolname.Names.
type Table interface {
	comparable
	Chain() (id string, generation uint64)
}

// Position is a table's place in its chain: the chain id and the
// generation. The zero Position stands for an empty chain.
type Position struct {
	ID         string
	Generation uint64
}

// Rollback builds the error of a load that went backwards: have is what
// the store value knew, got what the load returned (the zero Position for
// an empty chain). toolname sets it when it initializes; every store
// imports toolname, so it is set before any Guard runs.
var Rollback func(have, got Position) error

// Guard is one store value's memory of its chain. Its methods are safe for
// concurrent use. Make it with [New].
type Guard[T Table] struct {
	decode func([]byte) (T, error)

	mu    sync.Mutex
	seen  bool     // a table was loaded or stored
	pos   Position // the newest table seen, when seen
	rev   string   // the revision of table, "" when none is kept
	table T
}

// New returns a Guard that decodes stored values with decode, which
// returns an error for a value that is not a table.
func New[T Table](decode func([]byte) (T, error)) *Guard[T] {
	return &Guard[T]{decode: decode}
}

// Load loads the chain's latest table through read and checks it.
//
// read fetches the latest revision and its stored value. It is given the
// revision whose table the guard keeps ("" when none): when the latest
// revision is that one, read may return it with a nil value, and Load
// returns the kept table without decoding. A revision of "" means an empty
// chain, whatever the value. An error from read is returned as it is.
//
// Load returns the table (the zero T for an empty chain never seen) and its
// revision, or the decoder's error, or Rollback's.
func (g *Guard[T]) Load(read func(cached string) (rev string, raw []byte, err error)) (T, string, error) {
	var zero T
	g.mu.Lock()
	seen, have, cachedRev, cached := g.seen, g.pos, g.rev, g.table
	g.mu.Unlock()

	rev, raw, err := read(cachedRev)
	if err != nil {
		return zero, "", err
	}
	if rev == "" {
		if seen {
			return zero, "", Rollback(have, Position{})
		}
		return zero, "", nil
	}
	table := cached
	if rev != cachedRev || cachedRev == "" {
		if table, err = g.decode(raw); err != nil {
			return zero, "", err
		}
	}
	id, gen := table.Chain()
	got := Position{ID: id, Generation: gen}
	if seen && (got.ID != have.ID || got.Generation < have.Generation) {
		return zero, "", Rollback(have, got)
	}
	g.remember(rev, table, got)
	return table, rev, nil
}

// Stored records that a swap stored next under rev: the store holds it,
// so the store value now knows next's chain and generation, even when
// they are older than what it knew (a chain seeded again on purpose), and
// keeps next as the table of rev.
func (g *Guard[T]) Stored(rev string, next T) {
	id, gen := next.Chain()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen, g.pos, g.rev, g.table = true, Position{ID: id, Generation: gen}, rev, next
}

// remember makes table, at pos, the newest table seen, unless a newer one
// of its chain was recorded meanwhile by a concurrent load or swap.
func (g *Guard[T]) remember(rev string, table T, pos Position) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen && pos.ID == g.pos.ID && pos.Generation < g.pos.Generation {
		return
	}
	g.seen, g.pos, g.rev, g.table = true, pos, rev, table
}

// Offer puts v in out, a channel of capacity one that a Watch returns,
// replacing the value a slow receiver has not taken yet: only the latest
// revision matters. Only the watcher sends on out, so Offer never blocks.
func Offer[T any](out chan T, v T) {
	for {
		select {
		case out <- v:
			return
		default:
		}
		select {
		case <-out:
		default:
		}
	}
}
