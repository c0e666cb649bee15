// Command minigateway is the smallest MCP gateway that gives every
// downstream tool one stable name: copy it to start a gateway of your own.
//
// It connects to MCP servers over stdio and serves all their tools on its
// own stdin and stdout, named by the mcpid library's toolname package: two
// servers' search tools are alpha__search and beta__search, a tool whose
// name no other has keeps it. The names live in a state file: after a
// restart, whatever order the servers start in, every tool has the name it
// had, and a name once given is never given to another tool.
//
//	go run -C examples ./minigateway -state names.json -server 'docs=docs-mcp --stdio'
//
// It relays tools alone (no prompts, resources, completion, logs,
// sampling or elicitation), lists them once, at start, and does not
// restart a server that dies; cmd/mcpid-gateway does (and relists on
// tools/list_changed, bounds calls by a timeout, relays prompts, resources
// and the rest of the server side, progress and logs, runs replicas,
// serves HTTP).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/toolname"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// downstream is a server to connect: its name, which qualifies its tools
// when they collide, and how to reach it.
type downstream struct {
	name      string
	transport mcp.Transport
}

func main() {
	state := flag.String("state", "names.json", "the `FILE` that keeps the names")
	var servers []downstream
	flag.Func("server", "a downstream server, `NAME=COMMAND ARG...` split at spaces; repeatable", func(v string) error {
		name, command, _ := strings.Cut(v, "=")
		argv := strings.Fields(command)
		if name == "" || len(argv) == 0 {
			return errors.New("want NAME=COMMAND ARG, with a non-empty NAME and COMMAND")
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stderr = os.Stderr
		servers = append(servers, downstream{name, &mcp.CommandTransport{Command: cmd}})
		return nil
	})
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// The guarded stdio transport answers a line the SDK cannot decode
	// with a JSON-RPC error instead of ending the session.
	if err := run(ctx, *state, servers, gosdk.NewStdioTransport(os.Stdin, os.Stdout)); err != nil {
		log.Fatal(err)
	}
}

// run serves the tools of servers on t, named in the file state, until
// the client leaves or ctx is done.
func run(ctx context.Context, state string, servers []downstream, t mcp.Transport) error {
	// The store holds the chain of names; the file is locked, one gateway a
	// time (replicas share a chain in toolname/redisstore or pgstore).
	store, err := toolname.NewFileStore(state)
	if err != nil {
		return err
	}
	defer store.Close()
	sessions := map[string]*mcp.ClientSession{}
	defer func() {
		for _, cs := range sessions {
			cs.Close()
		}
	}()
	tools, err := connect(ctx, servers, sessions)
	if err != nil {
		return err
	}

	// Update continues the chain with the keys listed now: a key named
	// before gets its name back, a new key a name never given, stored before
	// it is served. Portable names suit every model provider.
	names, _, err := toolname.Update(ctx, store, toolname.Portable, slices.Collect(maps.Keys(tools)))
	if err != nil {
		return err
	}

	// Serve each live tool under its name, with its own schemas.
	srv := mcp.NewServer(&mcp.Implementation{Name: "minigateway", Version: "v0.1.0"}, nil)
	call := route(names, sessions)
	served := map[string]bool{}
	for key, name := range names.All() {
		tool := *tools[key]
		tool.Name = name
		if err := addTool(srv, &tool, call); err != nil {
			log.Printf("tool %s of %s not served: %v", key.Tool, key.Server, err)
			continue
		}
		served[name] = true
	}
	// A call by a name not served goes to route too, not to the SDK's
	// "unknown tool": a downstream's own tool name finds its tool, and any
	// other name gets Route's error (with the names available for an ambiguous one).
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if c, ok := req.(*mcp.CallToolRequest); ok && c.Params != nil && !served[c.Params.Name] {
				return call(ctx, c)
			}
			return next(ctx, method, req)
		}
	})
	return srv.Run(ctx, t)
}

// connect connects to every server, records its session in sessions, and
// returns their tools by key (server and tool), what a name stands for.
func connect(ctx context.Context, servers []downstream, sessions map[string]*mcp.ClientSession) (map[toolname.Key]*mcp.Tool, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "minigateway", Version: "v0.1.0"}, nil)
	tools := map[toolname.Key]*mcp.Tool{}
	for _, d := range servers {
		cs, err := client.Connect(ctx, d.transport, nil)
		if err != nil {
			return nil, fmt.Errorf("server %s: %w", d.name, err)
		}
		sessions[d.name] = cs
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("server %s: %w", d.name, err)
			}
			tools[toolname.Key{Server: d.name, Tool: tool.Name}] = tool
		}
	}
	return tools, nil
}

// route returns the handler of every tool: Route finds the called name's
// key (a name is never parsed), and it calls that server's tool by its name.
func route(names *toolname.Table, sessions map[string]*mcp.ClientSession) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		key, err := names.Route(req.Params.Name)
		if err != nil {
			return toolError(routeError(err)), nil
		}
		res, err := sessions[key.Server].CallTool(ctx, &mcp.CallToolParams{Name: key.Tool, Arguments: req.Params.Arguments})
		if err != nil {
			log.Printf("calling %s of %s: %v", key.Tool, key.Server, err)
			return toolError(mcpid.NewError(mcpid.CodeResourceUnavailable,
				fmt.Sprintf("the server behind %q did not answer", req.Params.Name), "try again later")), nil
		}
		return res, nil // the server's answer as it is, its tool errors included
	}
}

// routeError is the tool error of a name Route refused, in its words:
// unknown_tool, or ambiguous_tool with the names to call instead.
func routeError(err error) *mcpid.Error {
	var terr *toolname.Error
	if !errors.As(err, &terr) {
		return mcpid.NewError(mcpid.CodeResourceUnavailable, "the tool table failed", "try again later")
	}
	hint := terr.Hint()
	if len(terr.Available) > 0 {
		hint += ": " + strings.Join(terr.Available, ", ")
	}
	e := mcpid.NewError(mcpid.Code(terr.Code), terr.Message(), hint)
	e.Input = terr.Input
	return e
}

// addTool adds t to srv. The SDK panics on a tool it cannot serve (say, a
// non-object input schema): for another server's tool, an error, not a crash.
func addTool(srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	srv.AddTool(t, h)
	return nil
}

// toolError is the tool error for e, the mcpid JSON envelope as its text,
// without structuredContent (a client checks it against the output schema).
func toolError(e *mcpid.Error) *mcp.CallToolResult {
	res := gosdk.ToolError(e)
	res.StructuredContent = nil
	return res
}
