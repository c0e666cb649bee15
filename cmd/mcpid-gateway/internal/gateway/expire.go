package gateway

import (
	"context"
	"sync"

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

// sessionSwap tells the requests waiting for a downstream's next session
// that it is there.
type sessionSwap struct {
	mu   sync.Mutex
	next chan struct{} // closed when the next session is stored; nil while no one waits
}

// setSession stores cs as d's session and wakes the requests waiting for
// a new one.
func (d *child) setSession(cs *mcp.ClientSession) {
	d.swap.mu.Lock()
	defer d.swap.mu.Unlock()
	d.session.Store(cs)
	if d.swap.next != nil {
		close(d.swap.next)
		d.swap.next = nil
	}
}

// nextSession returns d's session once it is another than old, or nil
// when ctx ends first.
func (d *child) nextSession(ctx context.Context, old *mcp.ClientSession) *mcp.ClientSession {
	for {
		d.swap.mu.Lock()
		cs := d.session.Load()
		if cs != nil && cs != old {
			d.swap.mu.Unlock()
			return cs
		}
		if d.swap.next == nil {
			d.swap.next = make(chan struct{})
		}
		next := d.swap.next
		d.swap.mu.Unlock()
		select {
		case <-next:
		case <-ctx.Done():
			return nil
		}
	}
}

// relayOnce sends the caller's request req to d's session cs as out, with
// f, relaying its notifications (see relayTo); a request that cs's server
// refused for a session it no longer knows is sent again, once, on the
// session that replaces it.
func (g *gateway) relayOnce(ctx context.Context, d *child, cs *mcp.ClientSession, req mcp.Request, out mcp.Params, f func(context.Context, *mcp.ClientSession) error) error {
	for retried := false; ; retried = true {
		callCtx, rc := d.inFlight.Start(ctx, req, out, downstream.MetaLevel(cs), g.cfg.timeout)
		err := f(callCtx, cs)
		d.inFlight.End(rc)
		if err == nil || retried || !rc.SessionRefused() {
			return err
		}
		if cs = d.nextSession(ctx, cs); cs == nil {
			return err
		}
	}
}
