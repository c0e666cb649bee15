// Command minigateway is the smallest MCP gateway that gives every
// downstream tool one stable name: copy it to start a gateway of your own.
//
// It connects to downstream MCP servers over stdio, names all their tools
// with the mcpid library's toolname package, and serves them on its own
// stdin and stdout. Two servers that both have a tool named search give
// alpha__search and beta__search, and a tool whose name is its own keeps
// it. The names live in a state file: a restart, or servers that start in
// another order, give every tool the name it had, and a name once given
// is never given to another tool.
//
//	go run -C examples ./minigateway -state names.json \
//	    -server 'docs=docs-mcp --stdio' -server 'tickets=tickets-mcp'
//
// It is a model, not a product: it lists the tools once, at start, and
// does not restart a server that dies. The full example, examples/gateway,
// does that and more (replicas on Redis or PostgreSQL, relists on
// tools/list_changed, calls bounded by a timeout, progress and logs
// relayed, HTTP).
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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/gosdk"
	"github.com/mcpid/mcpid/toolname"
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
	if err := run(ctx, *state, servers, &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

// run serves the tools of servers on t until the client leaves or ctx is
// done, with their names kept in the file at state.
func run(ctx context.Context, state string, servers []downstream, t mcp.Transport) error {
	// The store holds the chain of names. NewFileStore locks the file, so
	// that one gateway at a time writes it; a gateway with replicas uses
	// the Redis or PostgreSQL store instead (toolname/redisstore, pgstore).
	store, err := toolname.NewFileStore(state)
	if err != nil {
		return err
	}
	defer store.Close()

	// Connect to every server and list its tools, keyed by server and
	// tool: the key is what a name stands for.
	client := mcp.NewClient(&mcp.Implementation{Name: "minigateway", Version: "v0.1.0"}, nil)
	sessions := map[string]*mcp.ClientSession{}
	tools := map[toolname.Key]*mcp.Tool{}
	for _, d := range servers {
		cs, err := client.Connect(ctx, d.transport, nil)
		if err != nil {
			return fmt.Errorf("server %s: %w", d.name, err)
		}
		defer cs.Close()
		sessions[d.name] = cs
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return fmt.Errorf("server %s: %w", d.name, err)
			}
			tools[toolname.Key{Server: d.name, Tool: tool.Name}] = tool
		}
	}

	// Update continues the chain in the store with the keys listed now:
	// a key the chain named before gets that name back, a new key gets a
	// name no key ever had, and that name is stored before Update returns
	// it, so nothing is served that a restart could give another tool.
	// Portable names suit every model provider; pick yours with
	// toolname.OpenAI, toolname.Anthropic and the like.
	names, _, err := toolname.Update(ctx, store, toolname.Portable, slices.Collect(maps.Keys(tools)))
	if err != nil {
		return err
	}

	// Every call goes through one handler, which finds the key of the
	// called name with Lookup and calls that server's tool by its own
	// name. A name is never parsed: the table says what it stands for.
	call := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		key, err := names.Lookup(req.Params.Name)
		if err != nil {
			return toolError(mcpid.NewError(mcpid.CodeNotFound,
				fmt.Sprintf("no tool is named %q", req.Params.Name), "list the tools and call one by its listed name")), nil
		}
		res, err := sessions[key.Server].CallTool(ctx, &mcp.CallToolParams{Name: key.Tool, Arguments: req.Params.Arguments})
		if err != nil {
			log.Printf("calling %s of %s: %v", key.Tool, key.Server, err)
			return toolError(mcpid.NewError(mcpid.CodeResourceUnavailable,
				fmt.Sprintf("the server behind %q did not answer", req.Params.Name), "try again later")), nil
		}
		return res, nil // the server's answer as it is, its tool errors included
	}

	// Serve each live tool under its name, with its own description and
	// schemas.
	srv := mcp.NewServer(&mcp.Implementation{Name: "minigateway", Version: "v0.1.0"}, nil)
	for key, name := range names.All() {
		served := *tools[key]
		served.Name = name
		if err := addTool(srv, &served, call); err != nil {
			log.Printf("tool %s of %s not served: %v", key.Tool, key.Server, err)
		}
	}
	return srv.Run(ctx, t)
}

// addTool adds t to srv. The SDK panics on a tool it cannot serve (an
// input schema that is not an object schema, say); the tools come from
// other servers, so here that is an error, never a crash.
func addTool(srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	srv.AddTool(t, h)
	return nil
}

// toolError is the tool error for e: the mcpid JSON envelope as its text.
// It leaves out structuredContent, which a client would check against the
// output schema that the called tool may declare.
func toolError(e *mcpid.Error) *mcp.CallToolResult {
	res := gosdk.ToolError(e)
	res.StructuredContent = nil
	return res
}
