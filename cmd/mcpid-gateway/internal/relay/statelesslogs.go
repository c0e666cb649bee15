//lint:file-ignore SA1019 MCP 2026-07-28 deprecates logging, which stays functional for at least a year; the gateway relays it while downstreams and hosts use it.

package relay

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
)

// A stateless gateway (-stateless) sends a caller log messages only when
// its request's _meta asks for a level, on every protocol version: MCP
// 2026-07-28 says a server must not send log messages unless the request
// sets a level, and a caller before it has no session on which a
// logging/setLevel could have set one. The SDK alone would not do that: it
// gives each stateless request of a caller before 2026-07-28 a session of
// its own at level "info", so such a caller would get logs it never asked
// for. Two middlewares enforce it: AskedLevel notes the level a request
// asks for in its context, and SendAskedLogs sends a log message within a
// request's context only at that level or above.

// logLevels are MCP's log levels, from the least to the most severe.
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// askedLevelKey is the context key of the level a request asked for.
type askedLevelKey struct{}

// AskedLevel is the receiving middleware of a stateless gateway that
// notes, in the request's context, the log level its _meta asks for, when
// it asks for one MCP knows.
//
// The SDK's session of a caller before 2026-07-28 is at level "info", and
// [mcp.ServerSession.Log] drops a message below its session's level before
// SendAskedLogs sees it: a request that asks for debug sets its session
// (which lives for this request alone) to debug first, through the SDK's
// own logging/setLevel handler, so that the level asked alone decides.
func AskedLevel(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p := downstream.Params(req); p != nil {
			if level, ok := p.GetMeta()[mcp.MetaKeyLogLevel].(string); ok && slices.Contains(logLevels, mcp.LoggingLevel(level)) {
				ctx = context.WithValue(ctx, askedLevelKey{}, mcp.LoggingLevel(level))
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok && level == "debug" && beforeMetaLevels(ss) {
					setLevel := &mcp.ServerRequest[*mcp.SetLoggingLevelParams]{Session: ss, Params: &mcp.SetLoggingLevelParams{Level: "debug"}}
					if _, err := next(ctx, "logging/setLevel", setLevel); err != nil {
						return nil, err
					}
				}
			}
		}
		return next(ctx, method, req)
	}
}

// beforeMetaLevels reports whether ss speaks a protocol before MCP
// 2026-07-28, where the SDK reads a request's level from its session, not
// from its _meta.
func beforeMetaLevels(ss *mcp.ServerSession) bool {
	init := ss.InitializeParams()
	return init == nil || init.ProtocolVersion < "2026-07-28"
}

// SendAskedLogs is the sending middleware of a stateless gateway that
// drops a log message unless it is sent within a request that asked for
// its level or a less severe one (see AskedLevel).
func SendAskedLogs(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "notifications/message" {
			return next(ctx, method, req)
		}
		asked, ok := ctx.Value(askedLevelKey{}).(mcp.LoggingLevel)
		p, _ := req.GetParams().(*mcp.LoggingMessageParams)
		if !ok || p == nil || slices.Index(logLevels, p.Level) < slices.Index(logLevels, asked) {
			return nil, nil
		}
		return next(ctx, method, req)
	}
}
