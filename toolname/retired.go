package toolname

import (
	"slices"
	"sync"
)

// The retired names of a chain are shared by its tables, so that a change
// costs in proportion to itself and to the live keys, not to the history:
//
//   - A retiredStore holds the retired names of many generations at once:
//     each name with the spans of generations in which no key held it. A
//     table reads the store at a generation, so it never sees what later
//     tables did.
//   - A table built by Assign with WithPrevious does not write into the
//     store: it reads its parent's generation and keeps its own change (the
//     names that no key holds any more, and those given back) beside it.
//     Building a table that is then dropped, as Update does when nothing
//     new needs storing, leaves the store as it was.
//   - A table's change is written into the store when the table is
//     continued (it is the previous table of another Assign), in place
//     when the store still stands at its parent's generation. A table
//     continued after a sibling was, or continued from an older table,
//     copies what it sees into a store of its own, once per continuation.

// retiredStore holds the retired names of a chain for many of its tables.
// Most names are retired once, and most keys retire one name: the maps
// hold those, and the rare others wait in maps of their own, which keeps
// a loaded table of 100,000 retired names small. The index by key is
// built when a table first asks for a key's names (a key that is not
// live comes in), not when a table is loaded to be served.
type retiredStore struct {
	mu        sync.RWMutex
	head      uint64            // the generation of the latest change written
	headBy    *change           // the change written at head; nil for a loaded or copied store
	byName    map[string]span   // the latest span of each name ever retired
	older     map[string][]span // the earlier spans of names retired more than once
	byKey     map[Key]string    // the first name each key has had retired; nil until needed
	moreByKey map[Key][]string  // the other names of keys that had several retired
}

// change is what a table built with WithPrevious changed in its parent's
// retired names.
type change struct {
	retired map[string]named // names no key holds any more, with the key that last held them
	byKey   map[Key][]string // the names in retired, by key
	back    []string         // retired names given back to their keys
}

// span is a name retired in the generations [from, to), or from on when
// to is 0, with the key that last held it.
type span struct {
	key      Key
	reason   Reason
	from, to uint64
}

// alive reports whether s covers generation gen.
func (s span) alive(gen uint64) bool { return s.from <= gen && (s.to == 0 || gen < s.to) }

// named returns the key and reason of s.
func (s span) named() named { return named{key: s.key, reason: s.reason} }

// newRetiredStore returns an empty store at generation gen, with room for
// size names.
func newRetiredStore(gen uint64, size int) *retiredStore {
	return &retiredStore{head: gen, byName: make(map[string]span, size)}
}

// indexKeys builds byKey and moreByKey, if they are not built yet. The
// caller holds the write lock.
func (s *retiredStore) indexKeys() {
	if s.byKey != nil {
		return
	}
	s.byKey = make(map[Key]string, len(s.byName))
	for name, sp := range s.byName {
		s.indexKey(sp.key, name)
	}
	for name, spans := range s.older {
		for _, sp := range spans {
			s.indexKey(sp.key, name)
		}
	}
}

// indexKey records that k has had name retired.
func (s *retiredStore) indexKey(k Key, name string) {
	if first, ok := s.byKey[k]; !ok {
		s.byKey[k] = name
	} else if first != name && !slices.Contains(s.moreByKey[k], name) {
		if s.moreByKey == nil {
			s.moreByKey = map[Key][]string{}
		}
		s.moreByKey[k] = append(s.moreByKey[k], name)
	}
}

// spans calls f with every span of name until f returns true.
func (s *retiredStore) spans(name string, f func(sp span) bool) {
	if sp, ok := s.byName[name]; ok && f(sp) {
		return
	}
	for _, sp := range s.older[name] {
		if f(sp) {
			return
		}
	}
}

// names calls f with every name k has had retired.
func (s *retiredStore) names(k Key, f func(name string)) {
	if name, ok := s.byKey[k]; ok {
		f(name)
	}
	for _, name := range s.moreByKey[k] {
		f(name)
	}
}

// base returns the generation at which n reads its store: its parent's
// when it keeps a change of its own.
func (n *Table) base() uint64 {
	if n.change != nil {
		return n.gen - 1
	}
	return n.gen
}

