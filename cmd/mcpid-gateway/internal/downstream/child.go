package downstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpid/mcpid"
)

// Caps on what one downstream server can make the gateway hold, so that a
// server that lists without end costs only its own tools, prompts and
// resources.
const (
	// MaxListed bounds the items taken from one listing of one kind
	// (tools, prompts, resources, resource templates).
	MaxListed = 1000
	// MaxEver bounds the distinct tools, and apart from them the
	// distinct prompts, of one server that a chain names over its whole
	// life: each is remembered for good, so that its name is never given
	// to another. Beyond it, new ones of that server are refused; those
	// already named keep their names.
	MaxEver = 10_000
)

// Child is one downstream server as the gateway runs it: its name and
// transport, its session, what it lists, and the signals of its start.
// The gateway's engine (package gateway) connects, lists and restarts
// it; the relay of what is not a tool (package relay) reads its session
// and what it lists beyond its tools.
//
// Calls take no lock of a Child: they read its session through an atomic
// pointer (see [Child.Session]). The fields under "guarded by the owner's
// mutex" are guarded by the mutex under which the gateway keeps its table
// of downstreams (gateway.mu), which Child never takes itself; [Listings]
// has a mutex of its own, never held with that one.
type Child struct {
	Name      string        // the server's name, which the gateway's tables key it by
	Transport mcp.Transport // how to reach it; connected again to restart it

	session atomic.Pointer[mcp.ClientSession] // nil while it is not connected; stored by SetSession
	swap    sessionSwap                       // wakes the requests waiting for its next session

	// first is closed when the first attempt to connect and list is
	// over; firstErr is then its error.
	first     chan struct{}
	firstErr  error
	firstOnce sync.Once

	// Changed holds a tools/list_changed not yet acted on. Notifications
	// that arrive while one is pending merge into it.
	Changed chan struct{}
	// KindsChanged holds a list_changed of prompts or resources not yet
	// acted on, merged in the same way.
	KindsChanged chan struct{}

	// Guarded by the owner's mutex (gateway.mu): read or write these only
	// while holding it.
	Tools       []*mcp.Tool       // the tools it lists that the gateway serves, by name
	Defs        map[string]string // the JSON of each of Tools, by name
	Ever        map[string]bool   // the tools of it that the tools' chain has named
	ToolsListed bool              // it listed its tools once

	// InFlight holds the requests in flight to it, to relay their
	// progress, logs, sampling and elicitation to their callers.
	InFlight Relay

	// Answered is set when the session answers a request (a result or
	// a JSON-RPC error): a server that answers is not in a crash loop.
	Answered atomic.Bool

	// More is what it lists beyond its tools.
	More Listings

	// Remote is set, before it first connects, for a server reached over
	// HTTP: one whose server keeps sessions sends what it sends outside a
	// call (list changes, resource updates) on a second session of the
	// gateway's that only listens (see [Child.SetListener]).
	Remote   bool
	listener atomic.Pointer[mcp.ClientSession] // that session; nil while it is not open

	// Opened once its first listing of each kind is served: its tools by
	// a round of the tools' chain, its prompts by a round of the prompt
	// chain, its resources at once. A request that routes to it waits
	// for them while the gateway starts.
	ToolsServed, PromptsServed, KindsListed *Latch
}

// NewChild returns the downstream server name reached through transport,
// not connected yet.
func NewChild(name string, transport mcp.Transport) *Child {
	return &Child{
		Name:      name,
		Transport: transport,
		first:     make(chan struct{}),
		Changed:   make(chan struct{}, 1),
		Ever:      map[string]bool{},

		KindsChanged: make(chan struct{}, 1),

		ToolsServed:   NewLatch(),
		PromptsServed: NewLatch(),
		KindsListed:   NewLatch(),
	}
}

// FirstAttempt records the end of c's first attempt to connect and list,
// with its error; later calls do nothing.
func (c *Child) FirstAttempt(err error) {
	c.firstOnce.Do(func() {
		c.firstErr = err
		close(c.first)
	})
}

// First returns a channel closed when c's first attempt to connect and
// list is over; [Child.FirstErr] is then its error.
func (c *Child) First() <-chan struct{} { return c.first }

// FirstErr returns the error of c's first attempt; call it only once
// [Child.First] is closed.
func (c *Child) FirstErr() error { return c.firstErr }

// Session returns c's session, or nil while it is not connected. It takes
// no lock.
func (c *Child) Session() *mcp.ClientSession { return c.session.Load() }

// sessionSwap tells the requests waiting for a downstream's next session
// that it is there.
type sessionSwap struct {
	mu   sync.Mutex
	next chan struct{} // closed when the next session is stored; nil while no one waits
}

// SetSession stores cs as c's session and wakes the requests waiting for
// a new one (see [Child.NextSession]).
func (c *Child) SetSession(cs *mcp.ClientSession) {
	c.swap.mu.Lock()
	defer c.swap.mu.Unlock()
	c.session.Store(cs)
	if c.swap.next != nil {
		close(c.swap.next)
		c.swap.next = nil
	}
}

