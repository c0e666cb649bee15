package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/metrics"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/relay"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/health"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/naming"
	"github.com/mcpid/mcpid/toolname"
)

// config is what the gateway is told on its command line, or by a test.
type config struct {
	profile    toolname.Profile
	qualifyAll bool
	store      toolname.Store // where the chain lives; nil keeps it in this process
	backupPath string         // the backup of the store's table; "" keeps none
	timeout    time.Duration  // bound on starting a downstream, listing its tools, each call, and each store request
	// startTimeout bounds the wait of the first tools/list for every
	// downstream's tools to be named; 0 means defaultStartTimeout.
	startTimeout time.Duration
	logger       *slog.Logger
	stateless    bool // serve each HTTP request by itself (see handler)
	// fatal, when set, is told that the gateway cannot go on: its chain
	// records other naming options (see stopOnMismatch). nil only logs.
	fatal func(error)
	// promptStore is where the prompt chain lives; nil keeps it in this
	// process (see relay.Kinds).
	promptStore toolname.Store
	// probeEvery is how often /readyz's view of the store is probed
	// between naming rounds; 0 means health.ProbeEvery.
	probeEvery time.Duration
	// unknownToolError answers a call to a name that routes nowhere as
	// the SDK does, with the JSON-RPC error -32602 (-unknown-tool error),
	// instead of the unknown_tool tool error.
	unknownToolError bool
	// metrics records the calls and reads the gateway's state for
	// /metrics; nil records nothing. metricsApart serves /metrics on the
	// -metrics listener instead of the HTTP listener (see withMetrics).
	metrics      *metrics.Metrics
	metricsApart bool
}

// Timing of the gateway's own work. Each is a bound that keeps one
// downstream from costing the others, not a tuning knob.
const (
	// defaultStartTimeout is the longest the first tools/list waits for
	// every downstream to list its tools and for their names to be
	// stored (-start-timeout; never beyond -timeout): those still
	// starting then join later, each getting names as it arrives.
	defaultStartTimeout = 10 * time.Second
	// relistEvery is the shortest time between two listings of one
	// downstream's tools: a flood of tools/list_changed costs at most a
	// few listings a second.
	relistEvery = 250 * time.Millisecond
	// The backoff between restarts of a downstream that died or did not
	// start: doubled at each failure from its least to its most, and
	// never beyond the gateway's timeout (see runDownstream).
	retryMin = 100 * time.Millisecond
	retryMax = 30 * time.Second
)

// gateway serves the tools of its downstream servers on one MCP server,
// under the names of the chain its store holds, which it continues with
// [toolname.Update] on every change (see package naming), and routes each call by
// looking the name up.
//
// Calls take none of the locks that relists and naming rounds hold: they
// read the served table and each downstream's session through atomic
// pointers. One goroutine, the assigner (see assignLoop), runs the naming
// rounds; each downstream has a goroutine of its own that connects, lists
// and restarts it.
type gateway struct {
	cfg config
	srv *mcp.Server

	ctx    context.Context // ends at close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the assigner, the watcher and the downstreams' goroutines

	// mu guards downstreams, ever, and every downstream's fields that
	// downstream.Child says are guarded by its owner's mutex (Tools, Defs,
	// Ever, ToolsListed); relay.Kinds reads downstreams only through
	// downstreamList and downstream, which take it.
	mu          sync.Mutex
	downstreams map[string]*downstream.Child
	ever        map[string]map[string]bool // the chain's tools of each server, for its downstream

	table   atomic.Pointer[table] // what is served now
	flushes chan chan struct{}    // asks the assigner for a round now
	started sync.Once

	// draining is set once -http has begun to stop: /readyz answers 503
	// (see drain.go).
	draining atomic.Bool

	// ready is closed when the first tools/list may be answered: every
	// downstream has listed its tools (or failed to start) and a round
	// has named them, or startTimeout has passed.
	ready     chan struct{}
	readyOnce sync.Once
	// promptsReady is closed after the prompt chain's first round (by
	// kinds): the first prompts/list may then be answered.
	promptsReady chan struct{}
	// startOver is closed startTimeout after start: requests that route
	// by a name wait no longer for its first listing (see starting.go).
	startOver chan struct{}
	listed    atomic.Bool  // every downstream listed, or failed to start, once
	health    health.Store // the store, as the last naming round found it

	tools *naming.Chain // the tools' names; its rounds run on the assigner

	// Owned by the assigner.
	served map[string]servedTool // name -> what srv serves under it

	// forms tells whether URIs are shown in the forms that name their
	// downstream (set once by start); kinds relays the prompts, resources
	// and the rest beyond tools (see package relay).
	forms relay.Forms
	kinds *relay.Kinds
}

