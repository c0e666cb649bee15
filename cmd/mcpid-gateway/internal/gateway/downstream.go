package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/relay"
)

// Caps on what one downstream server can make the gateway hold, so that a
// server that lists without end costs only its own tools.
const (
	// maxTools bounds the tools taken from one listing.
	maxTools = 1000
	// maxEver bounds the distinct tools of one server that the chain
	// names over its whole life: each is remembered for good, so that its
	// name is never given to another tool. Beyond it, new tools of that
	// server are refused; the ones already named keep their names.
	maxEver = 10_000
	// maxSchema bounds the JSON of a tool's input and output schemas
	// together; a tool with larger schemas is not served.
	maxSchema = 64 << 10
)

// downstreamSpec is a downstream server to connect: its name, which the
// gateway's table keys its tools by, and how to reach it. The transport is
// connected again to restart the server.
type downstreamSpec struct {
	name      string
	transport mcp.Transport
}

// child is one downstream server, the process the gateway started and
// its session, as the gateway keeps it.
type child struct {
	name      string
	transport mcp.Transport
	remote    *remoteLink                       // its HTTP side, when it is reached over HTTP; nil for stdio
	session   atomic.Pointer[mcp.ClientSession] // nil while it is not connected; stored by setSession
	// listen is the listen-only session of an HTTP downstream that keeps
	// sessions (see watch), which holds its resource subscriptions; nil
	// for any other, and while it is not open.
	listen atomic.Pointer[mcp.ClientSession]
	swap   sessionSwap // wakes the requests waiting for its next session (expire.go)

	// first is closed when the first attempt to connect and list is
	// over; firstErr is then its error.
	first     chan struct{}
	firstErr  error
	firstOnce sync.Once

	// changed holds a tools/list_changed not yet acted on. Notifications
	// that arrive while one is pending merge into it.
	changed chan struct{}

	// Guarded by the gateway's mu.
	tools []*mcp.Tool       // the tools it lists that the gateway serves, by name
	defs  map[string]string // the JSON of each of tools, by name
	ever  map[string]bool   // the tools of it that the chain has named

	inFlight downstream.Relay // the calls in flight, to relay their progress and logs

	// answered is set when the session answers a call (a result or a
	// JSON-RPC error): see runDownstream.
	answered     atomic.Bool
	more         kinds         // its prompts, resources and templates (relayed.go)
	kindsChanged chan struct{} // holds a list_changed of prompts or resources not yet acted on

	// Opened once its first listing of each kind is served (see
	// starting.go): its tools by a round of the tools' chain, its
	// prompts by a round of the prompt chain, its resources at once.
	toolsServed, promptsServed, kindsListed *latch
	toolsListed                             bool // it listed its tools once; guarded by the gateway's mu
}

func newChild(spec downstreamSpec) *child {
	remote, _ := spec.transport.(*remoteLink)
	return &child{
		remote:    remote,
		name:      spec.name,
		transport: spec.transport,
		first:     make(chan struct{}),
		changed:   make(chan struct{}, 1),
		ever:      map[string]bool{},

		kindsChanged: make(chan struct{}, 1),

		toolsServed:   newLatch(),
		promptsServed: newLatch(),
		kindsListed:   newLatch(),
	}
}

// firstAttempt records the end of d's first attempt to connect and list,
// with its error; later calls do nothing.
func (d *child) firstAttempt(err error) {
	d.firstOnce.Do(func() {
		d.firstErr = err
		close(d.first)
	})
}

// runDownstream keeps d connected until the gateway closes: it connects,
// lists its tools, follows its changes, and when the session ends or
// cannot start, starts it again after a backoff. Its tools stay listed
// meanwhile, and calls to them answer resource_unavailable.
//
// The backoff doubles from retryMin at each failure, and never exceeds
// retryMax or the gateway's timeout: a crash costs a downstream's callers
// at most that wait, its start and its first listing, each within the
// timeout. It starts again from retryMin once a session has listed its
// tools and answered a call: a server that crashes between calls it
// served is not in a crash loop, however short its sessions are.
func (g *gateway) runDownstream(d *child) {
	delay := retryMin
	defer d.firstAttempt(errors.New("the gateway is closed"))
	for {
		d.answered.Store(false)
		listed := false
		err := g.session(d, func(err error) {
			listed = err == nil
			d.firstAttempt(err)
		})
		if g.ctx.Err() != nil {
			return
		}
		// A session its server ended (see expire.go) is no crash either.
		if listed && (d.answered.Load() || errors.Is(err, mcp.ErrSessionMissing)) {
			delay = retryMin
		}
		wait := min(delay, g.cfg.timeout)
		g.cfg.logger.Warn("gateway: downstream unavailable; restarting it", "server", d.name, "err", err, "wait", wait)
		select {
		case <-time.After(wait):
		case <-g.ctx.Done():
			return
		}
		delay = min(2*delay, retryMax)
	}
}

