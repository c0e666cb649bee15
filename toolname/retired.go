package toolname

import (
	"slices"
	"sync"
)

// retiredStore holds the retired names of a chain for every table of it
// at once: each name with the spans of generations in which no key held
// it. Assign continuing the chain from its latest table writes into the
// store in place, so that a change costs in proportion to itself and to
// the live keys, not to the history; continuing from an older table
// copies what that table sees into a store of its own. A table reads the
// store at its own generation, so it never sees what later tables did.
type retiredStore struct {
	mu     sync.RWMutex
	head   uint64            // the generation of the latest table written
	byName map[string][]span // the spans of each name ever retired
	byKey  map[Key][]string  // the names each key has had retired
}

// span is a name retired in the generations [from, to), or from on when
// to is 0, with the key that last held it.
type span struct {
	named
	from, to uint64
}

// alive reports whether s covers generation gen.
func (s span) alive(gen uint64) bool { return s.from <= gen && (s.to == 0 || gen < s.to) }

// lookup returns the key and reason of name, retired at generation gen.
func (s *retiredStore) lookup(name string, gen uint64) (named, bool) {
	if s == nil {
		return named{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, sp := range s.byName[name] {
		if sp.alive(gen) {
			return sp.named, true
		}
	}
	return named{}, false
}

// namesOf calls f with each name retired at gen that k held last.
func (s *retiredStore) namesOf(k Key, gen uint64, f func(name string, e named)) {
	if s == nil {
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, name := range s.byKey[k] {
		for _, sp := range s.byName[name] {
			if sp.alive(gen) && sp.key == k {
				f(name, sp.named)
			}
		}
	}
}

// all calls f with every name retired at gen.
func (s *retiredStore) all(gen uint64, f func(name string, e named)) {
	if s == nil {
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for name, spans := range s.byName {
		for _, sp := range spans {
			if sp.alive(gen) {
				f(name, sp.named)
			}
		}
	}
}

// newRetiredStore returns an empty store at generation 0.
func newRetiredStore() *retiredStore {
	return &retiredStore{byName: map[string][]span{}, byKey: map[Key][]string{}}
}

// retire records name, held last by e.key, as retired from generation gen
// on. The caller holds the write lock.
func (s *retiredStore) retire(name string, e named, gen uint64) {
	e.name = ""
	if !slices.Contains(s.byKey[e.key], name) {
		s.byKey[e.key] = append(s.byKey[e.key], name)
	}
	s.byName[name] = append(s.byName[name], span{named: e, from: gen})
}

// unretire records that name is held again from generation gen on. The
// caller holds the write lock.
func (s *retiredStore) unretire(name string, gen uint64) {
	spans := s.byName[name]
	for i := range spans {
		if spans[i].to == 0 {
			spans[i].to = gen
		}
	}
}

// writable returns a store that a table of generation gen may write its
// successor into, locked for writing: s itself when gen is its latest
// generation, and otherwise a new store holding what gen sees.
func (s *retiredStore) writable(gen uint64) *retiredStore {
	if s == nil {
		s = newRetiredStore()
	}
	s.mu.Lock()
	if s.head == gen {
		return s
	}
	c := newRetiredStore()
	for name, spans := range s.byName {
		for _, sp := range spans {
			if sp.alive(gen) {
				c.retire(name, sp.named, 0)
			}
		}
	}
	s.mu.Unlock()
	c.head = gen
	c.mu.Lock()
	return c
}
