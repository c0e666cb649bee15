package relay

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
)

// Complete relays completion/complete to the downstream of what it
// completes: a prompt, by the name the gateway serves it under, or a
// resource template, by the URI the gateway shows (see routeURI); the
// downstream gets its own prompt name or template.
func (ks *Kinds) Complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ctx, cancel := context.WithTimeout(ctx, ks.timeout) // the lookup and the request: one -timeout
	defer cancel()
	ref := req.Params.Ref
	var d *downstream.Child
	own := *ref
	switch ref.Type {
	case "ref/prompt":
		sp, err := ks.prompt(ctx, ref.Name)
		if err != nil {
			return nil, err
		}
		d, own.Name = sp.d, sp.key.Tool
	case "ref/resource":
		var err error
		if d, own.URI, err = ks.routeStarting(ctx, ref.URI); err != nil {
			return nil, routeError(err)
		}
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("cannot complete a reference of type %q", ref.Type)}
	}
	params := *req.Params
	params.Ref = &own
	var res *mcp.CompleteResult
	err := ks.toDownstream(ctx, d, req, &params, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.Complete(ctx, &params)
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
