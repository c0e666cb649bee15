package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/naming"
	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/searchfetch"
	"github.com/mcpid/mcpid/toolname"
)

// This file is one tools/call, from its arrival to its answer: the
// receiving middleware (byToolName) routes a name the served table does
// not hold (a starting replica's wait, the store's lookup, the route
// guard), call handles a served name, and forward sends it to the
// downstream through relayTo (relay.go) and logs it. The SDK's server
// calls byToolName, then call, for every tools/call.

// The gateway's own error codes, beside mcpid's resource_unavailable and
// not_found and searchfetch's invalid_arguments.
const (
	// codeCallRefused: the downstream answered the call with a JSON-RPC
	// error instead of a result.
	codeCallRefused mcpid.Code = "call_refused"
	// codeAmbiguousTool: a call by a downstream's own tool name, which
	// several servers have. It is toolname's code, as an mcpid.Code.
	codeAmbiguousTool = mcpid.Code(toolname.CodeAmbiguousTool)
	// codeUnknownTool: a call to a name that routes to no tool. It is
	// toolname's code, as an mcpid.Code.
	codeUnknownTool = mcpid.Code(toolname.CodeUnknownTool)
)

// The outcomes of a relayed call that are not an error code: the
// downstream answered with a result, or with a tool error of its own. A
// call that failed on the way has the code of the gateway's envelope as
// its outcome (resource_unavailable, call_refused, invalid_arguments).
const (
	outcomeOK        = "ok"
	outcomeToolError = "tool_error"
)

// logCall logs one line for a relayed call: the downstream, the tool's own
// name there, the name it was called by, the outcome and the duration. A
// call that failed on the way (the downstream is down, did not answer
// within the timeout, or refused the call) is a warning with its error;
// any other is info, so that -log-level warn keeps only the failures.
func (g *gateway) logCall(st servedTool, name, outcome string, d time.Duration, err error) {
	level, attrs := slog.LevelInfo, []slog.Attr{
		slog.String("server", st.key.Server),
		slog.String("tool", st.key.Tool),
		slog.String("name", name),
		slog.String("outcome", outcome),
		slog.Duration("duration", d),
	}
	if err != nil {
		level, attrs = slog.LevelWarn, append(attrs, slog.Any("err", err))
	}
	g.cfg.logger.LogAttrs(context.Background(), level, "gateway: call", attrs...)
	g.observe(st, name, outcome, d, err)
}

// call is the handler of every tool the gateway serves. It looks the
// called name up in the served table and sends the call, with the
// downstream's own tool name and the arguments as they came, to that
// server's session, bounded by the gateway's timeout whatever the server
// does. The downstream's answer, tool errors included, goes back as it
// is, and so do the progress notifications and log messages it sends
// meanwhile. A failure on the way is a tool error with the JSON envelope.
func (g *gateway) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name := req.Params.Name
	st, ok := g.table.Load().tools[name]
	if !ok {
		g.observeUnrouted(name, time.Now())
		return toolError(nil, mcpid.NewError(mcpid.CodeNotFound,
			fmt.Sprintf("no tool is named %q", name), "list the tools again and call one by its listed name")), nil
	}
	return g.forward(ctx, req, st), nil
}

// forward sends the call req to the tool st, and returns its answer. It
// logs one line per call (see logCall).
func (g *gateway) forward(ctx context.Context, req *mcp.CallToolRequest, st servedTool) *mcp.CallToolResult {
	name := req.Params.Name
	began := time.Now()
	outcome, failure := outcomeOK, error(nil)
	defer func() { g.logCall(st, name, outcome, time.Since(began), failure) }()
	args, ok := arguments(req.Params.Arguments)
	if !ok {
		outcome = string(searchfetch.CodeInvalidArguments)
		return toolError(st.tool, mcpid.NewError(searchfetch.CodeInvalidArguments,
			"the arguments are not a JSON object", "pass the arguments as one object that follows the tool's input schema"))
	}
	cs := st.d.Session()
	if cs == nil {
		outcome, failure = string(mcpid.CodeResourceUnavailable), fmt.Errorf("the server %q is not connected", st.d.Name)
		return toolError(st.tool, unavailable(name))
	}
	params := &mcp.CallToolParams{Name: st.key.Tool, Arguments: args,
		InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState}
	var res *mcp.CallToolResult
	err := g.relayTo(ctx, st.d, cs, req, params, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.CallTool(ctx, params)
		return err
	})
	werr := (*jsonrpc.Error)(nil)
	if !undelivered(err) {
		errors.As(err, &werr)
	}
	if err == nil {
		if res.IsError {
			outcome = outcomeToolError
		}
		g.rewriteContent(st.d, res.Content)
		return res
	}
	failure = err
	if werr != nil {
		outcome = string(codeCallRefused)
		return toolError(st.tool, mcpid.NewError(codeCallRefused,
			fmt.Sprintf("the server behind %q refused the call: %q", name, clip(werr.Message, maxRefusal)), "check the arguments against the tool's input schema"))
	}
	outcome = string(mcpid.CodeResourceUnavailable)
	return toolError(st.tool, unavailable(name))
}

func unavailable(name string) *mcpid.Error {
	return mcpid.NewError(mcpid.CodeResourceUnavailable,
		fmt.Sprintf("the server behind %q is not available", name), "try again later, or use another tool")
}

