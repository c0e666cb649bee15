package toolname

import (
	"context"
	"errors"
)

// Update continues the chain that store holds with the keys this replica
// serves, and returns the table to serve and the revision it was read or
// stored at.
//
// It loads the latest table, assigns names as [Assign] does with
// [WithPrevious] of that table and opts (a WithPrevious among opts is
// overridden), and stores the result with [Store.Swap] only when it gives
// a key a name the stored chain has never held, or when the stored table
// is a version 1 table, which records no options; otherwise it stores
// nothing and returns the table with the revision it loaded (the table's
// generation is then one past the stored one: it is not stored, and the
// next Update starts again from the store). When another writer stored a
// table first ([ErrStale]), it starts again from the load, until ctx ends:
// concurrent writers take turns, and none loses another's names.
//
// A replica serves only what Update returned, so a name is stored before
// any client sees it. Since a key that leaves and comes back gets its name
// back, each replica updates with its own live keys only: every key gets
// one name across all replicas, whatever the order in which servers start,
// and a name never goes to a second key. Since only new names are written,
// replicas with different keys do not overwrite each other back and
// forth; a replica told that another stored a table ([Watcher]) reloads,
// and writes only for keys of its own that the chain has not named.
//
// The chain records its profile and the options that shape names
// ([WithQualifyAll], [WithReserved], MaxLen): an Update with others is an
// [*Error] with Code [CodeChainMismatch] naming both, never a silent
// renaming of every tool. A version 1 table adopts the options of the
// first Update. To change options on purpose, assign from the stored
// table with the new options and [Seed] the result onto a new chain.
//
// The errors of the store are returned as they are: a store that cannot
// be reached, a damaged value ([ErrInvalidNames]) or a store that went
// backwards ([ErrRollback]) stores and assigns nothing. So are the errors
// of Assign, and ctx's error once it ends.
//
// Every write stores the whole table, so its cost grows with the chain's
// history (a chain of 100,000 retired names is several MB); an Update that
// stores nothing costs a revision check (stores keep the table of the
// revision they read last) and an Assign.
func Update(ctx context.Context, store Store, profile Profile, keys []Key, opts ...Option) (*Names, Revision, error) {
	var o options
	for _, opt := range opts {
		if opt.apply != nil {
			opt.apply(&o)
		}
	}
	r, maxLen, err := profile.check()
	if err != nil {
		return nil, "", err
	}
	given := newNaming(r, maxLen, &o)
	for {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		latest, rev, err := store.Load(ctx)
		if err != nil {
			return nil, "", err
		}
		if latest != nil && latest.naming != nil && !latest.naming.equal(given) {
			return nil, "", chainMismatchError(latest.naming, given)
		}
		next, err := Assign(profile, keys, append(opts[:len(opts):len(opts)], WithPrevious(latest))...)
		if err != nil {
			return nil, "", err
		}
		if !needsSwap(latest, next) {
			return next, rev, nil
		}
		stored, err := store.Swap(ctx, rev, next)
		switch {
		case errors.Is(err, ErrStale):
			continue
		case err != nil:
			return nil, "", err
		}
		return next, stored, nil
	}
}

// needsSwap reports whether next, assigned from latest, must be stored: it
// gives a key a name that latest's chain never held, or latest records no
// options.
func needsSwap(latest, next *Names) bool {
	if latest == nil {
		return next.Len() > 0
	}
	if latest.naming == nil {
		return true
	}
	for _, k := range next.keys {
		if !latest.held(next.byKey[k].name) {
			return true
		}
	}
	return false
}

// Seed stores names as the first table of the chain that store keeps,
// with its chain id and generation as they are, and returns its revision.
// The chain must be empty: Seed never replaces a table, and a chain that
// holds one is an [*Error] with Code [CodeChainNotEmpty].
//
// Seeding is done on purpose only: to move a chain from one store to
// another (a file store's table to Redis or PostgreSQL), to restore a
// chain that a store lost from a backup of its latest table, or to start a
// chain with other options (assign from its latest table with the new
// options, and seed the result onto a new chain). A nil names is an
// [*Error] with Code [CodeInvalidNames].
func Seed(ctx context.Context, store Store, names *Names) (Revision, error) {
	if names == nil {
		return "", namesError("no table to seed", -1, "", "", nil)
	}
	rev, err := store.Swap(ctx, "", names)
	if errors.Is(err, ErrStale) {
		return "", &Error{Code: CodeChainNotEmpty, Index: -1, Offset: -1}
	}
	return rev, err
}