// table is what the gateway serves: an immutable value that calls read
// without locks.
type table struct {
	names *toolname.Table // the stored table the names come from
	tools map[string]servedTool
	byKey map[toolname.Key]string
}

// servedTool is one tool the gateway serves under a name.
type servedTool struct {
	key  toolname.Key
	d    *downstream.Child
	tool *mcp.Tool // as the downstream listed it
}

// newGateway returns a gateway with no downstream servers yet. With a
// backup, it serves the backup's names until the store is found to hold
// them (see checkBackup); a backup that is not a table, or that another
// gateway holds, is an error.
func newGateway(cfg config) (*gateway, error) {
	if cfg.logger == nil {
		cfg.logger = slog.New(slog.DiscardHandler)
	}
	if cfg.timeout <= 0 {
		cfg.timeout = 30 * time.Second
	}
	if cfg.startTimeout <= 0 {
		cfg.startTimeout = defaultStartTimeout
	}
	cfg.startTimeout = min(cfg.startTimeout, cfg.timeout)
	if cfg.probeEvery <= 0 {
		cfg.probeEvery = health.ProbeEvery
	}
	if cfg.store == nil {
		cfg.store = new(chainstore.Mem)
	}
	g := &gateway{
		cfg:          cfg,
		downstreams:  map[string]*downstream.Child{},
		ever:         map[string]map[string]bool{},
		flushes:      make(chan chan struct{}),
		ready:        make(chan struct{}),
		promptsReady: make(chan struct{}),
		startOver:    make(chan struct{}),
		served:       map[string]servedTool{},
	}
	var err error
	if g.tools, err = naming.New("tool", cfg.store, cfg.backupPath); err != nil {
		return nil, err
	}
	g.table.Store(&table{names: g.tools.Stored()})
	g.ctx, g.cancel = context.WithCancel(context.Background())
	sdkLogger := cfg.logger
	if cfg.stateless {
		sdkLogger = slog.New(quietSessions{cfg.logger.Handler()})
	}
	g.srv = mcp.NewServer(&mcp.Implementation{Name: "mcpid-gateway", Version: "v0.1.0"}, &mcp.ServerOptions{
		Logger: sdkLogger,
		// The gateway has no tools of its own, but announces changes
		// to the tools it relays, and relays its downstreams' logs.
		Capabilities: downstream.WithLogging(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Completions: &mcp.CompletionCapabilities{}}),
		SubscribeHandler:   func(ctx context.Context, req *mcp.SubscribeRequest) error { return g.kinds.Subscribe(ctx, req) },
		UnsubscribeHandler: func(ctx context.Context, req *mcp.UnsubscribeRequest) error { return g.kinds.Unsubscribe(ctx, req) },
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return g.kinds.Complete(ctx, req)
		},
	})
	// With -backup, the prompt chain's backup is the file beside it.
	if g.kinds, err = relay.NewKinds(relay.Engine{
		Ctx: g.ctx, Server: g.srv, Logger: cfg.logger, Timeout: cfg.timeout, Profile: cfg.profile,
		UpdateOptions: g.updateOptions, PromptStore: cfg.promptStore, PromptBackup: promptBackup(cfg.backupPath),
		Forms: &g.forms, Downstreams: g.downstreamList, Downstream: g.downstream, ToDownstream: g.toDownstream,
		Ready: g.ready, StartOver: g.startOver, PromptsReady: g.promptsReady, RecoverIn: g.recoverIn, RoundErr: g.stopOnMismatch,
	}); err != nil {
		g.cancel()
		g.tools.Close()
		return nil, err
	}
	// /metrics reads the chains' generations, the prompts' among them:
	// it is watched once both exist.
	cfg.metrics.Watch(metricsState{g})
	g.srv.AddReceivingMiddleware(g.firstListing, g.byToolName, g.kinds.Middleware)
	if cfg.stateless {
		g.srv.AddReceivingMiddleware(refuseSubscriptions, relay.AskedLevel)
		g.srv.AddSendingMiddleware(relay.SendAskedLogs)
	}
	// Added last, so that it runs first: around every other middleware.
	g.srv.AddReceivingMiddleware(g.recovered)
	return g, nil
}

