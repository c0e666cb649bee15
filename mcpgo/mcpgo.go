// Package mcpgo serves mcpid's search and fetch tools on a server of
// github.com/mark3labs/mcp-go. The tools themselves, their schemas, ids,
// previews and error envelopes, are [searchfetch]'s; this package only
// registers them and turns each [searchfetch.Result] into an
// [mcp.CallToolResult].
//
// The handlers read the call's arguments as the client sent them
// (CallToolParams.RawArguments), so that searchfetch checks them exactly;
// arguments built in process without raw bytes are encoded to JSON first.
// Every failure is a result with IsError set, one text item and
// structuredContent, both the envelope; the handlers never return a Go
// error, which mcp-go would turn into a JSON-RPC error without the envelope.
package mcpgo

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpid/mcpid/searchfetch"
)

// Register adds the search and fetch tools over b to s, configured by opts
// (nil means the defaults; see [searchfetch.Options]). It replaces tools of
// the same names. It panics if b is nil.
func Register(s *server.MCPServer, b searchfetch.Backend, opts *searchfetch.Options) {
	tools := searchfetch.New(b, opts)
	s.AddTools(
		server.ServerTool{Tool: tool(tools.SearchTool()), Handler: handler(tools.Search)},
		server.ServerTool{Tool: tool(tools.FetchTool()), Handler: handler(tools.Fetch)},
	)
}

// ToolError returns the tool error for err: IsError set, and the JSON
// envelope as the one text item and as structuredContent, as
// [searchfetch.ErrorResult] builds it. A server's own tools return it, with
// a nil error, to fail the way the search and fetch tools do.
func ToolError(err error) *mcp.CallToolResult {
	return result(searchfetch.ErrorResult(err))
}

// tool returns the mcp-go form of t.
func tool(t searchfetch.Tool) mcp.Tool {
	readOnly := t.ReadOnly
	return mcp.Tool{
		Name:           t.Name,
		Description:    t.Description,
		RawInputSchema: t.InputSchema,
		Annotations:    mcp.ToolAnnotation{ReadOnlyHint: &readOnly},
	}
}

// handler returns the mcp-go handler of a searchfetch tool.
func handler(call func(context.Context, json.RawMessage) searchfetch.Result) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result(call(ctx, arguments(req.Params))), nil
	}
}

// unencodable stands for arguments that cannot be encoded to JSON;
// searchfetch answers that they are not a JSON object.
var unencodable = json.RawMessage(`"unencodable arguments"`)

// arguments returns the call's arguments as JSON: the bytes the client sent
// when mcp-go kept them, and otherwise the encoding of Arguments.
func arguments(p mcp.CallToolParams) json.RawMessage {
	switch {
	case len(p.RawArguments) > 0:
		return p.RawArguments
	case p.Arguments == nil:
		return nil
	}
	if raw, ok := p.Arguments.(json.RawMessage); ok {
		return raw
	}
	raw, err := json.Marshal(p.Arguments)
	if err != nil {
		return unencodable
	}
	return raw
}

// result returns the mcp-go form of r.
func result(r searchfetch.Result) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(r.Text)},
		StructuredContent: r.StructuredContent,
		IsError:           r.IsError,
	}
}
