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
//
// A tools/call waits here and in startToolCall (call.go); a prompts/get,
// resources/read, completion/complete or resources/subscribe waits in
// package relay (relay.Kinds, with the gateway's ready and startOver),
// by the same rule.

// awaitStart waits until c closes, the start is over, or ctx is done, and
// reports whether c closed.
func (g *gateway) awaitStart(ctx context.Context, c <-chan struct{}) bool {
	return downstream.AwaitStart(ctx, c, g.startOver)
}

// heldBy returns the downstream of this replica that a key of the stored
// table belongs to, or nil when no downstream of this replica has that
// name.
func (g *gateway) heldBy(k toolname.Key) *downstream.Child {
	return g.downstream(k.Server)
}
