package pgstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/internal/chainguard"
)

// Table is the name of the table that holds every chain, one row each.
const Table = "mcpid_toolname_chains"

// ErrNoChain is the error of [New] given an empty chain name.
var ErrNoChain = errors.New("pgstore: the chain name is empty")

// ErrNoTable is the error of [Store.Swap] given a nil table.
var ErrNoTable = errors.New("pgstore: Swap of a nil table")

// Store is a chain of tool names kept in PostgreSQL. It implements
// [toolname.Store] and [toolname.Watcher]. Its methods are safe for
// concurrent use. Make it with [New].
type Store struct {
	pool    *pgxpool.Pool
	chain   string
	channel string // the notification channel
	guard   *chainguard.Guard[*toolname.Table]
}

var (
	_ toolname.Store   = (*Store)(nil)
	_ toolname.Watcher = (*Store)(nil)
)

// New returns the store of the named chain on pool: one replica's handle.
// Every replica of a gateway opens its own on the same chain. New creates
// the table [Table] when it is missing (under an advisory lock, so that
// replicas starting together do not race), and so needs the server: it
// returns the error of a server it cannot reach, or of a role that may
// not create the table. The pool stays the caller's, to close.
func New(ctx context.Context, pool *pgxpool.Pool, chain string) (*Store, error) {
	if chain == "" {
		return nil, ErrNoChain
	}
	s := &Store{
		pool:    pool,
		chain:   chain,
		channel: channelOf(chain),
		guard:   chainguard.New(decode),
	}
	if err := s.createTable(ctx); err != nil {
		return nil, s.wrap(err)
	}
	return s, nil
}

// channelOf returns the notification channel of chain: a channel is an
// identifier, at most 63 bytes, so it holds a digest of the name rather
// than the name.
func channelOf(chain string) string {
	sum := sha256.Sum256([]byte(chain))
	return "mcpid_toolname_" + hex.EncodeToString(sum[:16])
}

// createLock is the advisory lock key that New takes while it creates
// the table: "mcpid" in ASCII.
const createLock = 0x6d63706964

// createTable creates Table unless it exists.
func (s *Store) createTable(ctx context.Context) error {
	var exists bool
	if err := s.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, Table).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(createLock)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+Table+` (
			chain      text PRIMARY KEY,
			rev        text NOT NULL,
			generation bigint NOT NULL,
			names      bytea NOT NULL,
			updated_at timestamptz NOT NULL DEFAULT now()
		)`)
		return err
	})
}

// decode is the guard's decoder: a stored value's table.
func decode(raw []byte) (*toolname.Table, error) {
	n := new(toolname.Table)
	if err := n.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return n, nil
}

// loadQuery returns the chain's revision and, unless it is the caller's
// ($2), its table.
const loadQuery = `SELECT rev, CASE WHEN rev = $2 THEN NULL ELSE names END FROM ` + Table + ` WHERE chain = $1`

// Load returns the chain's latest table and its revision, or nil and ""
// for a chain never stored. When the revision is the one this Store saw
// last, it returns the table it kept, without transferring or decoding
// it again. It refuses a chain that went backwards, or a table that does
// not continue the one this Store holds (an error matching
// [toolname.ErrRollback]), and a row whose names are no table (one
// matching [toolname.ErrInvalidTable]); an error of PostgreSQL or of ctx
// is returned wrapped.
func (s *Store) Load(ctx context.Context) (*toolname.Table, toolname.Revision, error) {
	n, rev, err := s.guard.Load(func(cached string) (string, []byte, error) {
		var rev string
		var raw []byte
		err := retry(ctx, func() error {
			return s.pool.QueryRow(ctx, loadQuery, s.chain, cached).Scan(&rev, &raw)
		})
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return "", nil, nil
		case err == nil && rev == "":
			return "", nil, fmt.Errorf("the row has an empty revision: %w", toolname.ErrInvalidTable)
		}
		return rev, raw, err
	})
	if err != nil {
		return nil, "", s.wrap(err)
	}
	return n, toolname.Revision(rev), nil
}

// The statements of Swap: each writes the row only when the revision
// matches, and notifies the new revision in the same statement, so the
// notification is sent when, and only when, the write commits. Each
// returns one row when it wrote, none otherwise.
const (
	// insertQuery stores a chain's first table: $1 chain, $2 channel,
	// $3 new revision, $4 generation, $5 names.
	insertQuery = `WITH w AS (
		INSERT INTO ` + Table + ` (chain, rev, generation, names) VALUES ($1, $3, $4, $5)
		ON CONFLICT (chain) DO NOTHING RETURNING rev
	) SELECT pg_notify($2, rev) FROM w`
	// updateQuery stores the table after revision $6.
	updateQuery = `WITH w AS (
		UPDATE ` + Table + ` SET rev = $3, generation = $4, names = $5, updated_at = now()
		WHERE chain = $1 AND rev = $6 RETURNING rev
	) SELECT pg_notify($2, rev) FROM w`
)

// Swap stores next as the table after rev if rev is still the chain's
// latest revision ("" for a chain never stored), notifies the new
// revision to every [Store.Watch], and returns it. Otherwise it stores
// nothing and returns a [*toolname.Error] matching [toolname.ErrStale].
// An error of PostgreSQL or of ctx is returned wrapped: the table may or
// may not have been stored, which the next Load tells.
func (s *Store) Swap(ctx context.Context, rev toolname.Revision, next *toolname.Table) (toolname.Revision, error) {
	if next == nil {
		return "", ErrNoTable
	}
	data, err := next.MarshalJSON()
	if err != nil {
		return "", s.wrap(err)
	}
	_, gen := next.Chain()
	newRev := "g" + strconv.FormatUint(gen, 10) + "-" + rand.Text()
	query, args := insertQuery, []any{s.chain, s.channel, newRev, int64(gen), data}
	if rev != "" {
		query, args = updateQuery, append(args, string(rev))
	}
	err = retry(ctx, func() error {
		return s.pool.QueryRow(ctx, query, args...).Scan(nil)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return "", s.wrap(&toolname.Error{Code: toolname.CodeStale, Field: "revision", Index: -1, Offset: -1, Input: string(rev)})
	}
	if err != nil {
		return "", s.wrap(err)
	}
	s.guard.Stored(newRev, next)
	return toolname.Revision(newRev), nil
}

// retryLimit bounds the runs of a statement that PostgreSQL failed as a
// serialization failure or a deadlock.
const retryLimit = 10

// retry runs f again while it fails with a serialization failure
// (40001) or a deadlock (40P01), which say that nothing was written and
// that the same statement may succeed now, up to retryLimit runs.
func retry(ctx context.Context, f func() error) error {
	var err error
	for range retryLimit {
		err = f()
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || (pgErr.Code != "40001" && pgErr.Code != "40P01") || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// Hold sets the table this Store holds, before its first Load (a
// replica's backup): a later table must continue it, as
// [toolname.Holder] says. Its error is wrapped like Load's.
func (s *Store) Hold(n *toolname.Table) error {
	if err := s.guard.Hold(n); err != nil {
		return s.wrap(err)
	}
	return nil
}

// wrap names the store and the chain in err, which stays what it is for
// [errors.Is] and [errors.As].
func (s *Store) wrap(err error) error {
	return fmt.Errorf("pgstore: chain %q: %w", s.chain, err)
}
