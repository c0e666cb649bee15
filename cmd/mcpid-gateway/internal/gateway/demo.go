package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/toolname"
)

// demoServers is the in-process demo set: two servers that both offer a
// tool named search.
func demoServers() []downstreamSpec {
	return []downstreamSpec{
		inProcessServer("alpha", "search", "fetch"),
		inProcessServer("beta", "search", "create_issue"),
	}
}

// inProcessServer returns a downstream MCP server in this process whose
// tools answer with their server, tool and arguments.
func inProcessServer(name string, tools ...string) downstreamSpec {
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "v0.1.0"}, nil)
	for _, tool := range tools {
		addEchoTool(srv, name, tool)
	}
	return downstreamSpec{name: name, transport: inProcess{srv}}
}

// echoInput is the argument object of a demo tool.
type echoInput struct {
	Query string `json:"query,omitempty" jsonschema:"what to look for"`
}

// addEchoTool adds to srv a tool that says who answered.
func addEchoTool(srv *mcp.Server, server, tool string) {
	mcp.AddTool(srv, &mcp.Tool{Name: tool, Description: server + "'s " + tool}, func(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
		text := fmt.Sprintf("%s answered %s(query=%q)", server, tool, in.Query)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
}

// inProcess is a transport to an MCP server in this process: each Connect
// starts a new session of the server over in-memory pipes.
type inProcess struct {
	srv *mcp.Server
}

func (t inProcess) Connect(ctx context.Context) (mcp.Connection, error) {
	client, server := mcp.NewInMemoryTransports()
	// The server session lives as long as the connection, not ctx.
	if _, err := t.srv.Connect(context.Background(), server, nil); err != nil {
		return nil, err
	}
	return client.Connect(ctx)
}

// runDemo runs the demo on the in-process servers and prints what a
// client of the gateway sees: the names, a routed call, a server joining
// without renaming anyone, and a restart from the saved table.
func runDemo(ctx context.Context, o *options, stdout io.Writer) error {
	if o.state == "" {
		dir, err := os.MkdirTemp("", "gateway-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.state = filepath.Join(dir, "names.json")
	}
	after, err := demoFirstRun(ctx, o, stdout)
	if err != nil {
		return err
	}
	return demoRestart(ctx, o, after, stdout)
}

// demoFirstRun starts a gateway on the demo servers, shows the names and a
// routed call, has gamma join, and returns the names the client sees then.
func demoFirstRun(ctx context.Context, o *options, stdout io.Writer) ([]string, error) {
	g, cs, closeAll, err := demoGateway(ctx, o, demoServers())
	if err != nil {
		return nil, err
	}
	defer closeAll()
	before, err := listNames(ctx, cs)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(stdout, "alpha and beta both offer search; the client sees:")
	printNames(stdout, g, before, nil)

	fmt.Fprintln(stdout, "\nThe model calls beta__search; the gateway resolves the name and routes it:")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "beta__search", Arguments: map[string]any{"query": "q3 report"}})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "  %s\n", resultText(res))

	if err := g.join(ctx, inProcessServer("gamma", "search", "list_repos")); err != nil {
		return nil, err
	}
	after, err := listNames(ctx, cs)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(stdout, "\ngamma joins with search and list_repos; no tool is renamed:")
	printNames(stdout, g, after, before)
	fmt.Fprintf(stdout, "  renamed: %d\n", renamed(before, after))
	return after, nil
}

// demoRestart starts a new gateway from the stored table, the servers
// started in another order, and shows that the names are the same.
func demoRestart(ctx context.Context, o *options, before []string, stdout io.Writer) error {
	servers := append(demoServers(), inProcessServer("gamma", "search", "list_repos"))
	slices.Reverse(servers)
	_, cs, closeAll, err := demoGateway(ctx, o, servers)
	if err != nil {
		return err
	}
	defer closeAll()
	restarted, err := listNames(ctx, cs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nThe gateway restarts from %s: same names: %v\n", filepath.Base(o.state), slices.Equal(before, restarted))
	if strings.Contains(o.state, "://") {
		return nil
	}
	data, err := os.ReadFile(o.state)
	if err != nil {
		return err
	}
	var table struct{ Names []json.RawMessage }
	if err := json.Unmarshal(data, &table); err != nil {
		return errors.New("the saved table is not JSON")
	}
	fmt.Fprintf(stdout, "  %d names saved in %d bytes\n", len(table.Names), len(data))
	return nil
}

// demoGateway opens the store, starts a gateway on servers and connects
// a client to it; closeAll closes all three.
func demoGateway(ctx context.Context, o *options, servers []downstreamSpec) (g *gateway, cs *mcp.ClientSession, closeAll func(), err error) {
	store, closeStore, err := chainstore.Open(ctx, o.state, o.chain)
	if err != nil {
		return nil, nil, nil, err
	}
	cfg := o.cfg
	cfg.store = store
	if g, err = newGateway(cfg); err == nil {
		if err = g.start(ctx, servers); err == nil {
			cs, err = mcp.NewClient(&mcp.Implementation{Name: "demo-client", Version: "v0.1.0"}, nil).Connect(ctx, inProcess{g.srv}, nil)
		}
		if err != nil {
			g.close()
		}
	}
	if err != nil {
		closeStore()
		return nil, nil, nil, err
	}
	return g, cs, func() { _ = cs.Close(); g.close(); closeStore() }, nil
}

// listNames returns the names of the tools the client sees, sorted.
func listNames(ctx context.Context, cs *mcp.ClientSession) ([]string, error) {
	var names []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names, nil
}

// printNames prints each name with the server and tool it routes to, and
// marks the names that were not in before.
func printNames(w io.Writer, g *gateway, names, before []string) {
	for _, name := range names {
		k := g.table.Load().tools[name].key
		mark := ""
		if before != nil && !slices.Contains(before, name) {
			mark = "  (new)"
		}
		fmt.Fprintf(w, "  %-16s -> %s%s\n", name, toolname.Join(k.Server, k.Tool), mark)
	}
}

// renamed counts the names of before that are gone from after.
func renamed(before, after []string) int {
	n := 0
	for _, name := range before {
		if !slices.Contains(after, name) {
			n++
		}
	}
	return n
}

// resultText returns the text of a tool result.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}
