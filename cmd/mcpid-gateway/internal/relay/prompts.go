package relay

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/downstream"
	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/naming"
	"github.com/mcpid/mcpid/toolname"
)

// This file relays prompts, under names kept exactly as tool names are: a
// prompt keeps its own name while one downstream has it, is qualified on a
// collision, and a name is never given to another prompt, stored before
// it is served and shared by every replica. The names are a second chain
// of the same store ([toolname.Update] over keys {server, prompt}): in
// Redis and PostgreSQL the chain "<chain>/prompts" (which is why -chain
// may not hold a "/"), and beside a -state, -backup or -seed file the
// file "<FILE>.prompts". It records, and is checked against, the same
// -profile, -qualify and -max-len as the tools' chain, and is kept by the
// same code (a [naming.Chain]): its -backup is checked, and a name it does not
// serve looked up, by the tools' rules.
//
// One goroutine (PromptLoop) runs the prompt chain's naming rounds, apart
// from the tools' assigner: a round of one chain never waits on the other.

// promptChain is the state of the prompt chain.
type promptChain struct {
	chain     *naming.Chain // the names; its rounds run on PromptLoop
	ready     chan struct{} // closed after the first round: the first prompts/list may be answered
	readyOnce sync.Once
	table     atomic.Pointer[prompts] // what is served now
}

// prompts is the served prompt table: immutable, read without locks.
type prompts struct {
	names  *toolname.Table // the stored table the names come from
	byName map[string]servedPrompt
}

// servedPrompt is one prompt the gateway serves under a name.
type servedPrompt struct {
	key    toolname.Key
	d      *downstream.Child
	prompt *mcp.Prompt // as the downstream listed it
}

// PromptsChanged tells PromptLoop that some downstream's prompts, or the
// prompt store's table, changed.
func (ks *Kinds) PromptsChanged() {
	ks.prompts.chain.Changed()
}

// PromptLoop runs the prompt chain's rounds (see naming.Chain.Rounds): one at
// once, then one per change. The first prompts/list waits for the first
// round, whatever its outcome. A chain that records other naming options
// stops the gateway, as the tools' does (Engine.RoundErr). It returns when
// the gateway closes; the gateway runs it on a goroutine of its own.
func (ks *Kinds) PromptLoop() {
	pc := &ks.prompts
	pc.chain.Changed()
	pc.chain.Rounds(ks.ctx, ks.logger, nil, ks.namePrompts, func(err error) {
		ks.roundErr(pc.chain, err)
		pc.readyOnce.Do(func() { close(pc.ready) })
	})
}

// FollowPrompts starts a prompt round whenever the prompt store tells that
// a table was stored (see naming.Chain.Watch), until the gateway closes.
func (ks *Kinds) FollowPrompts() {
	ks.prompts.chain.Watch(ks.ctx, ks.logger)
}

// livePrompts returns the prompts every downstream lists now, and the
// downstreams that have listed their prompts once.
func (ks *Kinds) livePrompts() (map[toolname.Key]servedPrompt, []*downstream.Child) {
	ds := ks.downstreams()
	live := map[toolname.Key]servedPrompt{}
	var listed []*downstream.Child
	for _, d := range ds {
		d.More.Mu.Lock()
		if d.More.Listed {
			listed = append(listed, d)
		}
		for _, p := range d.More.Prompts {
			k := toolname.Key{Server: d.Name, Tool: p.Name}
			live[k] = servedPrompt{key: k, d: d, prompt: p}
		}
		d.More.Mu.Unlock()
	}
	return live, listed
}

// namePrompts is one round of the prompt chain, as the gateway's
// nameTools is of the tools' chain: the names come from [toolname.Update] with the keys of
// the prompts listed now, so that each is stored before it is served.
func (ks *Kinds) namePrompts() error {
	c := ks.prompts.chain
	live, listed := ks.livePrompts()
	ctx, cancel := context.WithTimeout(ks.ctx, ks.timeout)
	defer cancel()
	err := c.Update(ctx, ks.profile, naming.KeysOf(live), ks.updateOptions())
	ks.servePrompts(live)
	for _, d := range listed {
		d.PromptsServed.Open()
	}
	if err != nil {
		return fmt.Errorf("naming prompts: %w", err)
	}
	ks.countPromptsEver()
	return c.KeepBackup(ctx)
}

// servePrompts puts the live prompts that the stored table names on the
// MCP server, changing only what changed.
func (ks *Kinds) servePrompts(live map[toolname.Key]servedPrompt) {
	pc := &ks.prompts
	old := pc.table.Load().byName
	next := &prompts{names: pc.chain.Stored(), byName: map[string]servedPrompt{}}
	for k, name := range pc.chain.Stored().All() {
		sp, ok := live[k]
		if ok && ks.profile.Valid(name) {
			next.byName[name] = sp
		}
	}
	if gone := GoneFrom(old, next.byName); len(gone) > 0 {
		ks.srv.RemovePrompts(gone...)
	}
	// Routing knows the added names before the SDK lists them.
	pc.table.Store(next)
	for name, sp := range next.byName {
		if o, ok := old[name]; ok && o.key == sp.key && o.prompt == sp.prompt {
			continue
		}
		p := *sp.prompt
		p.Name = name
		if err := Guard(func() { ks.srv.AddPrompt(&p, ks.getPrompt) }); err != nil {
			ks.logger.Warn("gateway: prompt not served", "server", sp.key.Server, "prompt", sp.key.Tool, "err", err)
		}
	}
}

