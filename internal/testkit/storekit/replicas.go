package storekit

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid/toolname"
)

// notifyWithin bounds the wait for a Watch to tell a swap: a failure,
// not a measure.
const notifyWithin = 30 * time.Second

// DecodesOnce checks two replicas' handles on one chain: a Load whose
// revision did not change returns the table kept, one whose revision
// changed decodes the new one, and the handle that stored a table keeps
// it.
func DecodesOnce(t *testing.T, url string, open Open) {
	ctx := context.Background()
	chain := "decodes-once-" + rand.Text()[:8]
	a, b := open(t, url, chain), open(t, url, chain)

	stored, rev, err := toolname.Update(ctx, a, toolname.Portable, []toolname.Key{{Server: "a", Tool: "x"}})
	require.NoError(t, err)
	first, rev1, err := b.Load(ctx)
	require.NoError(t, err)
	require.Equal(t, rev, rev1)
	again, rev2, err := b.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, rev1, rev2)
	assert.Same(t, first, again, "the unchanged revision was decoded again")
	mine, _, err := a.Load(ctx)
	require.NoError(t, err)
	assert.Same(t, stored, mine, "the handle that stored the table keeps it")

	_, rev3, err := toolname.Update(ctx, a, toolname.Portable, []toolname.Key{{Server: "a", Tool: "x"}, {Server: "b", Tool: "y"}})
	require.NoError(t, err)
	next, rev4, err := b.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, rev3, rev4)
	name, ok := next.Name(toolname.Key{Server: "b", Tool: "y"})
	require.True(t, ok)
	assert.Equal(t, "y", name)
}

// WatchAcross checks that a handle's Watch tells the swaps of another
// handle on its chain, with a connection of its own as another replica's
// would be, up to the last, and ends with its context.
func WatchAcross(t *testing.T, url string, open Open) {
	chain := "watch-" + rand.Text()[:8]
	a, b := open(t, url, chain), open(t, url, chain)
	w, ok := a.(toolname.Watcher)
	require.True(t, ok, "the store implements toolname.Watcher")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := w.Watch(ctx)
	require.NoError(t, err)
	var last toolname.Revision
	for _, tool := range []string{"x", "y", "z"} {
		_, last, err = toolname.Update(ctx, b, toolname.Portable, []toolname.Key{{Server: "s", Tool: tool}})
		require.NoError(t, err)
	}
	for got := toolname.Revision(""); got != last; {
		select {
		case got = <-ch:
		case <-time.After(notifyWithin):
			t.Fatalf("no notification of %q", last)
		}
	}
	cancel()
	for range ch {
	}
}
