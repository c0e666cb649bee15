package relay

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
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
func (ks *Kinds) setResources(d *downstream.Child, resources []*mcp.Resource, templates []*mcp.ResourceTemplate) {
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
			ks.logger.Warn("gateway: resource template skipped", "server", d.Name, "template", t.URITemplate, "err", err)
			continue
		}
		kept, matchers = append(kept, t), append(matchers, m)
	}
	k := &d.More
	k.Mu.Lock()
	k.Resources, k.Templates, k.Matchers = resources, kept, matchers
	k.Mu.Unlock()
	ks.serveResources(d, resources, kept)
}

// serveResources puts d's resources and templates on the MCP server under
// the URIs shown, changing only what changed.
func (ks *Kinds) serveResources(d *downstream.Child, resources []*mcp.Resource, templates []*mcp.ResourceTemplate) {
	ks.resMu.Lock()
	defer ks.resMu.Unlock()
	old := ks.shown[d]
	next := shownResources{resources: map[string]string{}, templates: map[string]string{}}
	for _, r := range resources {
		c := *r
		c.URI = ks.forms.Out(d.Name, r.URI)
		def, _ := json.Marshal(&c)
		next.resources[c.URI] = string(def)
		if old.resources[c.URI] == string(def) {
			continue
		}
		if err := Guard(func() { ks.srv.AddResource(&c, ks.readHandler) }); err != nil {
			ks.logger.Warn("gateway: resource not served", "server", d.Name, "uri", r.URI, "err", err)
			delete(next.resources, c.URI)
		}
	}
	for _, t := range templates {
		c := *t
		c.URITemplate = ks.forms.Out(d.Name, t.URITemplate)
		def, _ := json.Marshal(&c)
		next.templates[c.URITemplate] = string(def)
		if old.templates[c.URITemplate] == string(def) {
			continue
		}
		if err := Guard(func() { ks.srv.AddResourceTemplate(&c, ks.readHandler) }); err != nil {
			ks.logger.Warn("gateway: resource template not served", "server", d.Name, "template", t.URITemplate, "err", err)
			delete(next.templates, c.URITemplate)
		}
	}
	if gone := GoneFrom(old.resources, next.resources); len(gone) > 0 {
		ks.srv.RemoveResources(gone...)
	}
	if gone := GoneFrom(old.templates, next.templates); len(gone) > 0 {
		ks.srv.RemoveResourceTemplates(gone...)
	}
	ks.shown[d] = next
}

// readHandler is the handler of every resource and template the gateway
// serves. Reads never reach it (the Middleware routes each
// one, listed or not); it is there for the SDK's sake.
func (ks *Kinds) readHandler(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return ks.readResource(ctx, req)
}

// readResource reads the resource req names from the downstream its URI
// routes to, relaying the read's progress and logs, and returns the
// contents with their URIs in that downstream's form.
func (ks *Kinds) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	d, own, err := ks.routeStarting(ctx, req.Params.URI)
	if err != nil {
		return nil, routeError(err)
	}
	params := &mcp.ReadResourceParams{URI: own, InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState}
	var res *mcp.ReadResourceResult
	err = ks.toDownstream(ctx, d, req, params, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.ReadResource(ctx, params)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, c := range res.Contents {
		if c != nil {
			c.URI = ks.forms.Out(d.Name, c.URI)
		}
	}
	return res, nil
}

// routeError is the JSON-RPC error of a URI that routes to no downstream:
// invalid params (as MCP answers a resource not found), with the forms
// that would route in its data.
func routeError(err error) error {
	var re *RouteError
	if !errors.As(err, &re) {
		return err
	}
	data, _ := json.Marshal(map[string]any{"uri": re.URI, "forms": re.Forms})
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: re.Error(), Data: data}
}