// DropSession forgets c's session when it is still cs, once cs has ended.
func (c *Child) DropSession(cs *mcp.ClientSession) { c.session.CompareAndSwap(cs, nil) }

// ListensApart reports whether c's session cs has a listening session
// beside it: c is reached over HTTP and its server keeps sessions.
func (c *Child) ListensApart(cs *mcp.ClientSession) bool { return c.Remote && cs.ID() != "" }

// SetListener records ls as c's listening session (see [Child.Remote]).
func (c *Child) SetListener(ls *mcp.ClientSession) { c.listener.Store(ls) }

// DropListener forgets c's listening session when it is still ls.
func (c *Child) DropListener(ls *mcp.ClientSession) { c.listener.CompareAndSwap(ls, nil) }

// Listener returns c's listening session, or nil while none is open.
func (c *Child) Listener() *mcp.ClientSession { return c.listener.Load() }

// OnSubscriptions calls f with the session of c that holds its resource
// subscriptions: its listening session, on whose stream its server sends
// the updates, or else cs, the one that carries the calls. While a
// listening session is still to open, f is not called: once open, that
// session makes every subscription c's callers hold. (A caller's count
// changes before this looks, and the gateway records the session before
// it reads the counts, so none is missed; a subscription that meets both
// is made twice on one session, which a server takes as one.)
func (c *Child) OnSubscriptions(cs *mcp.ClientSession, f func(*mcp.ClientSession) error) error {
	if ls := c.listener.Load(); ls != nil {
		return f(ls)
	}
	if c.ListensApart(cs) {
		return nil
	}
	return f(cs)
}

// NextSession returns c's session once it is another than old, or nil
// when ctx ends first: a request that c's server refused for a session it
// no longer knows is sent again on the next.
func (c *Child) NextSession(ctx context.Context, old *mcp.ClientSession) *mcp.ClientSession {
	for {
		c.swap.mu.Lock()
		cs := c.session.Load()
		if cs != nil && cs != old {
			c.swap.mu.Unlock()
			return cs
		}
		if c.swap.next == nil {
			c.swap.next = make(chan struct{})
		}
		next := c.swap.next
		c.swap.mu.Unlock()
		select {
		case <-next:
		case <-ctx.Done():
			return nil
		}
	}
}

// Listings is what one downstream lists beyond its tools, and the
// resources its callers are subscribed to. Mu guards every field; it is
// its own lock, never held with the gateway's mutex.
type Listings struct {
	Mu        sync.Mutex
	Prompts   []*mcp.Prompt           // sorted by name
	Resources []*mcp.Resource         // sorted by URI, as the downstream wrote them
	Templates []*mcp.ResourceTemplate // sorted by template, as the downstream wrote them
	Matchers  []*uritemplate.Template // the templates' parsers, for the candidates of a bare URI
	Ever      map[string]bool         // the prompts of it that the prompt chain has named
	Listed    bool                    // its prompts were listed once (or it has none to list)
	Subs      map[string]int          // the downstream's own URIs subscribed to, by how many callers
}

// ListedOnce records that l's prompts were listed (a downstream without
// prompts lists none), and reports whether this is the first time.
func (l *Listings) ListedOnce() bool {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	first := !l.Listed
	l.Listed = true
	return first
}

// Covers reports whether l lists uri, or has a template that matches it.
func (l *Listings) Covers(uri string) bool {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	if _, found := slices.BinarySearchFunc(l.Resources, uri, func(r *mcp.Resource, uri string) int { return strings.Compare(r.URI, uri) }); found {
		return true
	}
	for _, m := range l.Matchers {
		if m.Match(uri) != nil {
			return true
		}
	}
	return false
}

// Latch is a signal given once: its channel closes at the first Open.
type Latch struct {
	once sync.Once
	c    chan struct{}
}

// NewLatch returns a latch not open yet.
func NewLatch() *Latch { return &Latch{c: make(chan struct{})} }

// Open closes the latch's channel, once.
func (l *Latch) Open() { l.once.Do(func() { close(l.c) }) }

// Done returns the channel that Open closes.
func (l *Latch) Done() <-chan struct{} { return l.c }

// AwaitStart waits until c closes, over closes (the gateway's start is
// over) or ctx is done, and reports whether c closed.
func AwaitStart(ctx context.Context, c, over <-chan struct{}) bool {
	select {
	case <-c:
		return true
	case <-over:
	case <-ctx.Done():
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// UnavailableError is the JSON-RPC error of a request that routes by a
// name (what) to a downstream that cannot answer now: the
// resource_unavailable envelope, which says that the request may be sent
// again, is its data.
func UnavailableError(what string) error {
	e := mcpid.NewError(mcpid.CodeResourceUnavailable,
		fmt.Sprintf("the server behind %q is not available", what), "try again later")
	data, err := json.Marshal(e)
	if err != nil {
		return errors.Join(e, err)
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: e.Error(), Data: data}
}
