package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/mcpid/mcpid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codeInvalidArguments is the gateway's own code for arguments that are
// not a JSON object, and for a call that the downstream server refused.
const (
	codeInvalidArguments mcpid.Code = "invalid_arguments"
	codeCallRefused      mcpid.Code = "call_refused"
)

// call is the handler of every tool the gateway serves. It looks the
// called name up in the current table ([toolname.Names.Resolve]) and sends
// the call, with the downstream's own tool name and the arguments as they
// came, to that server's session. The downstream's answer, tool errors
// included, goes back as it is; a failure on the way is a tool error whose
// JSON envelope is the text of content[] and structuredContent.
func (g *gateway) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	k, cs, err := g.route(name)
	switch {
	case errors.Is(err, errUnknownTool):
		return toolError(mcpid.NewError(mcpid.CodeNotFound,
			fmt.Sprintf("no tool is named %q", name), "list the tools again and call one by its listed name")), nil
	case err != nil:
		return toolError(mcpid.NewError(mcpid.CodeResourceUnavailable,
			fmt.Sprintf("the server behind %q is not available", name), "try again later, or use another tool")), nil
	}
	args, ok := arguments(req.Params.Arguments)
	if !ok {
		return toolError(mcpid.NewError(codeInvalidArguments,
			"the arguments are not a JSON object", "pass the arguments as one object that follows the tool's input schema")), nil
	}
	cctx, cancel := context.WithTimeout(ctx, g.cfg.timeout)
	defer cancel()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: k.Tool, Arguments: args})
	if err == nil {
		return res, nil
	}
	g.cfg.logger.Warn("gateway: call failed", "server", k.Server, "tool", k.Tool, "err", err)
	if werr := (*jsonrpc.Error)(nil); errors.As(err, &werr) {
		return toolError(mcpid.NewError(codeCallRefused,
			fmt.Sprintf("the server behind %q refused the call: %q", name, clip(werr.Message, maxRefusal)), "check the arguments against the tool's input schema")), nil
	}
	return toolError(mcpid.NewError(mcpid.CodeResourceUnavailable,
		fmt.Sprintf("the server behind %q did not answer", name), "try again later, or use another tool")), nil
}

// maxRefusal is how many bytes of a downstream's refusal the gateway
// quotes to the model: enough for a reason, too few for a downstream to
// fill the model's context with its own text.
const maxRefusal = 200

// clip returns s cut to at most n bytes at a UTF-8 boundary, marked with
// "…" when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// arguments returns the arguments to send on: nil for none, or the JSON
// object as it came. It reports false for any other JSON value.
func arguments(raw json.RawMessage) (any, bool) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil, true
	}
	if trimmed[0] != '{' || !json.Valid(trimmed) {
		return nil, false
	}
	return json.RawMessage(trimmed), true
}

// toolError returns the MCP tool error for e: IsError set, and the JSON
// envelope both as the text of content[] and as structuredContent.
func toolError(e *mcpid.Error) *mcp.CallToolResult {
	envelope, err := json.Marshal(e)
	if err != nil {
		envelope = []byte(`{"type":"adapter_error","code":"` + string(e.Code) + `"}`)
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: string(envelope)}},
		StructuredContent: json.RawMessage(envelope),
	}
}