// session runs one session with d: it connects, lists the tools, calls
// listed once that is done (with its error, if it failed), then relists
// on every change, at most every relistEvery, until the session ends or
// the gateway closes.
func (g *gateway) session(d *child, listed func(error)) error {
	cs, err := g.connect(d)
	if err != nil {
		listed(err)
		return err
	}
	defer func() { _ = cs.Close() }()
	ended := make(chan struct{})
	var endErr error // why it ended, once ended is closed
	go func() {
		endErr = cs.Wait()
		close(ended)
	}()
	d.setSession(cs)
	defer d.session.CompareAndSwap(cs, nil)
	err = g.relist(d, cs)
	if err == nil {
		if !listens(d, cs) {
			g.resubscribe(d, cs) // else the listening session subscribes (see watch)
		}
		g.relistKinds(d, cs)
	}
	listed(err)
	if err != nil {
		return err
	}
	// An HTTP downstream's notifications come on a session of their own,
	// or, when it keeps no session, not at all (see remote.go).
	watchEnded, stopWatch := g.watch(d, cs)
	defer stopWatch()
	relistTick, stopTick := relistTicker(d, cs)
	defer stopTick()
	for {
		select {
		case <-d.kindsChanged:
			g.relistKinds(d, cs)
			continue
		case <-relistTick:
			g.relistKinds(d, cs)
		case <-d.changed:
		case <-ended:
			return sessionEnded(endErr)
		case <-watchEnded:
			return errors.New("the session's notification stream ended")
		case <-g.ctx.Done():
			return nil
		}
		if err := g.relist(d, cs); err != nil {
			g.cfg.logger.Warn("gateway: relisting tools", "server", d.name, "err", err)
		}
		select {
		case <-time.After(relistEvery):
		case <-ended:
			return sessionEnded(endErr)
		case <-g.ctx.Done():
			return nil
		}
	}
}

// sessionEnded is the error of a session that ended by itself, for the
// reason err (nil when the connection closed cleanly).
func sessionEnded(err error) error {
	if err == nil {
		return errors.New("the session ended")
	}
	return fmt.Errorf("the session ended: %w", err)
}

// connect starts a session with d, within the gateway's timeout, and asks
// it for log messages when it has any, to relay to the callers.
func (g *gateway) connect(d *child) (*mcp.ClientSession, error) {
	opts := &mcp.ClientOptions{
		Logger: g.cfg.logger,
		// The handlers run on the session's reading goroutine: listing
		// the tools from there would wait on itself. This one leaves
		// the work to session.
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case d.changed <- struct{}{}:
			default: // one is pending already
			}
		},
	}
	g.clientHandlers(d, opts)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpid-gateway", Version: "v0.1.0"}, opts)
	client.AddReceivingMiddleware(relay.Elicitation(&d.inFlight))
	// A downstream's requests and notifications (sampling, elicitation,
	// list changes) run the gateway's handlers too: a panic there costs
	// that one message, not the process.
	client.AddReceivingMiddleware(g.recovered)
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
	defer cancel()
	cs, err := connectLink(ctx, client, d.inFlight.Transport(d.transport))
	if err != nil {
		return nil, fmt.Errorf("starting the session: %w", err)
	}
	if d.remote != nil {
		d.remote.http.connected(cs)
	}
	if err := downstream.AskForLogs(ctx, cs); err != nil {
		g.cfg.logger.Warn("gateway: downstream refused a logging level; its logs are not relayed", "server", d.name, "err", err)
	}
	return cs, nil
}

// relist reads d's tools and, when they changed, tells the assigner.
func (g *gateway) relist(d *child, cs *mcp.ClientSession) error {
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
	defer cancel()
	var listed []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		if len(listed) == maxTools {
			g.cfg.logger.Warn("gateway: too many tools; the rest are not served", "server", d.name, "max", maxTools)
			break
		}
		listed = append(listed, t)
	}
	// The first listing starts a round even when it lists no tool: the
	// round tells the requests waiting for it (see starting.go).
	if changed, first := g.update(d, g.servable(d.name, listed)); changed || first {
		g.changed()
	}
	return nil
}

