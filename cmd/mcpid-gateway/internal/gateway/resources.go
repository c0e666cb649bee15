package gateway

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/relay"
)

// This file relays resources and resource templates: each downstream's
// listings are served under the URIs of uriform.go (as written with one
// downstream, in its form with several); a read or subscription routes
// only to the downstream its URI names (see routeURI), and every URI in a
// downstream's results and update notifications is written in its form.

// shownResources is what the gateway's MCP server lists of one downstream:
// its resources by the URI shown, and its templates by the template shown,
// each with the JSON it was listed with, which tells a changed one.
type shownResources struct {
	resources map[string]string
	templates map[string]string
}

// setResources replaces d's resources and templates with a listing, and
// serves what changed. Resources without a URI, URIs listed twice, and
// templates that do not parse are skipped, and logged.
func (g *gateway) setResources(d *downstream.Child, resources []*mcp.Resource, templates []*mcp.ResourceTemplate) {
	resources = slices.DeleteFunc(slices.Clone(resources), func(r *mcp.Resource) bool { return r == nil || r.URI == "" })
	slices.SortStableFunc(resources, func(a, b *mcp.Resource) int { return cmp.Compare(a.URI, b.URI) })
	resources = slices.CompactFunc(resources, func(a, b *mcp.Resource) bool { return a.URI == b.URI })
	var matchers []*uritemplate.Template
	var kept []*mcp.ResourceTemplate
	for _, t := range templates {
		if t == nil {
			continue
		}
		m, err := uritemplate.New(t.URITemplate)
		if err != nil {
			g.cfg.logger.Warn("gateway: resource template skipped", "server", d.Name, "template", t.URITemplate, "err", err)
			continue
		}
		kept, matchers = append(kept, t), append(matchers, m)
	}
	k := &d.More
	k.Mu.Lock()
	k.Resources, k.Templates, k.Matchers = resources, kept, matchers
	k.Mu.Unlock()
	g.serveResources(d, resources, kept)
}

// serveResources puts d's resources and templates on the MCP server under
// the URIs shown, changing only what changed.
func (g *gateway) serveResources(d *downstream.Child, resources []*mcp.Resource, templates []*mcp.ResourceTemplate) {
	st := &g.relayed
	st.resMu.Lock()
	defer st.resMu.Unlock()
	old := st.shown[d]
	next := shownResources{resources: map[string]string{}, templates: map[string]string{}}
	for _, r := range resources {
		c := *r
		c.URI = g.outURI(d, r.URI)
		def, _ := json.Marshal(&c)
		next.resources[c.URI] = string(def)
		if old.resources[c.URI] == string(def) {
			continue
		}
		if err := guard(func() { g.srv.AddResource(&c, g.readHandler) }); err != nil {
			g.cfg.logger.Warn("gateway: resource not served", "server", d.Name, "uri", r.URI, "err", err)
			delete(next.resources, c.URI)
		}
	}
	for _, t := range templates {
		c := *t
		c.URITemplate = g.outURI(d, t.URITemplate)
		def, _ := json.Marshal(&c)
		next.templates[c.URITemplate] = string(def)
		if old.templates[c.URITemplate] == string(def) {
			continue
		}
		if err := guard(func() { g.srv.AddResourceTemplate(&c, g.readHandler) }); err != nil {
			g.cfg.logger.Warn("gateway: resource template not served", "server", d.Name, "template", t.URITemplate, "err", err)
			delete(next.templates, c.URITemplate)
		}
	}
	if gone := goneFrom(old.resources, next.resources); len(gone) > 0 {
		g.srv.RemoveResources(gone...)
	}
	if gone := goneFrom(old.templates, next.templates); len(gone) > 0 {
		g.srv.RemoveResourceTemplates(gone...)
	}
	st.shown[d] = next
}

// guard runs f, which adds a definition from a downstream to the MCP
// server: the SDK panics on one it cannot serve, which is an error here,
// never a crash.
func guard(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}

// readHandler is the handler of every resource and template the gateway
// serves. Reads never reach it (the relayedKinds middleware routes each
// one, listed or not); it is there for the SDK's sake.
func (g *gateway) readHandler(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return g.readResource(ctx, req)
}

