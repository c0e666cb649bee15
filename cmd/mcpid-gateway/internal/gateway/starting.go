package gateway

import (
	"context"

	"github.com/mcpid/mcpid/toolname"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
)

// This file is how a starting replica answers a request that routes by a
// name (tools/call, prompts/get, resources/read, completion/complete,
// resources/subscribe) before it has listed what the name routes to. The
// stored table already holds the names of every tool and prompt the chain
// gave, but a replica serves a name only once its downstream has listed
// it and a naming round has served the listing: a call sent as soon as a
// new replica answers, in a rolling restart, would otherwise be told that
// a tool it just listed on another replica does not exist. So such a
// request waits, until the start is over (-start-timeout after it
// began), for the first listing of the downstream that the stored table
// gives the name to, or, while no table is stored yet, for the chain's
// first round; then it is routed, or answered resource_unavailable
// (retryable), never "unknown". After the start, a name the stored table
// gives to a downstream of this replica that has not listed since is
// answered resource_unavailable at once; a name the stored table does not
// hold is answered as before.

// awaitStart waits until c closes, the start is over, or ctx is done, and
// reports whether c closed.
func (g *gateway) awaitStart(ctx context.Context, c <-chan struct{}) bool {
	return downstream.AwaitStart(ctx, c, g.startOver)
}

// startPrompt is startToolCall for a prompt's name, with the prompt chain.
func (g *gateway) startPrompt(ctx context.Context, name string) (k toolname.Key, unready bool, err error) {
	pc := &g.relayed.prompts
	t := pc.table.Load()
	if t.names == nil {
		g.awaitStart(ctx, pc.ready)
		t = pc.table.Load()
		if _, ok := t.byName[name]; ok {
			return toolname.Key{}, false, nil
		}
		if t.names == nil {
			return toolname.Key{}, true, nil
		}
	}
	if k, err = g.storedKey(ctx, pc.chain, t.names, name); err != nil {
		return toolname.Key{}, false, err
	}
	d := g.heldBy(k)
	if d == nil {
		return k, false, nil
	}
	return k, !g.awaitStart(ctx, d.PromptsServed.Done()), nil
}

// startURI waits, for a URI that routes to d, until d's first listing of
// its resources is done, while the start lasts; a URI that routes to no
// downstream waits for every downstream's first listing (their listings
// tell which downstreams cover a bare URI). It reports whether d is,
// after the wait, not connected yet: resource_unavailable.
func (g *gateway) startURI(ctx context.Context, d *downstream.Child) (unavailable bool) {
	if d == nil {
		g.awaitStart(ctx, g.ready)
		return false
	}
	return !g.awaitStart(ctx, d.KindsListed.Done()) || d.Session() == nil
}

// routeStarting is routeURI for a request that routes by uri, with the
// start's wait (see startURI): a downstream not connected yet is a
// resource_unavailable error.
func (g *gateway) routeStarting(ctx context.Context, uri string) (*downstream.Child, string, error) {
	d, own, err := g.routeURI(uri)
	if err != nil {
		select {
		case <-g.ready:
			return nil, "", err
		default:
		}
		g.startURI(ctx, nil)
		if d, own, err = g.routeURI(uri); err != nil {
			return nil, "", err
		}
	}
	if g.startURI(ctx, d) {
		return nil, "", downstream.UnavailableError(uri)
	}
	return d, own, nil
}

// heldBy returns the downstream of this replica that a key of the stored
// table belongs to, or nil when no downstream of this replica has that
// name.
func (g *gateway) heldBy(k toolname.Key) *downstream.Child {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.downstreams[k.Server]
}
