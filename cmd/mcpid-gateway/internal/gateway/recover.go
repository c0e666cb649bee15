package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recovered is the gateway's outermost receiving middleware: a panic on
// a request's path (in the gateway's own middlewares and handlers, or the
// SDK's) costs only that request. The SDK runs each request on a
// goroutine of its own that does not recover, so without this one
// request that panics ends the process and every caller's requests with
// it: the request is answered with a JSON-RPC internal error, which names
// nothing of the fault, and the panic is logged at Error with the method
// and the stack.
func (g *gateway) recovered(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if r := recover(); r != nil {
				logPanic(g.cfg.logger, method, r)
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
			}
		}()
		return next(ctx, method, req)
	}
}

// recoverIn, deferred first in a goroutine the gateway starts for one
// message, recovers a panic there and logs it as recovered does: the
// message is lost, the process goes on.
func (g *gateway) recoverIn(method string) {
	if r := recover(); r != nil {
		logPanic(g.cfg.logger, method, r)
	}
}

// logPanic logs the panic r, recovered while the gateway handled method.
func logPanic(logger *slog.Logger, method string, r any) {
	logger.Error("gateway: panic while serving a request", "method", method,
		"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
}
