package redisstore_test

import (
	"context"
	"crypto/rand"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/internal/testkit/storekit"
	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/redisstore"
	"github.com/mcpid/mcpid/toolname/storetest"
)

// run keeps this test process's chains apart from those of other runs
// (other packages, other -count runs) on a shared server.
var run = "redisstore-test-" + rand.Text()[:8] + "-"

// newClient returns a client of the Redis at url, with go-redis's
// defaults but for opts, closed when tb ends.
func newClient(tb testing.TB, url string, opts ...func(*redis.Options)) *redis.Client {
	tb.Helper()
	o, err := redis.ParseURL(url)
	require.NoError(tb, err)
	for _, f := range opts {
		f(o)
	}
	c := redis.NewClient(o)
	tb.Cleanup(func() { c.Close() })
	return c
}

// open is the kit's Open: a handle with a client of its own, on a chain
// of this run, deleted when tb ends.
func open(tb testing.TB, url, chain string) toolname.Store {
	return openWith(tb, url, chain)
}

// openWith is open with client options.
func openWith(tb testing.TB, url, chain string, opts ...func(*redis.Options)) toolname.Store {
	c := newClient(tb, url, opts...)
	tb.Cleanup(func() { c.Del(context.Background(), redisstore.KeyPrefix+run+chain) })
	return redisstore.New(c, run+chain)
}

// The stores are Holders: storetest checks Hold on them.
var _ toolname.Holder = (*redisstore.Store)(nil)

func TestConformance(t *testing.T) {
	c := newClient(t, dbserver.RedisURL(t))
	ctx := context.Background()
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T, chain string) toolname.Store {
			t.Cleanup(func() { c.Del(ctx, redisstore.KeyPrefix+run+chain) })
			return redisstore.New(c, run+chain)
		},
		Corrupt: func(t *testing.T, chain string, raw []byte) {
			require.NoError(t, c.HSet(ctx, redisstore.KeyPrefix+run+chain, "rev", "corrupt-"+rand.Text(), "table", raw).Err())
		},
		Reset: func(t *testing.T, chain string) {
			require.NoError(t, c.Del(ctx, redisstore.KeyPrefix+run+chain).Err())
		},
	})
}

// TestNotATable: a key that holds anything but a table is an error,
// never an empty chain, and is left as it is.
func TestNotATable(t *testing.T) {
	c := newClient(t, dbserver.RedisURL(t))
	ctx := context.Background()
	table, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "a", Tool: "x"}})
	require.NoError(t, err)
	for _, tt := range []struct {
		name  string
		write func(key string) error
	}{
		{"a string", func(key string) error { return c.Set(ctx, key, "names", 0).Err() }},
		{"a list", func(key string) error { return c.RPush(ctx, key, "names").Err() }},
		{"a hash without rev", func(key string) error { return c.HSet(ctx, key, "table", "{}").Err() }},
		{"a hash without table", func(key string) error { return c.HSet(ctx, key, "rev", "r1").Err() }},
		{"an empty revision", func(key string) error { return c.HSet(ctx, key, "rev", "", "table", "{}").Err() }},
		{"a hash of other fields", func(key string) error { return c.HSet(ctx, key, "users", "1").Err() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			chain := run + "not-a-table-" + rand.Text()[:8]
			key := redisstore.KeyPrefix + chain
			t.Cleanup(func() { c.Del(ctx, key) })
			require.NoError(t, tt.write(key))
			before, err := c.Dump(ctx, key).Result()
			require.NoError(t, err)

			st := redisstore.New(c, chain)
			_, _, err = st.Load(ctx)
			require.ErrorIs(t, err, toolname.ErrInvalidTable)
			_, _, err = toolname.Update(ctx, st, toolname.Portable, []toolname.Key{{Server: "a", Tool: "x"}})
			require.ErrorIs(t, err, toolname.ErrInvalidTable)
			_, err = toolname.Seed(ctx, st, table)
			require.ErrorIs(t, err, toolname.ErrChainNotEmpty)
			_, err = st.Swap(ctx, "r1", table)
			require.Error(t, err)

			after, err := c.Dump(ctx, key).Result()
			require.NoError(t, err)
			assert.Equal(t, before, after, "the key was written")
		})
	}
}

func TestBadArguments(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never reached
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	table, err := toolname.Assign(toolname.Portable, []toolname.Key{{Server: "a", Tool: "x"}})
	require.NoError(t, err)

	noChain := redisstore.New(c, "")
	_, _, err = noChain.Load(ctx)
	assert.ErrorIs(t, err, redisstore.ErrNoChain)
	_, err = noChain.Swap(ctx, "", table)
	assert.ErrorIs(t, err, redisstore.ErrNoChain)
	_, err = noChain.Watch(ctx)
	assert.ErrorIs(t, err, redisstore.ErrNoChain)

	_, err = redisstore.New(c, "c").Swap(ctx, "", nil)
	assert.ErrorIs(t, err, redisstore.ErrNoTable)
}

// TestDecodesOnce: a Load whose revision did not change returns the table
// kept, and one whose revision changed decodes the new one.
func TestDecodesOnce(t *testing.T) {
	storekit.DecodesOnce(t, dbserver.RedisURL(t), open)
}

// TestOutage: a Redis of the test's own stopped (as by a crash) and
// started again. The clients retry nothing, so that each call made while
// Redis is down fails at once (go-redis's defaults retry for about 1.7 s).
func TestOutage(t *testing.T) {
	storekit.Outage(t, dbserver.StartRedis(t), func(tb testing.TB, url, chain string) toolname.Store {
		return openWith(tb, url, chain, func(o *redis.Options) { o.MaxRetries, o.DialerRetries = -1, 1 })
	})
}

func BenchmarkUpdate(b *testing.B) {
	storekit.BenchUpdate(b, dbserver.RedisURL(b), open)
}

func BenchmarkNotify(b *testing.B) {
	storekit.BenchNotify(b, dbserver.RedisURL(b), open)
}

// TestWatchAcrossClients: a handle's Watch tells the swaps of a handle
// with a client of its own, as another replica's would be, and ends with
// its context.
func TestWatchAcrossClients(t *testing.T) {
	storekit.WatchAcross(t, dbserver.RedisURL(t), open)
}
