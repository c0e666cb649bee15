// Package storekit holds the tests and benchmarks that the Redis and
// PostgreSQL stores share beyond toolname/storetest: a store whose server
// stops and starts again, two replicas' handles on one chain, and the
// costs that docs/performance.md reports.
// Tests only: it is a kit, not a feature.
package storekit

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/internal/testkit/dbserver"
	"github.com/mcpid/mcpid/toolname"
)

// Open returns a store value on chain, on the server at url: one
// replica's handle, with a client of its own. It releases what it opened
// with tb.Cleanup.
type Open func(tb testing.TB, url, chain string) toolname.Store

// recoverWithin bounds the wait for a store to work again after its
// server came back: a failure, not a measure.
const recoverWithin = 30 * time.Second

// Outage checks a store through its server's outage: while the server is
// down, Load, Swap, Update and Seed return errors (none a rollback, none
// a stale revision) and store nothing; once it is back, the same values
// load the same table, store new names, and a Watch begun before the
// outage tells a swap made after it.
func Outage(t *testing.T, srv *dbserver.Server, open Open) {
	ctx := context.Background()
	a, b := open(t, srv.URL, "outage"), open(t, srv.URL, "outage")
	x := toolname.Key{Server: "a", Tool: "x"}
	first, rev1, err := toolname.Update(ctx, a, toolname.Portable, []toolname.Key{x})
	require.NoError(t, err)
	w, ok := a.(toolname.Watcher)
	require.True(t, ok, "the store implements toolname.Watcher")
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := w.Watch(wctx)
	require.NoError(t, err)
	seeded := open(t, srv.URL, "outage-seed")

	srv.Stop()
	y := toolname.Key{Server: "b", Tool: "y"}
	down, stop := context.WithTimeout(ctx, recoverWithin)
	defer stop()
	for name, call := range map[string]func() error{
		"Load": func() error { _, _, err := a.Load(down); return err },
		"Update": func() error {
			_, _, err := toolname.Update(down, b, toolname.Portable, []toolname.Key{x, y})
			return err
		},
		"Swap": func() error { _, err := a.Swap(down, rev1, first); return err },
		"Seed": func() error { _, err := toolname.Seed(down, seeded, first); return err },
	} {
		err := call()
		require.Error(t, err, "%s while the server is down", name)
		assert.NotErrorIs(t, err, toolname.ErrRollback, name)
		assert.NotErrorIs(t, err, toolname.ErrStale, name)
		assert.NotErrorIs(t, err, context.DeadlineExceeded, "%s waited for the server instead of failing", name)
	}

	srv.Start()
	var (
		got *toolname.Table
		rev toolname.Revision
	)
	require.NoError(t, retry(func() (err error) { got, rev, err = a.Load(ctx); return err }), "Load after the restart")
	assert.Equal(t, rev1, rev, "the revision after the restart")
	id1, gen1 := first.Chain()
	id, gen := got.Chain()
	assert.Equal(t, [2]any{id1, gen1}, [2]any{id, gen}, "the chain after the restart")

	var second *toolname.Table
	var rev2 toolname.Revision
	require.NoError(t, retry(func() (err error) {
		second, rev2, err = toolname.Update(ctx, b, toolname.Portable, []toolname.Key{x, y})
		return err
	}), "Update after the restart")
	require.NotEqual(t, rev1, rev2, "the new name was stored")
	name, ok := second.Name(y)
	require.True(t, ok)
	assert.Equal(t, "y", name)

	// The watch begun before the outage tells the new revision; revisions
	// between (a resubscription's) may come first.
	timeout := time.After(recoverWithin)
	for seen := toolname.Revision("-"); seen != rev2; {
		select {
		case r, ok := <-ch:
			require.True(t, ok, "the watch channel closed during the outage")
			seen = r
		case <-timeout:
			t.Fatalf("the watch begun before the outage did not tell revision %q within %v", rev2, recoverWithin)
		}
	}
	latest, rev, err := a.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, rev2, rev)
	name, ok = latest.Name(y)
	require.True(t, ok)
	assert.Equal(t, "y", name)
}