// Subscribe subscribes the caller to a resource: the SDK records the
// caller's subscription under the URI shown, as the gateway writes it (a
// form's scheme in any case routes, but updates go out as the gateway
// writes the form, and the SDK matches them exactly); the downstream its
// URI routes to is subscribed once for all its callers.
func (ks *Kinds) Subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	d, own, err := ks.routeStarting(ctx, req.Params.URI)
	if err != nil {
		return routeError(err)
	}
	req.Params.URI = ks.forms.Out(d.Name, own)
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
	err = ks.toDownstream(ctx, d, req, params, func(ctx context.Context, cs *mcp.ClientSession) error {
		return d.OnSubscriptions(cs, func(s *mcp.ClientSession) error { return s.Subscribe(ctx, params) })
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

// Unsubscribe ends the caller's subscription, under the URI as the
// gateway writes it (see Subscribe); the downstream is unsubscribed when
// its last caller is.
func (ks *Kinds) Unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	d, own, err := ks.routeStarting(ctx, req.Params.URI)
	if err != nil {
		return routeError(err)
	}
	req.Params.URI = ks.forms.Out(d.Name, own)
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
	return ks.toDownstream(ctx, d, req, params, func(ctx context.Context, cs *mcp.ClientSession) error {
		return d.OnSubscriptions(cs, func(s *mcp.ClientSession) error { return s.Unsubscribe(ctx, params) })
	})
}

// Resubscribe subscribes a new session with d, cs, to every URI its
// callers are subscribed to: a restarted downstream has forgotten them,
// and a listening session just opened has none yet. As every
// subscription, they go where d.OnSubscriptions says: a call session
// beside a listening one to come makes none.
func (ks *Kinds) Resubscribe(d *downstream.Child, cs *mcp.ClientSession) {
	k := &d.More
	k.Mu.Lock()
	uris := make([]string, 0, len(k.Subs))
	for uri := range k.Subs {
		uris = append(uris, uri)
	}
	k.Mu.Unlock()
	for _, uri := range uris {
		ctx, cancel := context.WithTimeout(ks.ctx, ks.timeout)
		err := d.OnSubscriptions(cs, func(s *mcp.ClientSession) error { return s.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}) })
		if err != nil {
			ks.logger.Warn("gateway: subscribing again after a restart", "server", d.Name, "uri", uri, "err", err)
		}
		cancel()
	}
}

// ResourceUpdated relays d's update of a resource to the callers
// subscribed to it, under the URI shown. It runs on the reading goroutine
// of d's session, so the sending is left to a goroutine of its own, bounded by
// the gateway's timeout.
func (ks *Kinds) ResourceUpdated(d *downstream.Child, p *mcp.ResourceUpdatedNotificationParams) {
	if p == nil {
		return
	}
	out := &mcp.ResourceUpdatedNotificationParams{URI: ks.forms.Out(d.Name, p.URI)}
	go func() {
		defer ks.recoverIn("notifications/resources/updated")
		ctx, cancel := context.WithTimeout(ks.ctx, ks.timeout)
		defer cancel()
		_ = ks.srv.ResourceUpdated(ctx, out)
	}()
}

// routeURI returns the downstream a URI the gateway showed routes to, and
// the downstream's own URI: with one downstream, that one and the URI as
// it is; with several, the downstream its form names. A bare URI, then,
// is a *RouteError listing the forms of the downstreams whose listings
// or templates cover it, and so is a form that names no downstream.
func (ks *Kinds) routeURI(uri string) (*downstream.Child, string, error) {
	ds := ks.downstreams()
	if !ks.forms.On() {
		if len(ds) == 1 {
			return ds[0], uri, nil
		}
		// Started with one server, joined by others (as the demo and the
		// tests do, never the flags): a URI as written routes to the one
		// server whose listings cover it.
		var to *downstream.Child
		for _, d := range ds {
			if d.More.Covers(uri) {
				if to != nil {
					return nil, "", fmt.Errorf("%q is served by more than one server", uri)
				}
				to = d
			}
		}
		if to == nil {
			return nil, "", fmt.Errorf("no server serves %q", uri)
		}
		return to, uri, nil
	}
	if prefix, own, ok := SplitForm(uri); ok {
		for _, d := range ds {
			if FormPrefix(d.Name) == prefix {
				return d, own, nil
			}
		}
		return nil, "", &RouteError{URI: uri}
	}
	if IsForm(uri) {
		return nil, "", &RouteError{URI: uri}
	}
	var forms []string
	for _, d := range ds {
		if d.More.Covers(uri) {
			forms = append(forms, FormPrefix(d.Name)+uri)
		}
	}
	slices.Sort(forms)
	return nil, "", &RouteError{URI: uri, Forms: forms}
}

// startURI waits, for a URI that routes to d, until d's first listing of
// its resources is done, while the start lasts; a URI that routes to no
// downstream waits for every downstream's first listing (their listings
// tell which downstreams cover a bare URI). It reports whether d is,
// after the wait, not connected yet: resource_unavailable.
func (ks *Kinds) startURI(ctx context.Context, d *downstream.Child) (unavailable bool) {
	if d == nil {
		ks.awaitStart(ctx, ks.ready)
		return false
	}
	return !ks.awaitStart(ctx, d.KindsListed.Done()) || d.Session() == nil
}

// routeStarting is routeURI for a request that routes by uri, with the
// start's wait (see startURI): a downstream not connected yet is a
// resource_unavailable error.
func (ks *Kinds) routeStarting(ctx context.Context, uri string) (*downstream.Child, string, error) {
	d, own, err := ks.routeURI(uri)
	if err != nil {
		select {
		case <-ks.ready:
			return nil, "", err
		default:
		}
		ks.startURI(ctx, nil)
		if d, own, err = ks.routeURI(uri); err != nil {
			return nil, "", err
		}
	}
	if ks.startURI(ctx, d) {
		return nil, "", downstream.UnavailableError(uri)
	}
	return d, own, nil
}