// start connects to every downstream server at once and starts naming
// their tools. The first tools/list waits (see firstListing) until every
// server has listed its tools, or failed to start, and a round has named
// them all together, so that a client that lists once sees them all and
// no name depends on which server answered first; or until startTimeout
// has passed. Servers slower than that join as they come; a server that
// fails to start is retried with backoff meanwhile.
func (g *gateway) start(ctx context.Context, specs []downstreamSpec) error {
	// URIs are shown in forms that name their downstream when there are
	// several, by the configuration alone (see relay.Forms).
	g.forms.Set(len(specs) > 1)
	time.AfterFunc(g.cfg.startTimeout, func() { close(g.startOver) })
	var firsts []<-chan struct{}
	for _, spec := range specs {
		d, err := g.launch(spec)
		if err != nil {
			return err
		}
		firsts = append(firsts, d.First())
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		deadline := time.NewTimer(g.cfg.startTimeout)
		defer deadline.Stop()
		late := false
	wait:
		for _, first := range firsts {
			select {
			case <-first:
			case <-deadline.C:
				late = true
				break wait
			case <-ctx.Done():
				return
			case <-g.ctx.Done():
				return
			}
		}
		g.started.Do(func() {
			g.wg.Add(5)
			go g.assignLoop()
			go g.follow()
			go func() {
				defer g.wg.Done()
				g.kinds.PromptLoop()
			}()
			go func() {
				defer g.wg.Done()
				g.kinds.FollowPrompts()
			}()
			go g.probeStore()
		})
		// The first round that succeeds from now on (this one, or a
		// retry while the store is down) lets the listing go, or the
		// deadline does. Past the deadline, the listing still waits for
		// this one round, which names the servers that listed in time,
		// and then answers with what is stored.
		g.listed.Store(true)
		_ = g.flush(g.ctx)
		if late {
			g.markReady()
			return
		}
		select {
		case <-deadline.C:
			g.markReady()
		case <-g.ready:
		case <-g.ctx.Done():
		}
	}()
	return nil
}

// markReady lets the first tools/list be answered.
func (g *gateway) markReady() {
	g.readyOnce.Do(func() { close(g.ready) })
}

// firstListing is the gateway's receiving middleware that holds the first
// tools/list until the gateway is ready (see start); later listings never
// wait.
func (g *gateway) firstListing(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			select {
			case <-g.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return next(ctx, method, req)
	}
}

// join connects one more downstream server while the gateway runs, and
// returns once its first attempt is over and a round has named its tools:
// no other tool is renamed. A server that fails to start is an error, and
// is retried with backoff all the same.
func (g *gateway) join(ctx context.Context, spec downstreamSpec) error {
	d, err := g.launch(spec)
	if err != nil {
		return err
	}
	select {
	case <-d.First():
	case <-ctx.Done():
		return ctx.Err()
	}
	if err := g.flush(ctx); err != nil {
		return err
	}
	return d.FirstErr()
}

