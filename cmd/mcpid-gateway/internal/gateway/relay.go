package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
)

// This file is the relay of a caller's request to a downstream (a
// downstream.Child) and of what comes back: the request registered with
// the child's relay for as long as it may act on it, bounded by the
// gateway's timeout, and the URIs of the answer written in the child's
// form.

// relayTo sends the caller's request req to d's session cs as out, with f,
// within the gateway's timeout (or ctx's earlier deadline). The request is
// registered with d's relay for as long as d may act on it, so that what d
// sends meanwhile (logs, sampling and elicitation requests, which name no
// call) reaches no other caller (see [downstream.Relay]); an answer, a
// result or a JSON-RPC error, tells runDownstream that d serves.
func (g *gateway) relayTo(ctx context.Context, d *downstream.Child, cs *mcp.ClientSession, req mcp.Request, out mcp.Params, f func(context.Context, *mcp.ClientSession) error) error {
	ctx, cancel := context.WithTimeout(ctx, g.cfg.timeout)
	defer cancel()
	err := g.relayOnce(ctx, d, cs, req, out, f)
	var werr *jsonrpc.Error
	if err == nil || (errors.As(err, &werr) && !undelivered(err)) {
		d.Answered.Store(true)
	}
	return err
}

// toDownstream sends the caller's request req to d's session as out, with
// f (see relayTo); a downstream that is not connected is an error.
func (g *gateway) toDownstream(ctx context.Context, d *downstream.Child, req mcp.Request, out mcp.Params, f func(context.Context, *mcp.ClientSession) error) error {
	cs := d.Session()
	if cs == nil {
		return unavailableErr(d)
	}
	return g.relayTo(ctx, d, cs, req, out, f)
}

// unavailableErr is the error of a request to a downstream that is not
// connected now.
func unavailableErr(d *downstream.Child) error {
	return fmt.Errorf("the server %q is not available; try again later", d.Name)
}

// rewriteContent writes, in place, the URI of every resource link and
// embedded resource in content in d's form (see relay.Forms).
func (g *gateway) rewriteContent(d *downstream.Child, content []mcp.Content) {
	g.forms.Rewrite(d.Name, content)
}
