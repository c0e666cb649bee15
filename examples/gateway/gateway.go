package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
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
	// save writes the table to the state file; nil means writeFileAtomic.
	// Tests put a failing writer here, as a full disk would fail.
	save func(path string, data []byte) error
}

// Timing of the gateway's own work. Each is a bound that keeps one
// downstream from costing the others, not a tuning knob.
const (
	// startSettle is the longest the first table waits for the servers
	// that are slow to start; those still starting then join later,
	// each getting names as it arrives (a hung server never delays the
	// others by more than this, nor by -timeout).
	startSettle = 2 * time.Second
	// relistEvery is the shortest time between two listings of one
	// downstream's tools: a flood of tools/list_changed costs at most a
	// few listings a second.
	relistEvery = 250 * time.Millisecond
	// The backoff between restarts of a downstream that died or did not
	// start, and between attempts to save a table that could not be
	// saved: doubled at each failure from its least to its most.
	retryMin = 100 * time.Millisecond
	retryMax = 30 * time.Second
)

// gateway serves the tools of its downstream servers on one MCP server,
// under the names of a toolname table that it continues with WithPrevious
// on every change, and routes each call by looking the name up.
//
// Calls take none of the locks that relists and saves hold: they read
// the served table and each downstream's session through atomic pointers.
// One goroutine, the assigner (see assignLoop), builds and saves each new
// table; each downstream has a goroutine of its own that connects, lists
// and restarts it.
type gateway struct {
	cfg  config
	srv  *mcp.Server
	lock *stateLock // nil without a state file

	ctx    context.Context // ends at close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the assigner and the downstreams' goroutines

	mu          sync.Mutex // guards downstreams, ever, and every downstream's tools and ever
	downstreams map[string]*downstream
	ever        map[string]map[string]bool // the loaded chain's tools of each server, for its downstream

	levels  sessionLevels         // the log level each client session set
	table   atomic.Pointer[table] // what is served now
	dirty   chan struct{}         // holds a pending change for the assigner
	flushes chan chan struct{}    // asks the assigner to act on every change now
	started sync.Once

	// Owned by the assigner.
	saved  *toolname.Names       // the last table on disk (or loaded from it)
	served map[string]servedTool // name -> what srv serves under it
}

// table is what the gateway serves: an immutable value that calls read
// without locks.
type table struct {
	names *toolname.Names // the saved table the names come from
	tools map[string]servedTool
	byKey map[toolname.Key]string
}

// servedTool is one tool the gateway serves under a name.
type servedTool struct {
	key  toolname.Key
	d    *downstream
	tool *mcp.Tool // as the downstream listed it
}

// newGateway returns a gateway with no downstream servers yet. With a
// state file, it locks it, so that no other gateway uses it, and loads the
// table saved there, if the file exists; a file that is not a table is an
// error, never a reason to start a new chain.
func newGateway(cfg config) (*gateway, error) {
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	if cfg.timeout <= 0 {
		cfg.timeout = 30 * time.Second
	}
	if cfg.save == nil {
		cfg.save = writeFileAtomic
	}
	g := &gateway{
		cfg:         cfg,
		downstreams: map[string]*downstream{},
		dirty:       make(chan struct{}, 1),
		flushes:     make(chan chan struct{}),
		served:      map[string]servedTool{},
	}
	if cfg.statePath != "" {
		lock, notHeld, err := lockState(cfg.statePath)
		if err != nil {
			return nil, err
		}
		if notHeld != nil {
			cfg.logger.Warn("gateway: cannot lock the state file; serving the saved names, and saving once it can be locked", "err", notHeld)
		}
		g.lock = lock
	}
	st, err := loadState(cfg.statePath)
	if err != nil {
		g.lock.release()
		return nil, err
	}
	g.saved, g.ever = st.names, st.ever
	g.table.Store(&table{names: g.saved})
	g.ctx, g.cancel = context.WithCancel(context.Background())
	g.srv = mcp.NewServer(&mcp.Implementation{Name: "mcpid-gateway", Version: "v0.1.0"}, &mcp.ServerOptions{
		Logger: cfg.logger,
		// The gateway has no tools of its own, but announces changes
		// to the tools it relays, and relays its downstreams' logs.
		Capabilities: withLogging(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}}),
	})
	g.srv.AddReceivingMiddleware(g.levels.record, g.byToolName)
	g.srv.AddSendingMiddleware(sendLogs)
	return g, nil
}