// launch adds the downstream of spec and starts its goroutine; a second
// downstream of one name is an error.
func (g *gateway) launch(spec downstreamSpec) (*downstream.Child, error) {
	d := downstream.NewChild(spec.name, spec.transport)
	d.Remote = remoteOf(d) != nil
	d.InFlight.Logger = g.cfg.logger
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.downstreams[spec.name]; dup {
		return nil, fmt.Errorf("a server named %q is already connected", spec.name)
	}
	g.downstreams[spec.name] = d
	if ever := g.ever[spec.name]; ever != nil {
		d.Ever = ever
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		g.runDownstream(d)
	}()
	return d, nil
}

// close ends every downstream session and the assigner, and closes the
// backup: no round runs after close returns. The store is its opener's to
// close.
func (g *gateway) close() {
	g.cancel()
	g.wg.Wait()
	g.tools.Close()
	g.kinds.Close()
	g.mu.Lock()
	ds := slices.Collect(maps.Values(g.downstreams))
	g.mu.Unlock()
	for _, d := range ds {
		if t, ok := d.Transport.(interface{ Wait() }); ok {
			t.Wait() // no process outlives the gateway
		}
	}
}

// changed tells the assigner that some downstream's tools, or the store's
// table, changed.
func (g *gateway) changed() {
	g.tools.Changed()
}

// flush has the assigner run a round now, and waits for it. A round that
// fails is not an error here: the assigner logs it and tries again.
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

// assignLoop runs the tools' naming rounds (see naming.Chain.Rounds), and a
// round at each flush. Each round's outcome is the store's health; once
// every downstream listed, the first round that succeeds lets the first
// tools/list go.
func (g *gateway) assignLoop() {
	defer g.wg.Done()
	g.tools.Rounds(g.ctx, g.cfg.logger, g.flushes, g.nameTools, func(err error) {
		g.health.Round(err)
		g.stopOnMismatch(g.tools, err)
		if err == nil && g.listed.Load() {
			g.markReady()
		}
	})
}

// follow starts a round of the tools' chain whenever its store tells that
// a table was stored (see naming.Chain.Watch).
func (g *gateway) follow() {
	defer g.wg.Done()
	g.tools.Watch(g.ctx, g.cfg.logger)
}

// liveTools returns the tools every downstream lists now, and the
// downstreams that have listed their tools once.
func (g *gateway) liveTools() (map[toolname.Key]servedTool, []*downstream.Child) {
	g.mu.Lock()
	defer g.mu.Unlock()
	live := map[toolname.Key]servedTool{}
	var listed []*downstream.Child
	for _, d := range g.downstreams {
		if d.ToolsListed {
			listed = append(listed, d)
		}
		for _, t := range d.Tools {
			k := toolname.Key{Server: d.Name, Tool: t.Name}
			live[k] = servedTool{key: k, d: d, tool: t}
		}
	}
	return live, listed
}

// serve puts the live tools that the stored table names on the MCP server,
// changing only what changed, so that the SDK tells clients that the list
// changed only when it did, and tells the requests waiting for the first
// listing of a downstream in listed that it is served. Runs on the
// assigner only.
func (g *gateway) serve(live map[toolname.Key]servedTool, listed []*downstream.Child) {
	defer func() {
		for _, d := range listed {
			d.ToolsServed.Open()
		}
	}()
	next := &table{names: g.tools.Stored(), tools: map[string]servedTool{}, byKey: map[toolname.Key]string{}}
	var added []string
	for k, name := range g.tools.Stored().All() {
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
	if gone := relay.GoneFrom(g.served, next.tools); len(gone) > 0 {
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
		if err := relay.Guard(func() { g.srv.AddTool(&t, g.call) }); err != nil {
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

// downstreamList returns the gateway's downstreams now, read under mu.
func (g *gateway) downstreamList() []*downstream.Child {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Collect(maps.Values(g.downstreams))
}

// downstream returns the downstream named name, read under mu; nil for
// none.
func (g *gateway) downstream(name string) *downstream.Child {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.downstreams[name]
}
