//lint:file-ignore SA1019 MCP 2026-07-28 deprecates sampling, which stays functional for at least a year; the gateway relays it while downstreams and hosts use it.

package relay

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
)

// A downstream's sampling or elicitation request ("enter your API key")
// names no call, and must never reach another user than the one whose
// call made it: the gateway relays it to a caller only when every call in
// flight to that downstream is that caller's (the same session, or the
// same verified user; see [downstream.Relay.Owner]), only on a stateful
// session (one that initialized and declared the capability, which a
// stateless request cannot), and answers the downstream with an error
// otherwise, which it can handle as a client's refusal.

// errNoCaller is the downstream's answer when no single caller can be
// asked.
var errNoCaller = errors.New("the gateway relays this request only to the caller of every call in flight to this server, on a stateful session that declared the capability; there is none now")

// relayToCaller sends a downstream's request to the caller that owns
// every call in flight to it (inFlight), with ask, within that call's
// context.
func relayToCaller[R any](inFlight *downstream.Relay, what string, ask func(context.Context, *mcp.ServerSession) (*R, error)) (*R, error) {
	owner := inFlight.Owner()
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

// SamplingHandlers sets, on the options of the gateway's client of a
// downstream whose calls in flight are inFlight, the handlers that relay
// its sampling and elicitation requests to the caller (see above).
func SamplingHandlers(inFlight *downstream.Relay, opts *mcp.ClientOptions) {
	opts.CreateMessageHandler = func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return relayToCaller(inFlight, "sampling", func(ctx context.Context, ss *mcp.ServerSession) (*mcp.CreateMessageResult, error) {
			return ss.CreateMessage(ctx, req.Params)
		})
	}
	opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return relayToCaller(inFlight, "elicitation", func(ctx context.Context, ss *mcp.ServerSession) (*mcp.ElicitResult, error) {
			return ss.Elicit(ctx, req.Params)
		})
	}
}

// Elicitation is the receiving middleware of the gateway's client of a
// downstream whose calls in flight are inFlight that relays an elicitation/create as it came: the SDK's client would
// first check the requested schema against the subset it knows, and
// refuse schemas (titled and multi-select enums) that the caller's own
// client accepts. The caller's client checks the schema, and the answer.
func Elicitation(inFlight *downstream.Relay) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			r, ok := req.(*mcp.ElicitRequest)
			if !ok || method != "elicitation/create" || r.Params == nil {
				return next(ctx, method, req)
			}
			res, err := relayToCaller(inFlight, "elicitation", func(ctx context.Context, ss *mcp.ServerSession) (*mcp.ElicitResult, error) {
				return ss.Elicit(ctx, r.Params)
			})
			if err != nil {
				return nil, err
			}
			return res, nil
		}
	}
}
