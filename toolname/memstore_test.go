package toolname_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/internal/chainguard"
	"github.com/mcpid/mcpid/toolname/storetest"
)

// memServer keeps chains in memory, as a Redis or a PostgreSQL keeps them
// over the network: each chain a value and a revision, swapped atomically,
// and every swap told to the watchers. Every memStore on it is a replica's
// handle, with a guard of its own. It lets this package's tests run
// storetest with two handles per chain and a Watcher, which the file
// store, one value per chain, does not have.
type memServer struct {
	mu       sync.Mutex
	next     int
	chains   map[string]memValue
	watchers map[string][]chan toolname.Revision
}

type memValue struct {
	rev toolname.Revision
	raw []byte
}

func newMemServer() *memServer {
	return &memServer{chains: map[string]memValue{}, watchers: map[string][]chan toolname.Revision{}}
}

// open returns a new handle on chain.
func (s *memServer) open(chain string) *memStore {
	return &memStore{s: s, chain: chain, guard: chainguard.New(decodeNames)}
}

func decodeNames(raw []byte) (*toolname.Table, error) {
	n := new(toolname.Table)
	if err := n.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return n, nil
}

// put stores raw as chain's value under a new revision, and tells the
// watchers. The caller holds s.mu.
func (s *memServer) put(chain string, raw []byte) toolname.Revision {
	s.next++
	rev := toolname.Revision(strconv.Itoa(s.next))
	s.chains[chain] = memValue{rev: rev, raw: raw}
	for _, ch := range s.watchers[chain] {
		chainguard.Offer(ch, rev) // a receiver that fell behind finds the latest
	}
	return rev
}

type memStore struct {
	s     *memServer
	chain string
	guard *chainguard.Guard[*toolname.Table]
}

func (m *memStore) Load(ctx context.Context) (*toolname.Table, toolname.Revision, error) {
	n, rev, err := m.guard.Load(func(string) (string, []byte, error) {
		if err := ctx.Err(); err != nil {
			return "", nil, err
		}
		m.s.mu.Lock()
		defer m.s.mu.Unlock()
		v := m.s.chains[m.chain]
		return string(v.rev), v.raw, nil
	})
	return n, toolname.Revision(rev), err
}

func (m *memStore) Swap(ctx context.Context, rev toolname.Revision, next *toolname.Table) (toolname.Revision, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	raw, err := next.MarshalJSON()
	if err != nil {
		return "", err
	}
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	if m.s.chains[m.chain].rev != rev {
		return "", toolname.ErrStale
	}
	stored := m.s.put(m.chain, raw)
	m.guard.Stored(string(stored), next)
	return stored, nil
}

func (m *memStore) Watch(ctx context.Context) (<-chan toolname.Revision, error) {
	ch := make(chan toolname.Revision, 1)
	m.s.mu.Lock()
	m.s.watchers[m.chain] = append(m.s.watchers[m.chain], ch)
	m.s.mu.Unlock()
	go func() {
		<-ctx.Done()
		m.s.mu.Lock()
		defer m.s.mu.Unlock()
		list := m.s.watchers[m.chain]
		for i, c := range list {
			if c == ch {
				m.s.watchers[m.chain] = append(list[:i:i], list[i+1:]...)
				break
			}
		}
		close(ch)
	}()
	return ch, nil
}

func (m *memStore) Hold(n *toolname.Table) error { return m.guard.Hold(n) }

var (
	_ toolname.Watcher = (*memStore)(nil)
	_ toolname.Holder  = (*memStore)(nil)
)

func TestMemStoreConformance(t *testing.T) {
	s := newMemServer()
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, chain string) toolname.Store { return s.open(chain) },
		Corrupt: func(t *testing.T, chain string, raw []byte) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.put(chain, raw)
		},
		Reset: func(t *testing.T, chain string) {
			s.mu.Lock()
			defer s.mu.Unlock()
			delete(s.chains, chain)
		},
	})
}
