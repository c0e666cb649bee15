package gateway

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/relay"
)

// This file is what the gateway keeps of each downstream beyond its tools
// (its prompts, resources and resource templates), how it lists them, and
// how it writes the URIs of one downstream's results in that downstream's
// form (see uriform.go). The prompts are named in a chain of their own
// (prompts.go); the resources are served under their forms (resources.go).

// capped caps the items of one listing at maxTools, as the tools are.
func capped[T any](g *gateway, d *downstream.Child, what string, items []T) []T {
	if len(items) > maxTools {
		g.cfg.logger.Warn("gateway: too many "+what+"; the rest are not served", "server", d.Name, "max", maxTools)
		items = items[:maxTools]
	}
	return items
}

// relistKinds lists what d offers beyond its tools, as its initialize
// result declares, and serves what changed: its resources and templates at
// once, its prompts through a round of the prompt chain. A listing that
// fails keeps the previous one, and is logged.
func (g *gateway) relistKinds(d *downstream.Child, cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
	defer cancel()
	caps := &mcp.ServerCapabilities{}
	if init := cs.InitializeResult(); init != nil && init.Capabilities != nil {
		caps = init.Capabilities
	}
	if caps.Prompts != nil {
		prompts, err := listAll(cs.Prompts(ctx, nil))
		if err != nil {
			g.cfg.logger.Warn("gateway: listing prompts", "server", d.Name, "err", err)
		} else if g.setPrompts(d, capped(g, d, "prompts", prompts)) {
			g.promptsChanged()
		}
	} else if d.More.ListedOnce() {
		g.promptsChanged() // a round tells the requests waiting for it (see starting.go)
	}
	defer d.KindsListed.Open()
	if caps.Resources != nil {
		resources, err := listAll(cs.Resources(ctx, nil))
		if err == nil {
			var templates []*mcp.ResourceTemplate
			templates, err = listAll(cs.ResourceTemplates(ctx, nil))
			if err == nil {
				g.setResources(d, capped(g, d, "resources", resources), capped(g, d, "resource templates", templates))
			}
		}
		if err != nil {
			g.cfg.logger.Warn("gateway: listing resources", "server", d.Name, "err", err)
		}
	}
}

// listAll collects a paginated listing, stopping past maxTools items.
func listAll[T any](seq func(func(T, error) bool)) ([]T, error) {
	var all []T
	for item, err := range seq {
		if err != nil {
			return nil, err
		}
		all = append(all, item)
		if len(all) > maxTools {
			break
		}
	}
	return all, nil
}

// setPrompts replaces d's prompts with the listing, but for prompts
// without a valid name, names listed twice, and new prompts beyond the cap
// on distinct prompts (maxEver); it reports whether they changed.
func (g *gateway) setPrompts(d *downstream.Child, listed []*mcp.Prompt) bool {
	var kept []*mcp.Prompt
	seen := map[string]bool{}
	for _, p := range listed {
		if p == nil || p.Name == "" || !utf8.ValidString(p.Name) || seen[p.Name] {
			g.cfg.logger.Warn("gateway: prompt skipped: empty, invalid or listed twice", "server", d.Name)
			continue
		}
		seen[p.Name] = true
		kept = append(kept, p)
	}
	slices.SortFunc(kept, func(a, b *mcp.Prompt) int { return strings.Compare(a.Name, b.Name) })
	k := &d.More
	k.Mu.Lock()
	defer k.Mu.Unlock()
	if k.Ever == nil {
		k.Ever = map[string]bool{}
	}
	refused := 0
	kept = slices.DeleteFunc(kept, func(p *mcp.Prompt) bool {
		if k.Ever[p.Name] {
			return false
		}
		if len(k.Ever) >= maxEver {
			refused++
			return true
		}
		k.Ever[p.Name] = true
		return false
	})
	if refused > 0 {
		g.cfg.logger.Warn("gateway: server has had too many distinct prompts; its new prompts are refused", "server", d.Name, "max", maxEver, "refused", refused)
	}
	// The first listing starts a round even when it lists no prompt:
	// the round tells the requests waiting for it (see starting.go).
	first := !k.Listed
	k.Listed = true
	if slices.EqualFunc(k.Prompts, kept, samePrompt) {
		return first
	}
	k.Prompts = kept
	return true
}

