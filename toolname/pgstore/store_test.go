package pgstore_test

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/internal/testkit/storekit"
	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/pgstore"
	"github.com/mcpid/mcpid/toolname/storetest"
)

// run keeps this test process's chains apart from those of other runs
// (other -count runs, other programs) on a shared server.
var run = "pgstore-test-" + rand.Text()[:8] + "-"

// newPool returns a pool of the PostgreSQL at url, closed when tb ends.
func newPool(tb testing.TB, url string) *pgxpool.Pool {
	tb.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	require.NoError(tb, err)
	tb.Cleanup(pool.Close)
	return pool
}

// newStore returns a store of this run's chain on pool, whose row is
// deleted when tb ends.
func newStore(tb testing.TB, pool *pgxpool.Pool, chain string) *pgstore.Store {
	tb.Helper()
	ctx := context.Background()
	st, err := pgstore.New(ctx, pool, run+chain)
	require.NoError(tb, err)
	tb.Cleanup(func() { pool.Exec(ctx, `DELETE FROM `+pgstore.Table+` WHERE chain = $1`, run+chain) })
	return st
}

// open is the kit's Open: a handle with a pool of its own.
func open(tb testing.TB, url, chain string) toolname.Store {
	return newStore(tb, newPool(tb, url), chain)
}

// write writes a chain's row as it is given, bypassing the store.
func write(t *testing.T, pool *pgxpool.Pool, chain, rev string, names []byte) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `INSERT INTO `+pgstore.Table+` (chain, rev, generation, names) VALUES ($1, $2, 0, $3)
		ON CONFLICT (chain) DO UPDATE SET rev = $2, names = $3`, chain, rev, names)
	require.NoError(t, err)
}

// The stores are Holders: storetest checks Hold on them.
var _ toolname.Holder = (*pgstore.Store)(nil)

func TestConformance(t *testing.T) {
	pool := newPool(t, dbserver.PostgresURL(t))
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, chain string) toolname.Store {
			return newStore(t, pool, chain)
		},
		Corrupt: func(t *testing.T, chain string, raw []byte) {
			newStore(t, pool, chain) // the table, and the row's deletion
			write(t, pool, run+chain, "corrupt-"+rand.Text(), raw)
		},
		Reset: func(t *testing.T, chain string) {
			_, err := pool.Exec(context.Background(), `DELETE FROM `+pgstore.Table+` WHERE chain = $1`, run+chain)
			require.NoError(t, err)
		},
	})
}

// TestEmptyRevision: a row whose revision is empty is damaged, never an
// empty chain, and is left as it is.
func TestEmptyRevision(t *testing.T) {
	pool := newPool(t, dbserver.PostgresURL(t))
	ctx := context.Background()
	chain := "empty-rev-" + rand.Text()[:8]
	st := newStore(t, pool, chain)
	write(t, pool, run+chain, "", []byte("{}"))
	_, _, err := st.Load(ctx)
	require.ErrorIs(t, err, toolname.ErrInvalidTable)
	table, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "a", Tool: "x"}})
	require.NoError(t, err)
	_, err = toolname.Seed(ctx, st, table)
	require.ErrorIs(t, err, toolname.ErrChainNotEmpty)
	var rev string
	var names []byte
	require.NoError(t, pool.QueryRow(ctx, `SELECT rev, names FROM `+pgstore.Table+` WHERE chain = $1`, run+chain).Scan(&rev, &names))
	assert.Equal(t, "", rev)
	assert.Equal(t, "{}", string(names))
}

func TestBadArguments(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://nobody@127.0.0.1:1/none") // never reached
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pgstore.New(ctx, pool, "")
	assert.ErrorIs(t, err, pgstore.ErrNoChain)
	_, err = pgstore.New(ctx, pool, "c")
	assert.Error(t, err, "New reaches the server")

	st := newStore(t, newPool(t, dbserver.PostgresURL(t)), "bad-arguments")
	_, err = st.Swap(ctx, "", nil)
	assert.ErrorIs(t, err, pgstore.ErrNoTable)
}

// TestNewConcurrently: replicas that start together on a database without
// the table all get a store (the table is created once).
func TestNewConcurrently(t *testing.T) {
	srv := dbserver.StartPostgres(t)
	pool := newPool(t, srv.URL)
	errs := make(chan error, 8)
	for range cap(errs) {
		go func() {
			_, err := pgstore.New(context.Background(), pool, "c")
			errs <- err
		}()
	}
	for range cap(errs) {
		assert.NoError(t, <-errs)
	}
}

// TestDecodesOnce: a Load whose revision did not change returns the table
// kept, and one whose revision changed decodes the new one.
func TestDecodesOnce(t *testing.T) {
	storekit.DecodesOnce(t, dbserver.PostgresURL(t), open)
}

// TestWatchAcrossPools: a handle's Watch tells the swaps of a handle with
// a pool of its own, as another replica's would be, and ends with its
// context.
func TestWatchAcrossPools(t *testing.T) {
	storekit.WatchAcross(t, dbserver.PostgresURL(t), open)
}

// TestOutage: a PostgreSQL of the test's own stopped (as by a crash) and
// started again.
func TestOutage(t *testing.T) {
	storekit.Outage(t, dbserver.StartPostgres(t), open)
}

func BenchmarkUpdate(b *testing.B) {
	storekit.BenchUpdate(b, dbserver.PostgresURL(b), open)
}

func BenchmarkNotify(b *testing.B) {
	storekit.BenchNotify(b, dbserver.PostgresURL(b), open)
}
