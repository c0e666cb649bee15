// Package chainstore opens the stores where the gateway's naming chains live
// (a file, Redis or PostgreSQL, or this process), checks them at start,
// and reads the tables a backup or a -seed file holds.
package chainstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/pgstore"
	"github.com/mcpid/mcpid/toolname/redisstore"
)

// Open opens the store that -state names: a Redis URL (redis:// or
// rediss://), a PostgreSQL URL (postgres:// or postgresql://), each given
// to its client library as it is, or else a file path. With no -state, the
// table lives in this process only. The returned function closes it.
func Open(ctx context.Context, state, chain string) (toolname.Store, func(), error) {
	scheme, _, _ := strings.Cut(state, "://")
	switch {
	case state == "":
		return new(Mem), func() {}, nil
	case scheme == "redis" || scheme == "rediss":
		opts, err := redis.ParseURL(state)
		if err != nil {
			return nil, nil, fmt.Errorf("-state: %w", err)
		}
		// Every request is bounded by its context, as the gateway's
		// bounds (-timeout, a lookup's second) need: go-redis otherwise
		// waits for its own read timeout, and retries.
		opts.ContextTimeoutEnabled = true
		client := redis.NewClient(opts)
		return redisstore.New(client, chain), func() { _ = client.Close() }, nil
	case scheme == "postgres" || scheme == "postgresql":
		pool, err := pgxpool.New(ctx, state)
		if err != nil {
			return nil, nil, fmt.Errorf("-state: %w", err)
		}
		s, err := pgstore.New(ctx, pool, chain)
		if err != nil {
			pool.Close()
			return nil, nil, fmt.Errorf("-state: %w", err)
		}
		return s, pool.Close, nil
	default:
		s, err := toolname.NewFileStore(state)
		if err != nil {
			return nil, nil, err
		}
		return s, func() { _ = s.Close() }, nil
	}
}

// Check stops a start on a store whose value is not a table (damaged,
// truncated, another program's): the gateway never takes it for an empty
// chain. A store that cannot be reached does not stop the start: the
// gateway names tools once it can be.
func Check(ctx context.Context, store toolname.Store, state string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, _, err := store.Load(ctx); errors.Is(err, toolname.ErrInvalidTable) {
		return fmt.Errorf("-state %s: %w", state, err)
	}
	return nil
}

// ReadTable reads a table written by [toolname.Table.MarshalJSON]: a
// backup, or a file store's state. A missing file is nil; a file that is
// not a table is an error.
func ReadTable(path string) (*toolname.Table, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	n := new(toolname.Table)
	if err := n.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// OpenBackup opens the backup at path, a [toolname.FileStore] (so that it
// is written atomically and held by one gateway), and returns it with the
// table it holds: nil when there is none yet.
func OpenBackup(path string) (*toolname.FileStore, *toolname.Table, error) {
	file, err := toolname.NewFileStore(path)
	if err != nil {
		return nil, nil, err
	}
	names, _, err := file.Load(context.Background())
	if err != nil {
		_ = file.Close()
		return nil, nil, err
	}
	return file, names, nil
}

// Mem keeps the chain in this process, for a gateway run without
// -state: its names last as long as the process. The zero value is an
// empty chain.
type Mem struct {
	mu    sync.Mutex
	names *toolname.Table
	n     int
}

// NewMem returns a Mem that holds table as its first revision: a copy of
// a chain in memory, which a check may update without writing the chain.
func NewMem(table *toolname.Table) *Mem { return &Mem{names: table, n: 1} }

// Load returns the table held and its revision.
func (m *Mem) Load(ctx context.Context) (*toolname.Table, toolname.Revision, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.names, m.rev(), nil
}

// Swap stores next when rev is the revision held, as [toolname.Store]
// says.
func (m *Mem) Swap(ctx context.Context, rev toolname.Revision, next *toolname.Table) (toolname.Revision, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if rev != m.rev() {
		return "", toolname.ErrStale
	}
	m.names, m.n = next, m.n+1
	return m.rev(), nil
}

// rev is the revision of the table held: "" before the first.
func (m *Mem) rev() toolname.Revision {
	if m.n == 0 {
		return ""
	}
	return toolname.Revision(strconv.Itoa(m.n))
}
