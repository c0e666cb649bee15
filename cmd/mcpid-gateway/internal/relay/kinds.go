package relay

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/naming"
	"github.com/mcpid/mcpid/toolname"
)

// This file is the relay of what the gateway serves beyond tools (its
// downstreams' prompts, resources, resource templates, subscriptions and
// completion), as the engine (package gateway) builds it: what it is
// given of the engine, how it lists a downstream's kinds, and the
// middleware that routes the requests the SDK would not. The prompts are
// named in a chain of their own (prompts.go); the resources are served
// under the forms of uriform.go (resources.go); completion routes as
// either does (completion.go).

// Engine is what [Kinds] is given of the gateway that builds it. Every
// field is required but PromptStore, PromptBackup and PromptsReady.
type Engine struct {
	Ctx     context.Context  // ends when the gateway closes
	Server  *mcp.Server      // the gateway's MCP server, on which the kinds are served
	Logger  *slog.Logger     // where what goes wrong in the relay is logged
	Timeout time.Duration    // bound on each listing, naming round, store request and relayed request
	Profile toolname.Profile // the naming profile of the prompt chain, the tools' own
	// UpdateOptions returns the options of every naming round: those the
	// chains record, and the logger.
	UpdateOptions func() []toolname.Option
	PromptStore   toolname.Store // where the prompt chain lives; nil keeps it in this process
	PromptBackup  string         // the prompt chain's backup file; "" keeps none
	Forms         *Forms         // whether URIs are shown in forms

	// Downstreams returns the gateway's downstreams now, and Downstream
	// the one of a name (nil for none): the gateway takes its own mutex
	// (the one that guards its table of downstreams) to read them, and
	// Kinds holds no lock of its own meanwhile.
	Downstreams func() []*downstream.Child
	Downstream  func(name string) *downstream.Child
	// ToDownstream sends a caller's request req to d's session as out,
	// with f, registered with d's relay and within the timeout; a
	// downstream that is not connected is an error.
	ToDownstream func(ctx context.Context, d *downstream.Child, req mcp.Request, out mcp.Params, f func(context.Context, *mcp.ClientSession) error) error

	// Ready is closed when the gateway's first tools/list may be
	// answered; StartOver when a request that routes by a name waits no
	// longer for its first listing (see starting.go in package gateway).
	Ready, StartOver <-chan struct{}
	// PromptsReady is the channel Kinds closes after the prompt chain's
	// first round, whatever its outcome: the first prompts/list may then
	// be answered, and the gateway's /readyz waits for it too. nil gives
	// Kinds a channel of its own.
	PromptsReady chan struct{}
	// RecoverIn, deferred first in a goroutine Kinds starts for one
	// message, recovers a panic there and logs it.
	RecoverIn func(method string)
	// RoundErr is told of every prompt naming round's error (nil for a
	// round that succeeded), to stop the gateway on a chain mismatch.
	RoundErr func(c *naming.Chain, err error)
}

// Kinds relays, for the gateway, its downstreams' prompts, resources,
// resource templates, subscriptions and completion: it serves their
// listings on the gateway's MCP server (the prompts under the names of a
// chain of their own) and routes each request to the downstream it
// belongs to. Build it with [NewKinds]; its methods are safe for
// concurrent use. Requests take no lock but a downstream's [Listings]
// (and, to find the downstreams, the gateway's mutex, through
// Engine.Downstreams), and read the served prompts through an atomic
// pointer.
type Kinds struct {
	ctx           context.Context
	srv           *mcp.Server
	logger        *slog.Logger
	timeout       time.Duration
	profile       toolname.Profile
	updateOptions func() []toolname.Option
	forms         *Forms
	downstreams   func() []*downstream.Child
	downstream    func(name string) *downstream.Child
	toDownstream  func(ctx context.Context, d *downstream.Child, req mcp.Request, out mcp.Params, f func(context.Context, *mcp.ClientSession) error) error
	ready         <-chan struct{}
	startOver     <-chan struct{}
	recoverIn     func(method string)
	roundErr      func(c *naming.Chain, err error)

	resMu   sync.Mutex
	shown   map[*downstream.Child]shownResources // guarded by resMu
	prompts promptChain
}

// NewKinds returns the relay of the kinds beyond tools for the gateway
// e describes, with its prompt chain opened (its backup checked): an
// error is the chain's. Close it once the gateway's goroutines have
// ended.
func NewKinds(e Engine) (*Kinds, error) {
	ks := &Kinds{
		ctx: e.Ctx, srv: e.Server, logger: e.Logger, timeout: e.Timeout, profile: e.Profile,
		updateOptions: e.UpdateOptions, forms: e.Forms,
		downstreams: e.Downstreams, downstream: e.Downstream, toDownstream: e.ToDownstream,
		ready: e.Ready, startOver: e.StartOver, recoverIn: e.RecoverIn, roundErr: e.RoundErr,
		shown: map[*downstream.Child]shownResources{},
	}
	pc := &ks.prompts
	pc.ready = e.PromptsReady
	if pc.ready == nil {
		pc.ready = make(chan struct{})
	}
	pc.table.Store(&prompts{})
	store := e.PromptStore
	if store == nil {
		store = new(chainstore.Mem)
	}
	var err error
	pc.chain, err = naming.New("prompt", store, e.PromptBackup)
	if err != nil {
		return nil, err
	}
	return ks, nil
}

// Close closes the prompt chain's backup; the gateway calls it once every
// goroutine has ended.
func (ks *Kinds) Close() {
	ks.prompts.chain.Close()
}

