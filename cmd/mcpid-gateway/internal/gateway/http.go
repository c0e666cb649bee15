package gateway

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/internal/serve"
)

// handler returns the handler of the -http mode: MCP streamable HTTP at
// /mcp within lim, and the health endpoints (see withHealth).
//
// With stateless (-stateless), each request is served whole by itself,
// with no session kept between requests, as MCP 2026-07-28 has it: any
// replica answers any request, so a load balancer may send each request
// of one conversation to another replica. A caller's logs then come
// through its request's own level (_meta) alone, on every protocol version
// (see relay.AskedLevel), progress on the request's own
// stream; what needs a session is refused: resource subscriptions (see
// refuseSubscriptions), and a downstream's sampling and elicitation
// requests, which the SDK cannot send on a session that lives for one
// request. Without it, a session lives on the replica that opened it,
// and the load balancer must send every request of a session there
// (affinity on the Mcp-Session-Id header): another replica answers 404.
func (g *gateway) handler(lim serve.Limits, stateless bool) http.Handler {
	opts := httpOptions(lim)
	opts.Stateless = stateless
	// The MCP endpoint and /metrics; inbound authentication wraps them
	// here, and leaves the health endpoints open.
	served := g.withMetrics(serve.Mount(gosdk.NewHTTPHandler(g.srv, opts)))
	return g.withHealth(served)
}

// refuseSubscriptions is the receiving middleware of a stateless gateway
// that answers a subscription to resources with an error: its updates
// would come from the downstream session of one replica, to a client
// session that no replica keeps.
func refuseSubscriptions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		subscribes := method == "resources/subscribe" || method == "resources/unsubscribe"
		if listen, ok := downstream.Params(req).(*mcp.SubscriptionsListenParams); ok && method == "subscriptions/listen" &&
			listen != nil && listen.Notifications != nil && len(listen.Notifications.ResourceSubscriptions) > 0 {
			subscribes = true
		}
		if subscribes {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: "this gateway serves each request by itself (-stateless): resource subscriptions are not available; read the resource again instead"}
		}
		return next(ctx, method, req)
	}
}

// httpOptions returns the options of gosdk.NewHTTPHandler within lim.
func httpOptions(lim serve.Limits) *gosdk.HTTPOptions {
	return &gosdk.HTTPOptions{MaxSessions: lim.MaxSessions, SessionIdle: lim.SessionIdle, MaxBody: lim.MaxBody}
}
