package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
)

// An HTTP downstream's server may end its session at any time (an idle
// timeout, a restart), and then answers 404 to a request that carries the
// session's id. The SDK ends the connection; the gateway opens a new
// session, as after any end, with its logging level and the callers'
// resource subscriptions set again (see session), and the request that
// met the 404 is sent again on the new session, once, within the same
// timeout: the server refused it unread, so it acts on it once.

// relayOnce sends the caller's request req to d's session cs as out, with
// f, relaying its notifications (see relayTo); a request that cs's server
// refused for a session it no longer knows is sent again, once, on the
// session that replaces it.
func (g *gateway) relayOnce(ctx context.Context, d *downstream.Child, cs *mcp.ClientSession, req mcp.Request, out mcp.Params, f func(context.Context, *mcp.ClientSession) error) error {
	for retried := false; ; retried = true {
		callCtx, rc := d.InFlight.Start(ctx, req, out, downstream.MetaLevel(cs, d.Remote), g.cfg.timeout)
		err := f(callCtx, cs)
		d.InFlight.End(rc)
		if err == nil || retried || !rc.SessionRefused() {
			return err
		}
		if cs = d.NextSession(ctx, cs); cs == nil {
			return err
		}
	}
}