// start connects to every downstream server at once and builds the first
// table from the tools of those that answered within startSettle (or
// failed sooner), all together, so that their names do not depend on
// which answered first. The others join as they come; a server that fails
// to start is retried with backoff meanwhile. It returns once the first
// table is served, or with the error that kept it from being built.
func (g *gateway) start(ctx context.Context, specs []downstreamSpec) error {
	var firsts []chan struct{}
	for _, spec := range specs {
		d, err := g.launch(spec)
		if err != nil {
			return err
		}
		firsts = append(firsts, d.first)
	}
	settle := time.NewTimer(min(g.cfg.timeout, startSettle))
	defer settle.Stop()
wait:
	for _, first := range firsts {
		select {
		case <-first:
		case <-settle.C:
			break wait
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	g.started.Do(func() {
		g.wg.Add(1)
		go g.assignLoop()
	})
	return g.flush(ctx)
}

// join connects one more downstream server while the gateway runs, and
// returns once its first attempt is over and the table has followed: its
// tools have new names, and no other tool is renamed. A server that fails
// to start is an error, and is retried with backoff all the same.
func (g *gateway) join(ctx context.Context, spec downstreamSpec) error {
	d, err := g.launch(spec)
	if err != nil {
		return err
	}
	select {
	case <-d.first:
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := g.flush(ctx); err != nil {
		return err
	}
	return d.firstErr
}

// launch adds the downstream of spec and starts its goroutine; a second
// downstream of one name is an error.
func (g *gateway) launch(spec downstreamSpec) (*downstream, error) {
	d := newDownstream(spec)
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.downstreams[spec.name]; dup {
		return nil, fmt.Errorf("a server named %q is already connected", spec.name)
	}
	g.downstreams[spec.name] = d
	if ever := g.ever[spec.name]; ever != nil {
		d.ever = ever
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		g.runDownstream(d)
	}()
	return d, nil
}

// close ends every downstream session and the assigner, then releases the
// state file: a table is never saved after close returns.
func (g *gateway) close() {
	g.cancel()
	g.wg.Wait()
	g.mu.Lock()
	ds := slices.Collect(maps.Values(g.downstreams))
	g.mu.Unlock()
	for _, d := range ds {
		if t, ok := d.transport.(interface{ wait() }); ok {
			t.wait() // no process outlives the gateway
		}
	}
	g.lock.release()
}

// changed tells the assigner that some downstream's tools changed.
func (g *gateway) changed() {
	select {
	case g.dirty <- struct{}{}:
	default: // one is pending already
	}
}

// flush has the assigner act on every change so far, and waits for it.
func (g *gateway) flush(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case g.flushes <- done:
	case <-ctx.Done():
		return ctx.Err()
	case <-g.ctx.Done():
		return errors.New("the gateway is closed")
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// assignLoop builds a new table for each change, one at a time: changes
// that come while it works merge into one. A table that cannot be saved is
// tried again with backoff.
func (g *gateway) assignLoop() {
	defer g.wg.Done()
	delay := retryMin
	retry := time.NewTimer(0)
	<-retry.C
	for {
		var done chan struct{}
		select {
		case <-g.dirty:
		case <-retry.C:
		case done = <-g.flushes:
		case <-g.ctx.Done():
			return
		}
		if err := g.reassign(); err != nil {
			g.cfg.logger.Warn("gateway: the new table is not served; serving the last saved one", "err", err, "retry_in", delay)
			retry.Reset(delay)
			delay = min(2*delay, retryMax)
		} else {
			retry.Stop()
			delay = retryMin
		}
		if done != nil {
			close(done)
		}
	}
}

// reassign builds the next table from the tools of every downstream, with
// the last saved table as previous, saves it, and serves it.
//
// Every name a client sees is on disk first: should saving fail, the new
// table is dropped and the last saved one stays served (for the tools that
// are still listed), so that a name handed out unsaved can never, after a
// restart, be handed to another tool. Runs on the assigner only.
func (g *gateway) reassign() error {
	live := g.liveTools()
	keys := make([]toolname.Key, 0, len(live))
	for k := range live {
		keys = append(keys, k)
	}
	opts := []toolname.Option{toolname.WithPrevious(g.saved), toolname.WithLogger(g.cfg.logger)}
	if g.cfg.qualifyAll {
		opts = append(opts, toolname.WithQualifyAll())
	}
	names, err := toolname.Assign(g.cfg.profile, keys, opts...)
	if err != nil {
		return fmt.Errorf("assigning tool names: %w", err)
	}
	var saveErr error
	if g.saved == nil || !sameNames(names, g.saved) {
		saveErr = g.save(names)
		if saveErr == nil {
			g.saved = names
		}
	}
	g.serve(live)
	return saveErr
}

// liveTools returns the tools every downstream lists now.
func (g *gateway) liveTools() map[toolname.Key]servedTool {
	g.mu.Lock()
	defer g.mu.Unlock()
	live := map[toolname.Key]servedTool{}
	for _, d := range g.downstreams {
		for _, t := range d.tools {
			k := toolname.Key{Server: d.name, Tool: t.Name}
			live[k] = servedTool{key: k, d: d, tool: t}
		}
	}
	return live
}

// save writes names to the state file, unless the gateway is closing.
func (g *gateway) save(names *toolname.Names) error {
	if g.cfg.statePath == "" {
		return nil
	}
	if g.ctx.Err() != nil {
		return errors.New("the gateway is closed")
	}
	if err := g.lock.take(); err != nil {
		return fmt.Errorf("locking the state file: %w", err)
	}
	data, err := json.Marshal(names)
	if err != nil {
		return err
	}
	if err := g.cfg.save(g.cfg.statePath, append(data, '\n')); err != nil {
		return fmt.Errorf("saving the state file: %w", err)
	}
	return nil
}

// sameNames reports whether a and b give the same names to the same keys.
func sameNames(a, b *toolname.Names) bool {
	if a.Len() != b.Len() {
		return false
	}
	for k, name := range a.All() {
		if other, ok := b.Name(k); !ok || other != name {
			return false
		}
	}
	return true
}

// serve puts the live tools that the saved table names on the MCP server,
// changing only what changed, so that the SDK tells clients that the list
// changed only when it did. Runs on the assigner only.
func (g *gateway) serve(live map[toolname.Key]servedTool) {
	next := &table{names: g.saved, tools: map[string]servedTool{}, byKey: map[toolname.Key]string{}}
	var added []string
	for k, name := range g.saved.All() {
		st, ok := live[k]
		if !ok || !g.cfg.profile.Valid(name) {
			continue
		}
		next.tools[name] = st
		next.byKey[k] = name
		if old, ok := g.served[name]; !ok || old.key != k || old.tool != st.tool {
			added = append(added, name)
		}
	}
	var gone []string
	for name := range g.served {
		if _, ok := next.tools[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		g.srv.RemoveTools(gone...)
	}
	// Routing knows the added names before the SDK lists them.
	g.table.Store(next)
	slices.Sort(added)
	var failed []string
	for _, name := range added {
		st := next.tools[name]
		t := *st.tool
		t.Name = name
		if err := addTool(g.srv, &t, g.call); err != nil {
			g.cfg.logger.Warn("gateway: tool not served", "server", st.key.Server, "tool", st.key.Tool, "err", err)
			failed = append(failed, name)
		}
	}
	if len(failed) > 0 {
		// A changed definition that the SDK refuses must not leave the
		// old one listed.
		g.srv.RemoveTools(failed...)
		next = next.without(failed)
		g.table.Store(next)
	}
	g.served = next.tools
}

// without returns a copy of t without the given names.
func (t *table) without(names []string) *table {
	c := &table{names: t.names, tools: maps.Clone(t.tools), byKey: maps.Clone(t.byKey)}
	for _, name := range names {
		delete(c.byKey, c.tools[name].key)
		delete(c.tools, name)
	}
	return c
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