// update replaces d's tools with the listing l, but for the new tools
// beyond the cap on distinct tools, and reports whether they changed, and
// whether this is d's first listing. A tool listed again as it was (the
// same JSON) keeps its value, so that the assigner sees it unchanged.
func (g *gateway) update(d *child, l listing) (changed, first bool) {
	changed, first, refused := g.admit(d, l)
	if refused > 0 {
		g.cfg.logger.Warn("gateway: server has had too many distinct tools; its new tools are refused", "server", d.name, "max", maxEver, "refused", refused)
	}
	return changed, first
}

// admit is update under the gateway's mu; it also returns how many new
// tools the cap refused.
func (g *gateway) admit(d *child, l listing) (changed, first bool, refused int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	first = !d.toolsListed
	d.toolsListed = true
	kept := l.tools[:0]
	for _, t := range l.tools {
		if !d.ever[t.Name] {
			if len(d.ever) >= maxEver {
				refused++
				continue
			}
			d.ever[t.Name] = true
		}
		if old, ok := d.defs[t.Name]; ok && old == l.defs[t.Name] {
			i, _ := slices.BinarySearchFunc(d.tools, t.Name, byName)
			t = d.tools[i]
		}
		kept = append(kept, t)
	}
	if slices.Equal(d.tools, kept) {
		return false, first, refused
	}
	d.tools = slices.Clone(kept)
	d.defs = make(map[string]string, len(kept))
	for _, t := range kept {
		d.defs[t.Name] = l.defs[t.Name]
	}
	return true, first, refused
}

func byName(t *mcp.Tool, name string) int { return strings.Compare(t.Name, name) }

// listing is what servable keeps of one tools/list: the tools, sorted by
// name, and the JSON of each, by name, which tells a tool listed again as
// it was from a changed one. It is computed once per listing, outside the
// gateway's mu.
type listing struct {
	tools []*mcp.Tool
	defs  map[string]string
}

// servable returns the tools of listed that the gateway can serve, sorted
// by name, and logs the others: a tool without a name, or whose name is not
// valid UTF-8 (it cannot be named or called faithfully), every listing of a
// name after the first, a tool whose input schema is not an object schema,
// which MCP requires, and one whose schemas exceed maxSchema. An output
// schema that is not a JSON object is dropped, keeping the tool.
func (g *gateway) servable(server string, listed []*mcp.Tool) listing {
	l := listing{defs: map[string]string{}}
	seen := map[string]bool{}
	for _, t := range listed {
		var why string
		switch {
		case t == nil || t.Name == "" || !utf8.ValidString(t.Name):
			why = "empty or invalid tool name"
		case seen[t.Name]:
			why = "tool name listed twice; the first is served"
		case !objectSchema(t.InputSchema):
			why = `input schema is not an object schema with "type": "object"`
		case schemaSize(t) > maxSchema:
			why = fmt.Sprintf("schemas larger than %d bytes", maxSchema)
		}
		if why != "" {
			name := ""
			if t != nil {
				name = t.Name
			}
			g.cfg.logger.Warn("gateway: tool skipped", "server", server, "tool", name, "why", why)
			continue
		}
		seen[t.Name] = true
		c := *t
		if _, ok := c.OutputSchema.(map[string]any); !ok {
			c.OutputSchema = nil
		}
		def, err := json.Marshal(&c)
		if err != nil {
			g.cfg.logger.Warn("gateway: tool skipped", "server", server, "tool", c.Name, "why", err)
			continue
		}
		l.tools = append(l.tools, &c)
		l.defs[c.Name] = string(def)
	}
	slices.SortFunc(l.tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	return l
}

// objectSchema reports whether schema, as the client decoded it, is a
// JSON object whose "type" is "object".
func objectSchema(schema any) bool {
	m, ok := schema.(map[string]any)
	return ok && m["type"] == "object"
}

// schemaSize returns the size of t's schemas as JSON.
func schemaSize(t *mcp.Tool) int {
	in, _ := json.Marshal(t.InputSchema)
	out, _ := json.Marshal(t.OutputSchema)
	return len(in) + len(out)
}

// countEver adds, once, the tools of the chain's whole history to the
// distinct tools each downstream has had, which its cap counts (see
// maxEver): so a restart does not let a server have another maxEver.
func (g *gateway) countEver() {
	keys := g.tools.History(g.cfg.logger)
	if keys == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, k := range keys {
		if g.ever[k.Server] == nil {
			g.ever[k.Server] = map[string]bool{}
		}
		g.ever[k.Server][k.Tool] = true
		if d := g.downstreams[k.Server]; d != nil {
			d.ever[k.Tool] = true
		}
	}
}