// retiredLookup returns the key and reason of name, if it is a name of n's
// chain that no live key of n holds. Call it only for a name that is not
// live in n.
func (n *Table) retiredLookup(name string) (named, bool) {
	if n.change != nil {
		if e, ok := n.change.retired[name]; ok {
			return e, true
		}
	}
	s := n.retired
	if s == nil {
		return named{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	gen := n.base()
	var e named
	found := false
	s.spans(name, func(sp span) bool {
		e, found = sp.named(), sp.alive(gen)
		return found
	})
	return e, found
}

// retiredOf calls f with each retired name of n that k held last. It may
// also call it with the live name of k, given back to it in n.
func (n *Table) retiredOf(k Key, f func(name string, e named)) {
	if n.change != nil {
		for _, name := range n.change.byKey[k] {
			f(name, n.change.retired[name])
		}
	}
	s := n.retired
	if s == nil {
		return
	}
	s.mu.RLock()
	if s.byKey == nil {
		s.mu.RUnlock()
		s.mu.Lock()
		s.indexKeys()
		s.mu.Unlock()
		s.mu.RLock()
	}
	defer s.mu.RUnlock()
	gen := n.base()
	s.names(k, func(name string) {
		s.spans(name, func(sp span) bool {
			if sp.alive(gen) && sp.key == k {
				f(name, sp.named())
				return true
			}
			return false
		})
	})
}

// retiredAll calls f with every retired name of n, in no order.
func (n *Table) retiredAll(f func(name string, e named)) {
	if n.change != nil {
		for name, e := range n.change.retired {
			f(name, e)
		}
	}
	s := n.retired
	if s == nil {
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	gen := n.base()
	for name, sp := range s.byName {
		if _, live := n.byName[name]; !live && sp.alive(gen) {
			f(name, sp.named())
		}
	}
	for name, spans := range s.older {
		for _, sp := range spans {
			if _, live := n.byName[name]; !live && sp.alive(gen) {
				f(name, sp.named())
			}
		}
	}
}

// retiredCap returns a bound of the number of n's retired names, for the
// room of a slice that gathers them.
func (n *Table) retiredCap() int {
	size := 0
	if n.change != nil {
		size += len(n.change.retired)
	}
	if s := n.retired; s != nil {
		s.mu.RLock()
		size += len(s.byName)
		s.mu.RUnlock()
	}
	return size
}

// continued returns a store that holds n's retired names at n's
// generation, for a table that continues n to read: n's own store, with
// n's change written into it when the store still stands at n's parent's
// generation (or already holds it), and otherwise a copy of what n sees.
func (n *Table) continued() *retiredStore {
	s := n.retired
	if s == nil {
		return newRetiredStore(n.gen, 0)
	}
	s.mu.Lock()
	switch {
	case s.head == n.gen && s.headBy == n.change:
		// n's generation is the latest written, and it is n's.
		s.mu.Unlock()
		return s
	case n.change != nil && s.head == n.gen-1:
		// Nothing was written after n's parent: write n's change.
		for _, name := range n.change.back {
			s.unretire(name, n.gen)
		}
		for name, e := range n.change.retired {
			s.retire(name, e, n.gen)
		}
		s.head, s.headBy = n.gen, n.change
		s.mu.Unlock()
		return s
	}
	s.mu.Unlock()
	c := newRetiredStore(n.gen, 0)
	c.headBy = n.change
	n.retiredAll(func(name string, e named) { c.retire(name, e, 0) })
	return c
}

// retire records name, held last by e.key, as retired from generation gen
// on. The caller holds the write lock, or is the only user of s.
func (s *retiredStore) retire(name string, e named, gen uint64) {
	if s.byKey != nil {
		s.indexKey(e.key, name)
	}
	if sp, ok := s.byName[name]; ok {
		if s.older == nil {
			s.older = map[string][]span{}
		}
		s.older[name] = append(s.older[name], sp)
	}
	s.byName[name] = span{key: e.key, reason: e.reason, from: gen}
}

// unretire records that name is held again from generation gen on. The
// caller holds the write lock.
func (s *retiredStore) unretire(name string, gen uint64) {
	if sp, ok := s.byName[name]; ok && sp.to == 0 {
		sp.to = gen
		s.byName[name] = sp
	}
}
