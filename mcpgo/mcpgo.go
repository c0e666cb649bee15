// Package mcpgo serves mcpid's search and fetch tools on a server of
// github.com/mark3labs/mcp-go. The tools themselves, their schemas, ids,
// previews and error envelopes, are [searchfetch]'s. This package only
// registers them and turns each [searchfetch.Result] into an
// [mcp.CallToolResult].
//
// The handlers read the call's arguments as the client sent them
// (CallToolParams.RawArguments), so that searchfetch checks them exactly.
// Arguments built in process without raw bytes are encoded to JSON first.
// Every failure is a result with IsError set, one text item and
// structuredContent, both the envelope. The handlers never return a Go
// error, which mcp-go would turn into a JSON-RPC error without the envelope.
//
// Serve on stdio with [ServeStdio], which bounds each line and answers
// every malformed one. Serve on streamable HTTP with [NewHTTPHandler]. It
// bounds sessions and bodies, can keep no session (for replicas), and
// verifies the caller that the tools' authorization sees.
//
// The package builds on every mcp-go from v0.46.0, the version its go.mod
// requires, to the newest. So adopting it moves no server's mcp-go up.
// Every security rule holds on each: the caller's session binding, Verify,
// the bounds on sessions and bodies, the stdio guard. Before v1.0.0 mcp-go
// keeps no raw arguments, only the map it decoded them into. The tools
// check that map encoded again, so two checks that need the bytes as sent
// do not hold there:
//   - an argument given twice is read as the last one, not refused;
//   - an offset that only float64 rounding makes whole
//     (1.0000000000000001) is read as that whole number.
package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpid/mcpid/searchfetch"
)

// Register adds the search and fetch tools over b to s, configured by opts
// (nil means the defaults; see [searchfetch.Options]): it is
// AddTools(s, searchfetch.New(b, opts)), after checking opts. It returns
// an error, and registers nothing, when the options are not valid
// ([searchfetch.Options.Validate]) or s already has a tool of either name.
// It panics if b is nil.
func Register(s *server.MCPServer, b searchfetch.Backend, opts *searchfetch.Options) error {
	if err := opts.Validate(); err != nil {
		return err
	}
	return AddTools(s, searchfetch.New(b, opts))
}

// AddTools adds the search and fetch tools of t to s, so that the server
// holds t for its own tools ([searchfetch.Tools.Resolve]). It returns an
// error, and registers nothing, when t is nil or s already has a tool of
// either name.
func AddTools(s *server.MCPServer, t *searchfetch.Tools) error {
	if t == nil {
		return errors.New("mcpgo: AddTools with nil Tools")
	}
	search, fetch := t.SearchTool(), t.FetchTool()
	for _, name := range []string{search.Name, fetch.Name} {
		if s.GetTool(name) != nil {
			return fmt.Errorf("mcpgo: the server already has a tool named %q", name)
		}
	}
	s.AddTools(
		server.ServerTool{Tool: tool(search), Handler: handler(t.Search)},
		server.ServerTool{Tool: tool(fetch), Handler: handler(t.Fetch)},
	)
	return nil
}

// CallerContext returns the context in which a server's own tool handler
// asks [searchfetch.Tools.Resolve], with the verified caller the search
// and fetch tools see. On mcp-go a tool call's context inherits that of
// its HTTP request, where [NewHTTPHandler]'s Verify put the caller, so it
// is ctx itself; calling it keeps a handler the same on both adapters.
func CallerContext(ctx context.Context) context.Context { return ctx }

// ToolError returns the tool error for err: IsError set, and the JSON
// envelope as the one text item and as structuredContent, as
// [searchfetch.ErrorResult] builds it. A server's own tools return it, with
// a nil error, to fail the way the search and fetch tools do.
func ToolError(err error) *mcp.CallToolResult {
	return result(searchfetch.ErrorResult(err))
}

// tool returns the mcp-go form of t, with all four annotations on the
// wire, false values included.
func tool(t searchfetch.Tool) mcp.Tool {
	return mcp.Tool{
		Name:            t.Name,
		Description:     t.Description,
		RawInputSchema:  t.InputSchema,
		RawOutputSchema: t.OutputSchema,
		Annotations: mcp.ToolAnnotation{
			ReadOnlyHint:    &t.ReadOnly,
			DestructiveHint: &t.Destructive,
			IdempotentHint:  &t.Idempotent,
			OpenWorldHint:   &t.OpenWorld,
		},
	}
}

// handler returns the mcp-go handler of a searchfetch tool.
func handler(call func(context.Context, json.RawMessage) searchfetch.Result) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result(call(ctx, arguments(req))), nil
	}
}

// unencodable stands for arguments that cannot be encoded to JSON;
// searchfetch answers that they are not a JSON object.
var unencodable = json.RawMessage(`"unencodable arguments"`)

// arguments returns the call's arguments as JSON: the bytes the client sent
// when mcp-go kept them (CallToolParams.RawArguments, v1.0.0 on, which
// GetRawArguments returns), and otherwise the encoding of Arguments, the
// value mcp-go decoded (before v1.0.0, where a duplicate member is lost).
func arguments(req mcp.CallToolRequest) json.RawMessage {
	args := req.GetRawArguments()
	switch a := args.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return a
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return unencodable
	}
	return raw
}

// result returns the mcp-go form of r.
func result(r searchfetch.Result) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(r.Text)}, IsError: r.IsError}
	if r.StructuredContent != nil {
		res.StructuredContent = r.StructuredContent
	}
	return res
}