// samePrompt reports whether two listings of a prompt are alike.
func samePrompt(a, b *mcp.Prompt) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		slices.EqualFunc(a.Arguments, b.Arguments, func(x, y *mcp.PromptArgument) bool { return *x == *y })
}

// clientHandlers sets, on the options of the gateway's client of d, the
// handlers of what d sends beyond its tools' changes: list changes of the
// other kinds (relisted on the session's goroutine, see session),
// resource updates, relayed to the callers subscribed to them, and
// sampling and elicitation requests (see sampling.go).
//
// A result by which d asks for input (MCP 2026-07-28: input requests in
// the result, and the request again with the answers) goes back to the
// caller as it is, and the caller's answers go on to d: so the question
// reaches the very caller whose request it answers, on any protocol
// version (the SDK asks a caller before 2026-07-28 itself, and calls the
// gateway again with the answers), and on any replica, since the
// request carries its own state.
func (g *gateway) clientHandlers(d *downstream.Child, opts *mcp.ClientOptions) {
	opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	kindsChanged := func() {
		select {
		case d.KindsChanged <- struct{}{}:
		default: // one is pending already
		}
	}
	opts.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { kindsChanged() }
	opts.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { kindsChanged() }
	opts.ResourceUpdatedHandler = func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		g.resourceUpdated(d, req.Params)
	}
	relay.SamplingHandlers(&d.InFlight, opts)
}

// route returns the downstream a URI the gateway showed routes to, and
// the downstream's own URI: with one downstream, that one and the URI as
// it is; with several, the downstream its form names. A bare URI, then,
// is a *relay.RouteError listing the forms of the downstreams whose listings
// or templates cover it, and so is a form that names no downstream.
func (g *gateway) routeURI(uri string) (*downstream.Child, string, error) {
	g.mu.Lock()
	ds := make([]*downstream.Child, 0, len(g.downstreams))
	for _, d := range g.downstreams {
		ds = append(ds, d)
	}
	g.mu.Unlock()
	if !g.uriForms() {
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
	if prefix, own, ok := relay.SplitForm(uri); ok {
		for _, d := range ds {
			if relay.FormPrefix(d.Name) == prefix {
				return d, own, nil
			}
		}
		return nil, "", &relay.RouteError{URI: uri}
	}
	if relay.IsForm(uri) {
		return nil, "", &relay.RouteError{URI: uri}
	}
	var forms []string
	for _, d := range ds {
		if d.More.Covers(uri) {
			forms = append(forms, relay.FormPrefix(d.Name)+uri)
		}
	}
	slices.Sort(forms)
	return nil, "", &relay.RouteError{URI: uri, Forms: forms}
}

// relayedKinds is the gateway's receiving middleware for what it relays
// beyond tools: the first prompts/list waits for the first round of the
// prompt chain, as the first tools/list does for the tools' chain; every
// resources/read is routed by its URI (a listed resource or not: a URI
// inside a result routes home too); a prompts/get of a name this replica
// does not serve yet is looked up in the prompt store (see routePrompt).
func (g *gateway) relayedKinds(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.ListPromptsRequest:
			select {
			case <-g.relayed.prompts.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case *mcp.ReadResourceRequest:
			if method == "resources/read" && r.Params != nil {
				res, err := g.readResource(ctx, r)
				if err != nil {
					return nil, err
				}
				return res, nil
			}
		case *mcp.GetPromptRequest:
			if method != "prompts/get" || r.Params == nil {
				break
			}
			if _, ok := g.relayed.prompts.table.Load().byName[r.Params.Name]; !ok {
				res, err := g.getPrompt(ctx, r)
				if err != nil {
					return nil, err
				}
				return res, nil
			}
		}
		return next(ctx, method, req)
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
// clientHandlers).
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
