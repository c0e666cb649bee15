// Package chainguard is what every toolname store does to keep a chain
// from going backwards or sideways and to decode each stored table once. The file
// store in toolname and the Redis and PostgreSQL stores in their own
// modules share it, so that these rules are written once:
//
//   - a store value remembers the chain id and the highest generation it
//     has loaded or stored, and refuses, with an error matching
//     toolname.ErrRollback, a load that returns another chain, an older
//     table, or no table at all once it has seen one;
//   - it also remembers the table it holds (the last one it loaded or
//     stored), and refuses the same way any later table that does not
//     continue it (toolname.Table.Continues: a name it gives dropped, or
//     given to another key), whatever its generation: a fork from a
//     restored backup, or a well-formed edit of the stored value;
//   - a value that does not decode is the decoder's error
//     (toolname.ErrInvalidTable), never an empty chain;
//   - the decoded table of the revision last seen is kept, and a value is
//     decoded and checked again only when the revision changed; so is the
//     refusal of the revision last refused.
//
// A store value may also start from a table known elsewhere (Hold: a
// replica's backup), so that the first load is checked against it: a
// store found empty, of another chain, older, or not continuing it is
// refused, and never held.
//
// A Guard checks a load against what its store value knew when the load
// began, so that a load racing with a swap through the same value (which
// may read the table just replaced) is not taken for a rollback; such a
// load returns the newer table held instead of the older one it read,
// since that one was never checked against it.
//
// A store keeps one Guard per store value, and goes through it on every
// load and after every swap that stored (toolname.FileStore is one):
//
//	guard := chainguard.New(func(raw []byte) (*toolname.Table, error) {
//		n := new(toolname.Table)
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
//
//	// Hold (toolname.Holder), before the first load:
//	return guard.Hold(n)
package chainguard

import "sync"

// Table is a decoded table: *toolname.Table.
type Table[T any] interface {
	comparable
	Chain() (id string, generation uint64)
	// Continues returns nil when the table continues held, and otherwise
	// an error matching toolname.ErrRollback.
	Continues(held T) error
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
type Guard[T Table[T]] struct {
	decode func([]byte) (T, error)

	mu    sync.Mutex
	pos   Position // the position of table, when changes > 0
	rev   string   // the revision of table, "" when none is known
	table T        // the table held: the last one loaded, stored or held
	// changes counts the tables held, so that a load knows whether the
	// table held changed while it read: 0 until a table was loaded,
	// stored or held.
	changes uint64

	// The revision last refused against table, and why; "" when none.
	// A revision names one stored value, so it is refused again without
	// a decode, until the table held changes.
	refusedRev string
	refused    error
}

// New returns a Guard that decodes stored values with decode, which
// returns an error for a value that is not a table.
func New[T Table[T]](decode func([]byte) (T, error)) *Guard[T] {
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
// revision, or the decoder's error, or Rollback's, or the error of a table
// that does not continue the one held. A table refused is never held: the
// store value keeps what it had.
func (g *Guard[T]) Load(read func(cached string) (rev string, raw []byte, err error)) (T, string, error) {
	var zero T
	g.mu.Lock()
	have, heldRev, held, changes := g.pos, g.rev, g.table, g.changes
	refusedRev, refused := g.refusedRev, g.refused
	g.mu.Unlock()
	seen := changes != 0

	rev, raw, err := read(heldRev)
	switch {
	case err != nil:
		return zero, "", err
	case rev == "" && seen:
		return zero, "", Rollback(have, Position{})
	case rev == "":
		return zero, "", nil
	case rev == heldRev:
		return held, rev, nil
	case rev == refusedRev:
		return zero, "", refused
	}
	table, err := g.decode(raw)
	if err != nil {
		return zero, "", err
	}
	id, gen := table.Chain()
	got := Position{ID: id, Generation: gen}
	if seen {
		if err := g.check(have, held, got, table); err != nil {
			g.refuse(changes, rev, err)
			return zero, "", err
		}
	}
	return g.accept(changes, rev, table, got)
}

// check returns the error of a table at got, loaded after held at have: nil
// when it is of held's chain, not older, and continues held.
func (g *Guard[T]) check(have Position, held T, got Position, table T) error {
	if got.ID != have.ID || got.Generation < have.Generation {
		return Rollback(have, got)
	}
	return table.Continues(held)
}

// refuse records that rev was refused with err against the table held
// after changes tables, unless the guard holds another table by now.
func (g *Guard[T]) refuse(changes uint64, rev string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.changes == changes {
		g.refusedRev, g.refused = rev, err
	}
}

// Stored records that a swap stored next under rev: the store holds it,
// so the store value now holds next, even when it is older than what it
// held, or does not continue it (a chain seeded again on purpose).
func (g *Guard[T]) Stored(rev string, next T) {
	id, gen := next.Chain()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.hold(rev, next, Position{ID: id, Generation: gen})
}

// accept makes table, of revision rev at pos and checked against the
// table held after changes tables, the table held, and returns it. When a
// concurrent load or swap changed the table held meanwhile, table is
// checked against that one too; but when it is older than that one, of
// its chain (the load read the table that a swap through this value
// replaced, or a store that went back meanwhile), the newer table held is
// returned with its revision instead: table was never checked against it,
// and a caller that swaps after that revision finds out, by ErrStale, if
// the store moved on. Without the revision of the table held (one held by
// Hold), table is refused as older.
func (g *Guard[T]) accept(changes uint64, rev string, table T, pos Position) (T, string, error) {
	var zero T
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.changes != changes { // so g.changes > 0: a table is held
		switch {
		case rev == g.rev:
			return g.table, g.rev, nil
		case g.rev != "" && pos.ID == g.pos.ID && pos.Generation < g.pos.Generation:
			return g.table, g.rev, nil
		}
		if err := g.check(g.pos, g.table, pos, table); err != nil {
			return zero, "", err
		}
	}
	g.hold(rev, table, pos)
	return table, rev, nil
}

// Hold makes table the table held, as if it had been loaded, with no
// revision known: every later load must be of its chain, not older, and
// continue it, and a chain found empty is refused. A store calls it
// before its first load, with a table known elsewhere (a replica's
// backup). When the guard holds a table already, the later of the two is
// kept, provided it continues the other; otherwise Hold returns the error
// of the table held, checked against table, and changes nothing. The zero
// T holds nothing.
func (g *Guard[T]) Hold(table T) error {
	var zero T
	if table == zero {
		return nil
	}
	id, gen := table.Chain()
	pos := Position{ID: id, Generation: gen}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.changes == 0 {
		g.hold("", table, pos)
		return nil
	}
	err := g.check(pos, table, g.pos, g.table)
	if err == nil {
		return nil // the table held is table, or continues it
	}
	if g.check(g.pos, g.table, pos, table) != nil {
		return err
	}
	g.hold("", table, pos)
	return nil
}

// hold makes table, of revision rev at pos, the table held. The caller
// holds mu.
func (g *Guard[T]) hold(rev string, table T, pos Position) {
	g.pos, g.rev, g.table = pos, rev, table
	g.changes++
	g.refusedRev, g.refused = "", nil
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