// capped caps the items of one listing at downstream.MaxListed, as the tools are.
func capped[T any](ks *Kinds, d *downstream.Child, what string, items []T) []T {
	if len(items) > downstream.MaxListed {
		ks.logger.Warn("gateway: too many "+what+"; the rest are not served", "server", d.Name, "max", downstream.MaxListed)
		items = items[:downstream.MaxListed]
	}
	return items
}

// Relist lists what d offers beyond its tools, as its initialize
// result declares, and serves what changed: its resources and templates at
// once, its prompts through a round of the prompt chain. A listing that
// fails keeps the previous one, and is logged. The gateway calls it on
// d's session goroutine, at connect and on every list change.
func (ks *Kinds) Relist(d *downstream.Child, cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(ks.ctx, ks.timeout)
	defer cancel()
	caps := &mcp.ServerCapabilities{}
	if init := cs.InitializeResult(); init != nil && init.Capabilities != nil {
		caps = init.Capabilities
	}
	if caps.Prompts != nil {
		prompts, err := listAll(cs.Prompts(ctx, nil))
		if err != nil {
			ks.logger.Warn("gateway: listing prompts", "server", d.Name, "err", err)
		} else if ks.setPrompts(d, capped(ks, d, "prompts", prompts)) {
			ks.PromptsChanged()
		}
	} else if d.More.ListedOnce() {
		ks.PromptsChanged() // a round tells the requests waiting for it (see awaitStart)
	}
	defer d.KindsListed.Open()
	if caps.Resources != nil {
		resources, err := listAll(cs.Resources(ctx, nil))
		if err == nil {
			var templates []*mcp.ResourceTemplate
			templates, err = listAll(cs.ResourceTemplates(ctx, nil))
			if err == nil {
				ks.setResources(d, capped(ks, d, "resources", resources), capped(ks, d, "resource templates", templates))
			}
		}
		if err != nil {
			ks.logger.Warn("gateway: listing resources", "server", d.Name, "err", err)
		}
	}
}

// listAll collects a paginated listing, stopping past downstream.MaxListed items.
func listAll[T any](seq func(func(T, error) bool)) ([]T, error) {
	var all []T
	for item, err := range seq {
		if err != nil {
			return nil, err
		}
		all = append(all, item)
		if len(all) > downstream.MaxListed {
			break
		}
	}
	return all, nil
}

// ClientHandlers sets, on the options of the gateway's client of d, the
// handlers of what d sends beyond its tools' changes: list changes of the
// other kinds (relisted on the session's goroutine, see [Kinds.Relist]),
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
func (ks *Kinds) ClientHandlers(d *downstream.Child, opts *mcp.ClientOptions) {
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
		ks.ResourceUpdated(d, req.Params)
	}
	SamplingHandlers(&d.InFlight, opts)
}

// Middleware is the gateway's receiving middleware for what it relays
// beyond tools: the first prompts/list waits for the first round of the
// prompt chain, as the first tools/list does for the tools' chain; every
// resources/read is routed by its URI (a listed resource or not: a URI
// inside a result routes home too); a prompts/get of a name this replica
// does not serve yet is looked up in the prompt store (see routePrompt).
func (ks *Kinds) Middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.ListPromptsRequest:
			select {
			case <-ks.prompts.ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case *mcp.ReadResourceRequest:
			if method == "resources/read" && r.Params != nil {
				res, err := ks.readResource(ctx, r)
				if err != nil {
					return nil, err
				}
				return res, nil
			}
		case *mcp.GetPromptRequest:
			if method != "prompts/get" || r.Params == nil {
				break
			}
			if _, ok := ks.prompts.table.Load().byName[r.Params.Name]; !ok {
				res, err := ks.getPrompt(ctx, r)
				if err != nil {
					return nil, err
				}
				return res, nil
			}
		}
		return next(ctx, method, req)
	}
}

// A request that routes by a name (prompts/get, resources/read,
// completion/complete, resources/subscribe) to a replica that has not yet
// listed what the name routes to waits, while the start lasts, for that
// listing, as a tools/call does (see starting.go in package gateway, which
// says why); then it is routed, or answered resource_unavailable
// (retryable), never "unknown".

// awaitStart waits until c closes, the start is over, or ctx is done, and
// reports whether c closed.
func (ks *Kinds) awaitStart(ctx context.Context, c <-chan struct{}) bool {
	return downstream.AwaitStart(ctx, c, ks.startOver)
}

// storedKey returns the key that the stored table of chain c gives name,
// or the lookup's error, as the gateway's storedKey does for tools:
// served is the table this replica serves its names from; a name it does
// not hold is looked up in the store (see naming.Chain.Lookup).
func (ks *Kinds) storedKey(ctx context.Context, c *naming.Chain, served *toolname.Table, name string) (toolname.Key, error) {
	if k, ok := served.Key(name); ok {
		return k, nil
	}
	return c.Lookup(ctx, name, ks.timeout)
}

// Guard runs f, which adds a definition from a downstream to the MCP
// server: the SDK panics on one it cannot serve, which is an error here,
// never a crash.
func Guard(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	f()
	return nil
}

// GoneFrom returns the names that old serves and next does not: those to
// remove from the MCP server.
func GoneFrom[V, W any](old map[string]V, next map[string]W) []string {
	var gone []string
	for name := range old {
		if _, ok := next[name]; !ok {
			gone = append(gone, name)
		}
	}
	return gone
}
