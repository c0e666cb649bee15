package toolname

import "strconv"

// Continues returns nil when n continues held: every name that held gives,
// live or retired, n gives to the same key. Otherwise it returns an [*Error]
// with Code [CodeRollback] naming the first name n drops or gives away.
func (n *Table) Continues(held *Table) error {
	if held == nil {
		return nil
	}
	var (
		first   string // the first name, in byte order, that n does not continue
		found   bool
		heldKey Key
	)
	differs := func(name string, k Key) {
		if !found || name < first {
			first, found, heldKey = name, true, k
		}
	}
	for _, k := range held.keys {
		name := held.byKey[k].name
		if got, ok := n.keyOf(name); !ok || got != k {
			differs(name, k)
		}
	}
	// held's retired names are gathered first: n may share held's store
	// of retired names, whose lock is not taken twice.
	retired := make([]named, 0, held.retiredCap())
	held.retiredAll(func(name string, e named) {
		e.name = name
		retired = append(retired, e)
	})
	for _, e := range retired {
		// Most names retired in held are retired in n: look there first.
		if n.retiredTo(e.name, e.key) {
			continue
		}
		if got, ok := n.keyOf(e.name); !ok || got != e.key {
			differs(e.name, e.key)
		}
	}
	if !found {
		return nil
	}
	return forkError(held, n, first, heldKey)
}

// retiredTo reports whether name is a retired name of n that k held
// last. For a name live in n it may report whether k holds it: a table
// never holds as retired a name that another key holds.
func (n *Table) retiredTo(name string, k Key) bool {
	if n == nil {
		return false
	}
	e, ok := n.retiredLookup(name)
	return ok && e.key == k
}

// keyOf returns the key that n gives name to, live or retired, and reports
// whether n gives it to any.
func (n *Table) keyOf(name string) (Key, bool) {
	if n == nil {
		return Key{}, false
	}
	if k, ok := n.byName[name]; ok {
		return k, true
	}
	e, ok := n.retiredLookup(name)
	return e.key, ok
}

// forkError is the error of a table, got, that does not continue held: it
// drops name, which held gives to heldKey, or gives it to another key.
func forkError(held, got *Table, name string, heldKey Key) error {
	id, gen := held.Chain()
	detail := "the store's table gives the name to no key"
	if k, ok := got.keyOf(name); ok {
		detail = "the store's table gives the name to " + Join(k.Server, k.Tool)
	}
	detail += ", where the table held (generation " + strconv.FormatUint(gen, 10) + " of chain " + id +
		") gives it to " + Join(heldKey.Server, heldKey.Tool)
	return &Error{Code: CodeRollback, Field: "name", Index: -1, Offset: -1, Input: name, detail: detail}
}
