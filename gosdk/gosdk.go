// Package gosdk serves mcpid's search and fetch tools on a server of the
// official MCP Go SDK, github.com/modelcontextprotocol/go-sdk. The tools
// themselves, their schemas, ids, previews and error envelopes, are
// [searchfetch]'s. This package only registers them and turns each
// [searchfetch.Result] into an [mcp.CallToolResult].
//
// The tools are added with [mcp.Server.AddTool], the SDK's raw form. The
// typed [mcp.AddTool] would validate the arguments against the schema with
// its own error text. It also replaces the result of a handler that returns
// an error, which would lose the error envelope. Here every failure is a
// result with IsError set, one text item and structuredContent, both the
// envelope. The error behind it is recorded with
// [mcp.CallToolResult.SetError] for the server's middleware, where the SDK
// has it.
//
// Serve on stdio with [NewStdioTransport] rather than the SDK's own
// transports, which end the session on the first line they cannot decode.
// Serve on streamable HTTP with [NewHTTPHandler]. It bounds sessions and
// bodies, can keep no session (for replicas), and verifies the caller that
// the tools' authorization sees.
//
// The package builds on every go-sdk from v1.2.0, the version its go.mod
// requires, to the newest. So adopting it moves no server's SDK up.
// Every security rule holds on each: sessions bound to the caller's
// UserID, Verify, the bounds on sessions and bodies, the stdio guard. Two
// conveniences of later SDKs do not:
//   - before v1.3.0 the error behind a tool error is not recorded for
//     middleware (CallToolResult has no SetError), only IsError is set;
//   - before v1.7.0 a caller that Verify returns without an Expiration
//     reaches a server's own handlers with the TokenInfo Expiration
//     9999-12-31T23:59:59Z. The SDK's bearer-token middleware refuses a
//     TokenInfo without one. The tools' caller has none.
package gosdk

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpid/mcpid/searchfetch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Register adds the search and fetch tools over b to s, configured by opts
// (nil means the defaults; see [searchfetch.Options]): it is
// AddTools(s, searchfetch.New(b, opts)), after checking opts. It returns
// the error of [searchfetch.Options.Validate], and registers nothing,
// when the options are not valid. It panics if b is nil.
func Register(s *mcp.Server, b searchfetch.Backend, opts *searchfetch.Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	return AddTools(s, searchfetch.New(b, opts))
}

// AddTools adds the search and fetch tools of t to s, so that the server
// holds t for its own tools ([searchfetch.Tools.Resolve]). The go-sdk
// gives no way to see a server's tools, so AddTools cannot tell whether s
// already has a tool of either name: it replaces it, as
// [mcp.Server.AddTool] does. It returns an error for a nil t.
func AddTools(s *mcp.Server, t *searchfetch.Tools) error {
	if t == nil {
		return errors.New("gosdk: AddTools with nil Tools")
	}
	s.AddTool(tool(t.SearchTool()), handler(t.Search))
	s.AddTool(tool(t.FetchTool()), handler(t.Fetch))
	return nil
}

// CallerContext returns ctx with the verified caller of req, as the
// search and fetch tools see it ([searchfetch.CallerFrom]): the go-sdk's
// auth.TokenInfo of the call (from its bearer-token middleware, or
// [HTTPOptions.Verify]). A server's own handler passes it to
// [searchfetch.Tools.Resolve], so that the authorizer sees the same
// caller. Without one (stdio), it returns ctx.
func CallerContext(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		return searchfetch.WithCaller(ctx, callerOf(req.Extra.TokenInfo))
	}
	return ctx
}

// ToolError returns the tool error for err: IsError set, and the JSON
// envelope as the one text item and as structuredContent, as
// [searchfetch.ErrorResult] builds it. A server's own tools return it, with
// a nil error, to fail the way the search and fetch tools do.
func ToolError(err error) *mcp.CallToolResult {
	return result(searchfetch.ErrorResult(err))
}

// tool returns the go-sdk form of t, with all four annotations on the
// wire, false values included.
func tool(t searchfetch.Tool) *mcp.Tool {
	mt := &mcp.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    t.ReadOnly,
			DestructiveHint: &t.Destructive,
			IdempotentHint:  t.Idempotent,
			OpenWorldHint:   &t.OpenWorld,
		},
	}
	if t.OutputSchema != nil {
		mt.OutputSchema = t.OutputSchema
	}
	return mt
}

// handler returns the raw go-sdk handler of a searchfetch tool. The
// caller that the SDK verified (the TokenInfo of its bearer-token
// middleware, or of [HTTPOptions.Verify]) goes into the call's context as
// a [searchfetch.Caller].
func handler(call func(context.Context, json.RawMessage) searchfetch.Result) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req != nil && req.Params != nil {
			args = req.Params.Arguments
		}
		return result(call(CallerContext(ctx, req), args)), nil
	}
}

// result returns the go-sdk form of r.
func result(r searchfetch.Result) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	if r.IsError {
		setError(res, r.Err)
	}
	res.Content = []mcp.Content{&mcp.TextContent{Text: r.Text}}
	if r.StructuredContent != nil {
		res.StructuredContent = r.StructuredContent
	}
	return res
}