// retry calls f until it succeeds, or returns its last error after
// recoverWithin: a client reconnects at its own pace.
func retry(f func() error) error {
	deadline := time.Now().Add(recoverWithin)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		if errors.Is(err, toolname.ErrRollback) || errors.Is(err, toolname.ErrInvalidTable) {
			return err // not an outage: no use waiting
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Long-chain sizes of the Update benchmark: a gateway that has run for
// long keeps every name it ever gave, so a store must stay fast on a
// chain of retired names ten times its live table.
const (
	benchLive    = 10_000
	benchRetired = 100_000
)

// longChain returns a table of benchLive live and benchRetired retired
// names, and its live keys.
func longChain(tb testing.TB) (*toolname.Table, []toolname.Key) {
	tb.Helper()
	all := make([]toolname.Key, benchLive+benchRetired)
	for i := range all {
		all[i] = toolname.Key{Server: fmt.Sprintf("s%03d", i%500), Tool: fmt.Sprintf("t%06d", i)}
	}
	first, err := toolname.Assign(toolname.Portable, all)
	require.NoError(tb, err)
	live := all[:benchLive]
	table, err := toolname.Assign(toolname.Portable, live, toolname.WithPrevious(first))
	require.NoError(tb, err)
	return table, live
}

// BenchUpdate measures Update through a store on a chain of 10,000 live
// and 100,000 retired names: "write", a one-key change (a new key comes,
// the last one goes), which stores the whole table; "unchanged", an
// Update that stores nothing (a revision check and Assign).
func BenchUpdate(b *testing.B, url string, open Open) {
	table, live := longChain(b)
	data, err := table.MarshalJSON()
	require.NoError(b, err)
	ctx := context.Background()
	st := open(b, url, "bench-update")
	_, err = toolname.Seed(ctx, st, table)
	require.NoError(b, err)
	keys := append(live[:len(live):len(live)], toolname.Key{Server: "new", Tool: "first"})

	// fresh numbers the keys that come, across every run of "write"
	// (the testing package calls it more than once): a key seen before
	// would get its name back, and nothing would be stored.
	fresh := 0
	b.Run("write", func(b *testing.B) {
		b.ReportAllocs()
		_, prev, err := st.Load(ctx)
		require.NoError(b, err)
		for b.Loop() {
			fresh++
			keys[len(keys)-1] = toolname.Key{Server: "new", Tool: fmt.Sprintf("n%d", fresh)}
			_, rev, err := toolname.Update(ctx, st, toolname.Portable, keys)
			if err != nil {
				b.Fatal(err)
			}
			if rev == prev {
				b.Fatalf("a new key's Update stored nothing: revision %q", rev)
			}
			prev = rev
		}
		b.ReportMetric(float64(len(data))/1e6, "MB/table")
	})
	b.Run("unchanged", func(b *testing.B) {
		b.ReportAllocs()
		_, before, err := toolname.Update(ctx, st, toolname.Portable, keys)
		require.NoError(b, err)
		for b.Loop() {
			_, rev, err := toolname.Update(ctx, st, toolname.Portable, keys)
			if err != nil {
				b.Fatal(err)
			}
			if rev != before {
				b.Fatalf("an unchanged Update stored a table: revision %q, was %q", rev, before)
			}
		}
	})
}

// BenchNotify measures how soon a name stored by one replica is served by
// another: from the start of one handle's Update that stores a new name
// to the moment another handle, told by its Watch, has loaded that
// revision. The chain is small, so that the time is the store's, not the
// table's.
func BenchNotify(b *testing.B, url string, open Open) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writer, reader := open(b, url, "bench-notify"), open(b, url, "bench-notify")
	w, ok := reader.(toolname.Watcher)
	require.True(b, ok, "the store implements toolname.Watcher")
	ch, err := w.Watch(ctx)
	require.NoError(b, err)
	keys := []toolname.Key{{Server: "a", Tool: "x"}, {}}
	// Each new key is one the chain never held, whatever ran before.
	fresh := rand.Text()[:8]
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		keys[1] = toolname.Key{Server: "b", Tool: fmt.Sprintf("n%s%d", fresh, i)}
		_, rev, err := toolname.Update(ctx, writer, toolname.Portable, keys)
		if err != nil {
			b.Fatal(err)
		}
		for seen := toolname.Revision("-"); seen != rev; {
			select {
			case seen = <-ch:
			case <-time.After(recoverWithin):
				b.Fatalf("no notification of %q within %v", rev, recoverWithin)
			}
		}
		if _, got, err := reader.Load(ctx); err != nil || got != rev {
			b.Fatalf("the reader loaded %q, %v; want %q", got, err, rev)
		}
	}
}