// getPrompt is the handler of every prompt the gateway serves: it sends
// prompts/get, with the downstream's own prompt name and the arguments as
// they came, to the downstream the name routes to.
func (ks *Kinds) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	ctx, cancel := context.WithTimeout(ctx, ks.timeout) // the lookup and the request: one -timeout
	defer cancel()
	sp, err := ks.prompt(ctx, req.Params.Name)
	if err != nil {
		return nil, err
	}
	params := &mcp.GetPromptParams{Name: sp.key.Tool, Arguments: req.Params.Arguments,
		InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState}
	var res *mcp.GetPromptResult
	err = ks.toDownstream(ctx, sp.d, req, params, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.GetPrompt(ctx, params)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, m := range res.Messages {
		if m != nil {
			ks.forms.Rewrite(sp.d.Name, []mcp.Content{m.Content})
		}
	}
	return res, nil
}

// prompt returns the prompt served under name, or the one routePrompt
// finds; a name that routes nowhere is an invalid_params error, and one
// that a starting replica is about to serve resource_unavailable (see
// startPrompt).
func (ks *Kinds) prompt(ctx context.Context, name string) (servedPrompt, error) {
	if sp, ok := ks.prompts.table.Load().byName[name]; ok {
		return sp, nil
	}
	k, unready, err := ks.startPrompt(ctx, name)
	if unready {
		return servedPrompt{}, downstream.UnavailableError(name)
	}
	if sp, ok := ks.prompts.table.Load().byName[name]; ok {
		return sp, nil
	}
	var sp servedPrompt
	if err == nil {
		sp, err = ks.routePrompt(name, k)
	}
	if err != nil {
		return servedPrompt{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no prompt is named %q", name)}
	}
	return sp, nil
}

// routePrompt finds the prompt that a name this replica does not serve
// belongs to, as the gateway's route does for tools (see
// naming.Chain.Lookup): looked up in the prompt store, and returned only
// when this replica lists that very key.
func (ks *Kinds) routePrompt(name string, k toolname.Key) (servedPrompt, error) {
	c := ks.prompts.chain
	live, _ := ks.livePrompts()
	sp, ok := live[k]
	if !ok {
		return servedPrompt{}, c.NotHere(name)
	}
	return sp, nil
}

// countPromptsEver adds, once, the prompts of the prompt chain's whole
// history to the distinct prompts each downstream has had, which its cap
// counts (downstream.MaxEver), as the gateway's countEver does for tools:
// a restart does not let a server have another MaxEver.
func (ks *Kinds) countPromptsEver() {
	keys := ks.prompts.chain.History(ks.logger)
	if keys == nil {
		return
	}
	ds := map[string]*downstream.Child{}
	for _, d := range ks.downstreams() {
		ds[d.Name] = d
	}
	for _, k := range keys {
		if d := ds[k.Server]; d != nil {
			d.More.Mu.Lock()
			if d.More.Ever == nil {
				d.More.Ever = map[string]bool{}
			}
			d.More.Ever[k.Tool] = true
			d.More.Mu.Unlock()
		}
	}
}

// setPrompts replaces d's prompts with the listing, but for prompts
// without a valid name, names listed twice, and new prompts beyond the cap
// on distinct prompts (downstream.MaxEver); it reports whether they changed.
func (ks *Kinds) setPrompts(d *downstream.Child, listed []*mcp.Prompt) bool {
	var kept []*mcp.Prompt
	seen := map[string]bool{}
	for _, p := range listed {
		if p == nil || p.Name == "" || !utf8.ValidString(p.Name) || seen[p.Name] {
			ks.logger.Warn("gateway: prompt skipped: empty, invalid or listed twice", "server", d.Name)
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
		if len(k.Ever) >= downstream.MaxEver {
			refused++
			return true
		}
		k.Ever[p.Name] = true
		return false
	})
	if refused > 0 {
		ks.logger.Warn("gateway: server has had too many distinct prompts; its new prompts are refused", "server", d.Name, "max", downstream.MaxEver, "refused", refused)
	}
	// The first listing starts a round even when it lists no prompt:
	// the round tells the requests waiting for it (see awaitStart).
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

// startPrompt is the gateway's startToolCall for a prompt's name, with
// the prompt chain: while the start lasts, a name the stored table gives
// to a downstream of this replica waits for that downstream's first
// prompts to be served (see starting.go in package gateway).
func (ks *Kinds) startPrompt(ctx context.Context, name string) (k toolname.Key, unready bool, err error) {
	pc := &ks.prompts
	t := pc.table.Load()
	if t.names == nil {
		ks.awaitStart(ctx, pc.ready)
		t = pc.table.Load()
		if _, ok := t.byName[name]; ok {
			return toolname.Key{}, false, nil
		}
		if t.names == nil {
			return toolname.Key{}, true, nil
		}
	}
	if k, err = ks.storedKey(ctx, pc.chain, t.names, name); err != nil {
		return toolname.Key{}, false, err
	}
	d := ks.downstream(k.Server)
	if d == nil {
		return k, false, nil
	}
	return k, !ks.awaitStart(ctx, d.PromptsServed.Done()), nil
}

// PromptChain returns the prompt chain, to check its naming options at
// start (see checkNaming in package gateway).
func (ks *Kinds) PromptChain() *naming.Chain { return ks.prompts.chain }

// PromptNames returns the stored table the served prompts' names come
// from, or nil before the first round that loaded one.
func (ks *Kinds) PromptNames() *toolname.Table { return ks.prompts.table.Load().names }

// ServedPrompts returns how many prompts are served now.
func (ks *Kinds) ServedPrompts() int { return len(ks.prompts.table.Load().byName) }
