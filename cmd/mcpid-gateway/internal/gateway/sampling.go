//lint:file-ignore SA1019 MCP 2026-07-28 deprecates sampling, which stays functional for at least a year; the gateway relays it while downstreams and hosts use it.

package gateway

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A downstream's sampling or elicitation request ("enter your API key")
// names no call, and must never reach another user than the one whose
// call made it: the gateway relays it to a caller only when every call in
// flight to that downstream is that caller's (the same session, or the
// same verified user; see Relay.Owner in examples/internal/downstream), only on a stateful
// session (one that initialized and declared the capability, which a
// stateless request cannot), and answers the downstream with an error
// otherwise, which it can handle as a client's refusal.

// errNoCaller is the downstream's answer when no single caller can be
// asked.
var errNoCaller = errors.New("the gateway relays this request only to the caller of every call in flight to this server, on a stateful session that declared the capability; there is none now")

// relayToCaller sends a request of d to the caller that owns every call
// in flight to d, with ask, within that call's context.
func relayToCaller[R any](d *child, what string, ask func(context.Context, *mcp.ServerSession) (*R, error)) (*R, error) {
	owner := d.inFlight.Owner()
	if owner == nil {
		return nil, errNoCaller
	}
	ctx, ss := owner.Session()
	if ss == nil || !declares(ss, what) {
		return nil, errNoCaller
	}
	return ask(ctx, ss)
}

// declares reports whether the caller's session initialized, declaring
// the client capability what ("sampling" or "elicitation").
func declares(ss *mcp.ServerSession, what string) bool {
	init := ss.InitializeParams()
	if init == nil || init.Capabilities == nil {
		return false
	}
	switch what {
	case "sampling":
		return init.Capabilities.Sampling != nil
	case "elicitation":
		return init.Capabilities.Elicitation != nil
	}
	return false
}

// samplingHandlers sets, on the options of the gateway's client of d, the
// handlers that relay d's sampling and elicitation requests.
func samplingHandlers(d *child, opts *mcp.ClientOptions) {
	opts.CreateMessageHandler = func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return relayToCaller(d, "sampling", func(ctx context.Context, ss *mcp.ServerSession) (*mcp.CreateMessageResult, error) {
			return ss.CreateMessage(ctx, req.Params)
		})
	}
	opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return relayToCaller(d, "elicitation", func(ctx context.Context, ss *mcp.ServerSession) (*mcp.ElicitResult, error) {
			return ss.Elicit(ctx, req.Params)
		})
	}
}

// relayElicitation is the receiving middleware of the gateway's client of
// d that relays an elicitation/create as it came: the SDK's client would
// first check the requested schema against the subset it knows, and
// refuse schemas (titled and multi-select enums) that the caller's own
// client accepts. The caller's client checks the schema, and the answer.
func relayElicitation(d *child) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			r, ok := req.(*mcp.ElicitRequest)
			if !ok || method != "elicitation/create" || r.Params == nil {
				return next(ctx, method, req)
			}
			res, err := relayToCaller(d, "elicitation", func(ctx context.Context, ss *mcp.ServerSession) (*mcp.ElicitResult, error) {
				return ss.Elicit(ctx, r.Params)
			})
			if err != nil {
				return nil, err
			}
			return res, nil
		}
	}
}
