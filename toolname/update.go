package toolname

import (
	"context"
	"errors"
)

// Update continues the chain that store holds with the keys this replica
// serves: it assigns from the latest table and stores the result only when
// a key gets a name the chain never held, retrying on [ErrStale]. Serve only
// what it returns. Other naming options than the chain's are
// [ErrChainMismatch]; a store gone backwards is [ErrRollback].
func Update(ctx context.Context, store Store, profile Profile, keys []Key, opts ...Option) (*Table, Revision, error) {
	o := collect(opts)
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
func needsSwap(latest, next *Table) bool {
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

// Seed stores names as the first table of the empty chain that store
// keeps, and returns its revision; a chain that holds a table is
// [ErrChainNotEmpty]. It moves, restores or restarts a chain, on purpose.
func Seed(ctx context.Context, store Store, names *Table) (Revision, error) {
	if names == nil {
		return "", namesError("no table to seed", -1, "", "", nil)
	}
	rev, err := store.Swap(ctx, "", names)
	if errors.Is(err, ErrStale) {
		return "", &Error{Code: CodeChainNotEmpty, Index: -1, Offset: -1}
	}
	return rev, err
}
