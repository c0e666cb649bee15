package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/relay"
)

// Caps on what one downstream server can make the gateway hold (see
// [downstream.MaxListed]): maxTools bounds the tools taken from one
// listing, maxEver the distinct tools of one server that the chain names
// over its whole life.
const (
	maxTools = downstream.MaxListed
	maxEver  = downstream.MaxEver
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
func (g *gateway) runDownstream(d *downstream.Child) {
	delay := retryMin
	defer d.FirstAttempt(errors.New("the gateway is closed"))
	for {
		d.Answered.Store(false)
		listed := false
		err := g.session(d, func(err error) {
			listed = err == nil
			d.FirstAttempt(err)
		})
		if g.ctx.Err() != nil {
			return
		}
		// A session its server ended (see expire.go) is no crash either.
		if listed && (d.Answered.Load() || errors.Is(err, mcp.ErrSessionMissing)) {
			delay = retryMin
		}
		wait := min(delay, g.cfg.timeout)
		g.cfg.logger.Warn("gateway: downstream unavailable; restarting it", "server", d.Name, "err", err, "wait", wait)
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
func (g *gateway) session(d *downstream.Child, listed func(error)) error {
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
	d.SetSession(cs)
	defer d.DropSession(cs)
	err = g.relist(d, cs)
	if err == nil {
		g.kinds.Resubscribe(d, cs)
		g.kinds.Relist(d, cs)
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
		case <-d.KindsChanged:
			g.kinds.Relist(d, cs)
			continue
		case <-relistTick:
			g.kinds.Relist(d, cs)
		case <-d.Changed:
		case <-ended:
			return sessionEnded(endErr)
		case <-watchEnded:
			return errors.New("the session's notification stream ended")
		case <-g.ctx.Done():
			return nil
		}
		if err := g.relist(d, cs); err != nil {
			g.cfg.logger.Warn("gateway: relisting tools", "server", d.Name, "err", err)
		}
		select {
		case <-time.After(relistEvery):
		case <-ended:
			return sessionEnded(endErr)
		case <-watchEnded:
			return errors.New("the session's notification stream ended")
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
func (g *gateway) connect(d *downstream.Child) (*mcp.ClientSession, error) {
	opts := &mcp.ClientOptions{
		Logger: g.cfg.logger,
		// The handlers run on the session's reading goroutine: listing
		// the tools from there would wait on itself. This one leaves
		// the work to session.
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case d.Changed <- struct{}{}:
			default: // one is pending already
			}
		},
	}
	g.kinds.ClientHandlers(d, opts)
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpid-gateway", Version: "v0.1.0"}, opts)
	client.AddReceivingMiddleware(relay.Elicitation(&d.InFlight))
	// A downstream's requests and notifications (sampling, elicitation,
	// list changes) run the gateway's handlers too: a panic there costs
	// that one message, not the process.
	client.AddReceivingMiddleware(g.recovered)
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
	defer cancel()
	cs, err := connectLink(ctx, client, d.InFlight.Transport(d.Transport))
	if err != nil {
		return nil, fmt.Errorf("starting the session: %w", err)
	}
	if r := remoteOf(d); r != nil {
		r.http.connected(cs)
	}
	if err := downstream.AskForLogs(ctx, cs); err != nil {
		g.cfg.logger.Warn("gateway: downstream refused a logging level; its logs are not relayed", "server", d.Name, "err", err)
	}
	return cs, nil
}

// relist reads d's tools and, when they changed, tells the assigner.
func (g *gateway) relist(d *downstream.Child, cs *mcp.ClientSession) error {
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
	defer cancel()
	var listed []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		if len(listed) == maxTools {
			g.cfg.logger.Warn("gateway: too many tools; the rest are not served", "server", d.Name, "max", maxTools)
			break
		}
		listed = append(listed, t)
	}
	// The first listing starts a round even when it lists no tool: the
	// round tells the requests waiting for it (see starting.go).
	if changed, first := g.update(d, g.servable(d.Name, listed)); changed || first {
		g.changed()
	}
	return nil
}

// update replaces d's tools with the listing l, but for the new tools
// beyond the cap on distinct tools, and reports whether they changed, and
// whether this is d's first listing. A tool listed again as it was (the
// same JSON) keeps its value, so that the assigner sees it unchanged.
func (g *gateway) update(d *downstream.Child, l listing) (changed, first bool) {
	changed, first, refused := g.admit(d, l)
	if refused > 0 {
		g.cfg.logger.Warn("gateway: server has had too many distinct tools; its new tools are refused", "server", d.Name, "max", maxEver, "refused", refused)
	}
	return changed, first
}

// admit is update under the gateway's mu; it also returns how many new
// tools the cap refused.
func (g *gateway) admit(d *downstream.Child, l listing) (changed, first bool, refused int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	first = !d.ToolsListed
	d.ToolsListed = true
	kept := l.tools[:0]
	for _, t := range l.tools {
		if !d.Ever[t.Name] {
			if len(d.Ever) >= maxEver {
				refused++
				continue
			}
			d.Ever[t.Name] = true
		}
		if old, ok := d.Defs[t.Name]; ok && old == l.defs[t.Name] {
			i, _ := slices.BinarySearchFunc(d.Tools, t.Name, byName)
			t = d.Tools[i]
		}
		kept = append(kept, t)
	}
	if slices.Equal(d.Tools, kept) {
		return false, first, refused
	}
	d.Tools = slices.Clone(kept)
	d.Defs = make(map[string]string, len(kept))
	for _, t := range kept {
		d.Defs[t.Name] = l.defs[t.Name]
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
			d.Ever[k.Tool] = true
		}
	}
}

// linkVersion is the protocol version the gateway speaks to a downstream
// first: the last before MCP 2026-07-28. The link is one stateful session
// (stdio) that serves every caller, and on it a downstream can still send
// the requests that servers written today send during a call (logs after
// logging/setLevel, elicitation/create, sampling/createMessage), which a
// 2026-07-28 session refuses; a go-sdk downstream that asks for input the
// 2026-07-28 way asks the gateway with those same requests on this link.
const linkVersion = "2025-11-25"

// connectLink connects client to a downstream at linkVersion and, when the
// downstream refuses that, again at the SDK's latest version (the
// downstream's input requests then come back in results, see
// relay.Kinds.ClientHandlers).
func connectLink(ctx context.Context, client *mcp.Client, t mcp.Transport) (*mcp.ClientSession, error) {
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: linkVersion})
	if err == nil || ctx.Err() != nil {
		return cs, err
	}
	if cs, err2 := client.Connect(ctx, t, nil); err2 == nil {
		return cs, nil
	}
	return nil, err
}