// readResource reads the resource req names from the downstream its URI
// routes to, relaying the read's progress and logs, and returns the
// contents with their URIs in that downstream's form.
func (g *gateway) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	d, own, err := g.routeStarting(ctx, req.Params.URI)
	if err != nil {
		return nil, routeError(err)
	}
	params := &mcp.ReadResourceParams{URI: own, InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState}
	var res *mcp.ReadResourceResult
	err = g.toDownstream(ctx, d, req, params, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.ReadResource(ctx, params)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, c := range res.Contents {
		if c != nil {
			c.URI = g.outURI(d, c.URI)
		}
	}
	return res, nil
}

// routeError is the JSON-RPC error of a URI that routes to no downstream:
// invalid params (as MCP answers a resource not found), with the forms
// that would route in its data.
func routeError(err error) error {
	var re *relay.RouteError
	if !errors.As(err, &re) {
		return err
	}
	data, _ := json.Marshal(map[string]any{"uri": re.URI, "forms": re.Forms})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: re.Error(), Data: data}
}

// subscribe subscribes the caller to a resource: the SDK records the
// caller's subscription under the URI shown, as the gateway writes it (a
// form's scheme in any case routes, but updates go out as the gateway
// writes the form, and the SDK matches them exactly); the downstream its
// URI routes to is subscribed once for all its callers.
func (g *gateway) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	d, own, err := g.routeStarting(ctx, req.Params.URI)
	if err != nil {
		return routeError(err)
	}
	req.Params.URI = g.outURI(d, own)
	k := &d.More
	k.Mu.Lock()
	if k.Subs == nil {
		k.Subs = map[string]int{}
	}
	k.Subs[own]++
	first := k.Subs[own] == 1
	k.Mu.Unlock()
	if !first {
		return nil
	}
	params := &mcp.SubscribeParams{URI: own}
	err = g.toDownstream(ctx, d, req, params, func(ctx context.Context, cs *mcp.ClientSession) error {
		return cs.Subscribe(ctx, params)
	})
	if err != nil {
		k.Mu.Lock()
		k.Subs[own]--
		if k.Subs[own] <= 0 {
			delete(k.Subs, own)
		}
		k.Mu.Unlock()
	}
	return err
}

// unsubscribe ends the caller's subscription, under the URI as the
// gateway writes it (see subscribe); the downstream is unsubscribed when
// its last caller is.
func (g *gateway) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	d, own, err := g.routeStarting(ctx, req.Params.URI)
	if err != nil {
		return routeError(err)
	}
	req.Params.URI = g.outURI(d, own)
	k := &d.More
	k.Mu.Lock()
	last := k.Subs[own] == 1
	if k.Subs[own] > 0 {
		k.Subs[own]--
	}
	if k.Subs[own] == 0 {
		delete(k.Subs, own)
	}
	k.Mu.Unlock()
	if !last {
		return nil
	}
	params := &mcp.UnsubscribeParams{URI: own}
	return g.toDownstream(ctx, d, req, params, func(ctx context.Context, cs *mcp.ClientSession) error {
		return cs.Unsubscribe(ctx, params)
	})
}

// resubscribe subscribes a new session with d to every URI its callers
// are subscribed to: a restarted downstream has forgotten them.
func (g *gateway) resubscribe(d *downstream.Child, cs *mcp.ClientSession) {
	k := &d.More
	k.Mu.Lock()
	uris := make([]string, 0, len(k.Subs))
	for uri := range k.Subs {
		uris = append(uris, uri)
	}
	k.Mu.Unlock()
	for _, uri := range uris {
		ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			g.cfg.logger.Warn("gateway: subscribing again after a restart", "server", d.Name, "uri", uri, "err", err)
		}
		cancel()
	}
}

// resourceUpdated relays d's update of a resource to the callers
// subscribed to it, under the URI shown. It runs on d's reading
// goroutine, so the sending is left to a goroutine of its own, bounded by
// the gateway's timeout.
func (g *gateway) resourceUpdated(d *downstream.Child, p *mcp.ResourceUpdatedNotificationParams) {
	if p == nil {
		return
	}
	out := &mcp.ResourceUpdatedNotificationParams{URI: g.outURI(d, p.URI)}
	go func() {
		defer g.recoverIn("notifications/resources/updated")
		ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
		defer cancel()
		_ = g.srv.ResourceUpdated(ctx, out)
	}()
}

// relayedState is the gateway's state for what it relays beyond tools.
type relayedState struct {
	formURIs atomic.Bool // set once by start: URIs are shown in forms
	resMu    sync.Mutex
	shown    map[*downstream.Child]shownResources // guarded by resMu
	prompts  promptChain
}