// byToolName is the gateway's receiving middleware. A tools/call whose name
// the gateway does not serve yet, while it starts, waits for it (see
// startToolCall); one it does not serve is looked up in the store (see route): another
// replica may have named a tool this one has not relisted yet, and MCP Apps
// and prompts call a downstream's tools by their own bare names, which the
// gateway may have qualified ([toolname.Table.Route]). A name that leads
// to a tool this replica lists is routed to it; a bare name that several
// tools have is an ambiguous_tool error naming them; any other is an
// unknown_tool error, a tool error a model can read and act on, on every
// protocol version (with -unknown-tool error, left to the SDK, which
// answers the JSON-RPC error -32602).
func (g *gateway) byToolName(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || method != "tools/call" || call.Params == nil {
			return next(ctx, method, req)
		}
		if _, ok := g.table.Load().tools[call.Params.Name]; ok {
			return next(ctx, method, req)
		}
		// The lookup, a starting replica's wait and the call share one
		// deadline: the whole call fits -timeout.
		ctx, cancel := context.WithTimeout(ctx, g.cfg.timeout)
		defer cancel()
		// A starting replica answers a name it is about to serve once it
		// serves it, or as unavailable (see startToolCall).
		began := time.Now()
		k, unready, err := g.startToolCall(ctx, call.Params.Name)
		if unready {
			g.logCall(servedTool{key: k}, call.Params.Name, string(mcpid.CodeResourceUnavailable), time.Since(began),
				errors.New("the server has not listed its tools since the gateway started"))
			return toolError(nil, unavailable(call.Params.Name)), nil
		}
		if _, ok := g.table.Load().tools[call.Params.Name]; ok {
			return next(ctx, method, req)
		}
		var st servedTool
		if err == nil {
			st, err = g.route(call.Params.Name, k)
		}
		var terr *toolname.Error
		if err != nil {
			g.observeUnrouted(call.Params.Name, began)
		}
		switch {
		case err == nil:
			return g.forward(ctx, call, st), nil
		case errors.As(err, &terr) && terr.Code == toolname.CodeAmbiguousTool:
			return toolError(nil, mcpid.NewError(codeAmbiguousTool,
				fmt.Sprintf("%d tools are named %q", len(terr.Available), call.Params.Name),
				"call one of them by its listed name: "+clip(strings.Join(terr.Available, ", "), maxRefusal))), nil
		case g.cfg.unknownToolError:
			return next(ctx, method, req)
		}
		return toolError(nil, mcpid.NewError(codeUnknownTool,
			fmt.Sprintf("no tool is named %q", clip(call.Params.Name, maxRefusal)), "list the tools again and call one by its listed name")), nil
	}
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

// toolError returns the tool error for e, with its JSON envelope as the
// text and, for a tool that declares no output schema (or none: t nil),
// as structuredContent too. A client validates the structuredContent of
// a tool with an output schema against it, errors included, and throws
// on the envelope; the text alone is what such a tool's error may carry.
func toolError(t *mcp.Tool, e *mcpid.Error) *mcp.CallToolResult {
	res := gosdk.ToolError(e)
	if t != nil && t.OutputSchema != nil {
		res.StructuredContent = nil
	}
	return res
}

// route returns the tool of the key k that the store's table gives a
// called name this replica does not serve (see storedKey, which looks it
// up), only when this replica lists that very key; otherwise the name is
// unknown here.
func (g *gateway) route(name string, k toolname.Key) (servedTool, error) {
	live, _ := g.liveTools()
	st, ok := live[k]
	if !ok {
		return servedTool{}, g.tools.NotHere(name)
	}
	return st, nil
}

// startToolCall waits, for a called name this replica does not serve,
// while the start lasts: when the stored table gives the name to a tool
// of one of this replica's downstreams, until that downstream's first
// listing is served; when no table is stored yet, for the chain's first
// round. It returns the key the stored table gives the name (see
// storedKey; the zero Key while none is stored, or served now), and
// reports whether the name is, after the wait, one the replica is about
// to serve but cannot route yet: resource_unavailable. The error is the
// lookup's: the name routes nowhere, or to several tools.
func (g *gateway) startToolCall(ctx context.Context, name string) (k toolname.Key, unready bool, err error) {
	t := g.table.Load()
	if t.names == nil {
		g.awaitStart(ctx, g.ready)
		t = g.table.Load()
		if _, ok := t.tools[name]; ok {
			return toolname.Key{}, false, nil
		}
		if t.names == nil {
			return toolname.Key{}, true, nil
		}
	}
	if k, err = g.storedKey(ctx, g.tools, t.names, name); err != nil {
		return toolname.Key{}, false, err
	}
	d := g.heldBy(k)
	if d == nil {
		return k, false, nil
	}
	return k, !g.awaitStart(ctx, d.ToolsServed.Done()), nil
}

// storedKey returns the key that the stored table of chain c gives name,
// or the lookup's error (the name routes nowhere, or to several). served is the table this replica
// serves its names from, whose live keys are the ones it lists: the key
// of a downstream that has not listed yet is retired there, so a name it
// does not hold is looked up in the store (see naming.Chain.Lookup: within a
// second, a miss remembered), which holds every replica's.
func (g *gateway) storedKey(ctx context.Context, c *naming.Chain, served *toolname.Table, name string) (toolname.Key, error) {
	if k, ok := served.Key(name); ok {
		return k, nil
	}
	return c.Lookup(ctx, name, g.cfg.timeout)
}
