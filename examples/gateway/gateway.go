package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/mcpid/mcpid/toolname"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// config is what the gateway is told on its command line, or by a test.
type config struct {
	profile    toolname.Profile
	qualifyAll bool
	statePath  string        // "" keeps the table in memory only
	timeout    time.Duration // bound on starting a downstream, listing its tools, and each call
	logger     *slog.Logger
}

// gateway serves the tools of its downstream servers on one MCP server,
// under the names of a toolname table that it continues with WithPrevious
// on every change, and routes each call by looking the name up.
type gateway struct {
	cfg config
	srv *mcp.Server

	// refresh serializes the work that reads a downstream's tool list
	// and re-assigns the table, so that tables follow one another.
	refresh sync.Mutex

	mu          sync.Mutex
	started     bool // the first table was built; every change re-assigns
	closing     bool // close was called: sessions end on purpose
	downstreams map[string]*downstream
	names       *toolname.Names
	served      []string // names currently on srv
}

// newGateway returns a gateway with no downstream servers yet. It loads the
// table saved at cfg.statePath, if the file exists; a file that is not a
// table is an error, never a reason to start a new chain.
func newGateway(cfg config) (*gateway, error) {
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	if cfg.timeout <= 0 {
		cfg.timeout = 30 * time.Second
	}
	prev, err := loadState(cfg.statePath)
	if err != nil {
		return nil, err
	}
	g := &gateway{
		cfg:         cfg,
		downstreams: map[string]*downstream{},
		names:       prev,
	}
	g.srv = mcp.NewServer(&mcp.Implementation{Name: "mcpid-gateway", Version: "v0.1.0"}, &mcp.ServerOptions{
		Logger: cfg.logger,
		// The gateway has no tools of its own, but announces changes
		// to the tools it relays.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	return g, nil
}

// start connects to every downstream server at once, then builds the first
// table from all their tools together, so that the names do not depend on
// which server answered first, and saves it. A downstream that fails to
// start is logged and left without tools; the gateway serves the others.
func (g *gateway) start(ctx context.Context, ds []downstreamSpec) error {
	var wg sync.WaitGroup
	for _, spec := range ds {
		d := g.addDownstream(spec.name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := g.connect(ctx, d, spec.transport); err != nil {
				g.cfg.logger.Warn("gateway: downstream unavailable", "server", d.name, "err", err)
			}
		}()
	}
	wg.Wait()
	g.refresh.Lock()
	defer g.refresh.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.started = true
	return g.reassign()
}

// join connects one more downstream server while the gateway runs; its
// tools get new names, and no other tool is renamed.
func (g *gateway) join(ctx context.Context, spec downstreamSpec) error {
	g.mu.Lock()
	_, dup := g.downstreams[spec.name]
	g.mu.Unlock()
	if dup {
		return fmt.Errorf("a server named %q is already connected", spec.name)
	}
	return g.connect(ctx, g.addDownstream(spec.name), spec.transport)
}

func (g *gateway) addDownstream(name string) *downstream {
	d := &downstream{name: name, changed: make(chan struct{}, 1)}
	g.mu.Lock()
	g.downstreams[name] = d
	g.mu.Unlock()
	return d
}

// close ends every downstream session.
func (g *gateway) close() {
	g.mu.Lock()
	g.closing = true
	var sessions []*mcp.ClientSession
	for _, d := range g.downstreams {
		if d.session != nil {
			sessions = append(sessions, d.session)
		}
	}
	g.mu.Unlock()
	for _, cs := range sessions {
		_ = cs.Close()
	}
}

// update replaces d's tools with tools and, once the gateway has started,
// re-assigns the table. Once close has been called it does nothing: a
// relisting still under way must not save a table over the state file
// that the next gateway may already be using.
func (g *gateway) update(d *downstream, tools []*mcp.Tool) error {
	g.refresh.Lock()
	defer g.refresh.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing {
		return nil
	}
	d.tools = tools
	if !g.started {
		return nil
	}
	return g.reassign()
}

// reassign builds the next table from the tools of every downstream, with
// the current table as previous, saves it, and puts the tools on the MCP
// server under their names; the SDK tells clients that the list changed.
// g.mu is held.
func (g *gateway) reassign() error {
	var keys []toolname.Key
	tools := map[toolname.Key]*mcp.Tool{}
	for _, d := range g.downstreams {
		for _, t := range d.tools {
			k := toolname.Key{Server: d.name, Tool: t.Name}
			keys = append(keys, k)
			tools[k] = t
		}
	}
	opts := []toolname.Option{toolname.WithPrevious(g.names), toolname.WithLogger(g.cfg.logger)}
	if g.cfg.qualifyAll {
		opts = append(opts, toolname.WithQualifyAll())
	}
	names, err := toolname.Assign(g.cfg.profile, keys, opts...)
	if err != nil {
		return fmt.Errorf("assigning tool names: %w", err)
	}
	// Save before serving, so that every name a client sees is on disk;
	// should saving fail, serve the names all the same and report it.
	saveErr := saveState(g.cfg.statePath, names)
	g.names = names

	var serve []string
	for k, name := range names.All() {
		t := *tools[k]
		t.Name = name
		if err := addTool(g.srv, &t, g.call); err != nil {
			g.cfg.logger.Warn("gateway: tool not served", "server", k.Server, "tool", k.Tool, "err", err)
			continue
		}
		serve = append(serve, name)
	}
	slices.Sort(serve)
	var gone []string
	for _, name := range g.served {
		if _, ok := slices.BinarySearch(serve, name); !ok {
			gone = append(gone, name)
		}
	}
	g.srv.RemoveTools(gone...)
	g.served = serve
	return saveErr
}

// addTool adds t to srv. The SDK panics on a tool definition it cannot
// serve; the definitions come from other servers, so that is an error
// here, never a crash.
func addTool(srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	srv.AddTool(t, h)
	return nil
}

// route returns the downstream session and raw tool name for a name the
// model called.
func (g *gateway) route(name string) (toolname.Key, *mcp.ClientSession, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	k, ok := g.names.Resolve(name)
	if !ok {
		return k, nil, errUnknownTool
	}
	d := g.downstreams[k.Server]
	if d == nil || d.session == nil {
		return k, nil, errUnavailable
	}
	return k, d.session, nil
}

var (
	errUnknownTool = errors.New("no tool has this name")
	errUnavailable = errors.New("the server is not available")
)
