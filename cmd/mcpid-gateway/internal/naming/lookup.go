package naming

import (
	"sync"
	"time"
)

// Bounds of the lookup of a called name that this replica does not serve
// (see Chain.Lookup): a guessed name is answered within lookupTimeout whatever
// the store does, and a miss is answered from memory for missTTL.
const (
	// lookupTimeout bounds the store's answer to one lookup (never beyond
	// -timeout): a hung store costs a guessed name a second, not the
	// whole -timeout.
	lookupTimeout = time.Second
	// missTTL is the longest a miss is remembered: a name another replica
	// gives meanwhile is routed here within it at the latest, and at
	// once when the store tells of the new table (see misses.clear).
	missTTL = 2 * time.Second
	// maxMisses bounds the names remembered: guessed names come from
	// clients, without end. Beyond it, the memory starts again empty.
	maxMisses = 1024
)

// misses remembers the called names that the store's table did not route
// here, and when the store last failed to answer, each for missTTL, so
// that a client that guesses names, or calls a name of another replica's
// downstream, costs the store one lookup per name every missTTL, and a
// hung store costs calls lookupTimeout once every missTTL, not at each
// call. The zero misses is ready to use.
type misses struct {
	mu     sync.Mutex
	names  map[string]time.Time // name -> when its miss is forgotten
	failed time.Time            // until when every lookup misses: the store did not answer
}

// missed reports whether name is remembered as a miss, or the store
// failed to answer less than missTTL ago.
func (m *misses) missed(name string, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Before(m.failed) {
		return true
	}
	until, ok := m.names[name]
	if ok && !now.Before(until) {
		delete(m.names, name)
		ok = false
	}
	return ok
}

// miss remembers name as a miss for missTTL.
func (m *misses) miss(name string, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.names == nil || len(m.names) >= maxMisses {
		m.names = map[string]time.Time{}
	}
	m.names[name] = now.Add(missTTL)
}

// storeFailed remembers, for missTTL, that the store did not answer a
// lookup.
func (m *misses) storeFailed(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failed = now.Add(missTTL)
}

// clear forgets every miss: the store told of a new table, which may
// route them.
func (m *misses) clear() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.names, m.failed = nil, time.Time{}
}
