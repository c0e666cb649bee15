package gateway

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"

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
// same code (a [chain]): its -backup is checked, and a name it does not
// serve looked up, by the tools' rules.
//
// One goroutine (promptLoop) runs the prompt chain's naming rounds, apart
// from the tools' assigner: a round of one chain never waits on the other.

// promptChain is the gateway's state of the prompt chain.
type promptChain struct {
	chain     *naming.Chain           // the names; its rounds run on promptLoop
	ready     chan struct{}           // closed after the first round: the first prompts/list may be answered
	readyOnce sync.Once               //
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

// promptsSuffix names the prompt chain beside the tools' chain.
const promptsSuffix = ".prompts"

// promptState returns where the prompt chain of the -state value state
// lives: the file beside a state file, or the same Redis or PostgreSQL.
func promptState(state string) string {
	scheme, _, _ := strings.Cut(state, "://")
	switch scheme {
	case "redis", "rediss", "postgres", "postgresql":
		return state
	}
	if state == "" {
		return ""
	}
	return state + promptsSuffix
}

// initRelayed sets up what the gateway relays beyond tools; newGateway
// calls it. With -backup, the prompt chain's backup is the file beside it.
func (g *gateway) initRelayed() error {
	st := &g.relayed
	st.shown = map[*downstream.Child]shownResources{}
	pc := &st.prompts
	pc.ready = make(chan struct{})
	pc.table.Store(&prompts{})
	if g.cfg.promptStore == nil {
		g.cfg.promptStore = new(chainstore.Mem)
	}
	var err error
	pc.chain, err = naming.New("prompt", g.cfg.promptStore, promptBackup(g.cfg.backupPath))
	return err
}

// promptBackup returns where the prompt chain's backup is kept beside the
// tools' backup at path: "" keeps none.
func promptBackup(path string) string {
	if path == "" {
		return ""
	}
	return path + promptsSuffix
}

// closeRelayed closes the prompt chain's backup; close calls it once
// every goroutine has ended.
func (g *gateway) closeRelayed() {
	g.relayed.prompts.chain.Close()
}

// promptsChanged tells promptLoop that some downstream's prompts, or the
// prompt store's table, changed.
func (g *gateway) promptsChanged() {
	g.relayed.prompts.chain.Changed()
}

// promptLoop runs the prompt chain's rounds (see naming.Chain.Rounds): one at
// once, then one per change. The first prompts/list waits for the first
// round, whatever its outcome. A chain that records other naming options
// stops the gateway, as the tools' does.
func (g *gateway) promptLoop() {
	defer g.wg.Done()
	pc := &g.relayed.prompts
	pc.chain.Changed()
	pc.chain.Rounds(g.ctx, g.cfg.logger, nil, g.namePrompts, func(err error) {
		g.stopOnMismatch(pc.chain, err)
		pc.readyOnce.Do(func() { close(pc.ready) })
	})
}

// followPrompts starts a prompt round whenever the prompt store tells that
// a table was stored (see naming.Chain.Watch).
func (g *gateway) followPrompts() {
	defer g.wg.Done()
	g.relayed.prompts.chain.Watch(g.ctx, g.cfg.logger)
}

// livePrompts returns the prompts every downstream lists now, and the
// downstreams that have listed their prompts once.
func (g *gateway) livePrompts() (map[toolname.Key]servedPrompt, []*downstream.Child) {
	g.mu.Lock()
	ds := make([]*downstream.Child, 0, len(g.downstreams))
	for _, d := range g.downstreams {
		ds = append(ds, d)
	}
	g.mu.Unlock()
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

// namePrompts is one round of the prompt chain, as nameTools is of the
// tools' chain: the names come from [toolname.Update] with the keys of
// the prompts listed now, so that each is stored before it is served.
func (g *gateway) namePrompts() error {
	c := g.relayed.prompts.chain
	live, listed := g.livePrompts()
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
	defer cancel()
	err := c.Update(ctx, g.cfg.profile, keysOf(live), g.updateOptions())
	g.servePrompts(live)
	for _, d := range listed {
		d.PromptsServed.Open()
	}
	if err != nil {
		return fmt.Errorf("naming prompts: %w", err)
	}
	g.countPromptsEver()
	return c.KeepBackup(ctx)
}

// servePrompts puts the live prompts that the stored table names on the
// MCP server, changing only what changed.
func (g *gateway) servePrompts(live map[toolname.Key]servedPrompt) {
	pc := &g.relayed.prompts
	old := pc.table.Load().byName
	next := &prompts{names: pc.chain.Stored(), byName: map[string]servedPrompt{}}
	for k, name := range pc.chain.Stored().All() {
		sp, ok := live[k]
		if ok && g.cfg.profile.Valid(name) {
			next.byName[name] = sp
		}
	}
	if gone := goneFrom(old, next.byName); len(gone) > 0 {
		g.srv.RemovePrompts(gone...)
	}
	// Routing knows the added names before the SDK lists them.
	pc.table.Store(next)
	for name, sp := range next.byName {
		if o, ok := old[name]; ok && o.key == sp.key && o.prompt == sp.prompt {
			continue
		}
		p := *sp.prompt
		p.Name = name
		if err := guard(func() { g.srv.AddPrompt(&p, g.getPrompt) }); err != nil {
			g.cfg.logger.Warn("gateway: prompt not served", "server", sp.key.Server, "prompt", sp.key.Tool, "err", err)
		}
	}
}

// getPrompt is the handler of every prompt the gateway serves: it sends
// prompts/get, with the downstream's own prompt name and the arguments as
// they came, to the downstream the name routes to.
func (g *gateway) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	ctx, cancel := context.WithTimeout(ctx, g.cfg.timeout) // the lookup and the request: one -timeout
	defer cancel()
	sp, err := g.prompt(ctx, req.Params.Name)
	if err != nil {
		return nil, err
	}
	params := &mcp.GetPromptParams{Name: sp.key.Tool, Arguments: req.Params.Arguments,
		InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState}
	var res *mcp.GetPromptResult
	err = g.toDownstream(ctx, sp.d, req, params, func(ctx context.Context, cs *mcp.ClientSession) (err error) {
		res, err = cs.GetPrompt(ctx, params)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, m := range res.Messages {
		if m != nil {
			g.rewriteContent(sp.d, []mcp.Content{m.Content})
		}
	}
	return res, nil
}

// prompt returns the prompt served under name, or the one routePrompt
// finds; a name that routes nowhere is an invalid_params error, and one
// that a starting replica is about to serve resource_unavailable (see
// startPrompt).
func (g *gateway) prompt(ctx context.Context, name string) (servedPrompt, error) {
	if sp, ok := g.relayed.prompts.table.Load().byName[name]; ok {
		return sp, nil
	}
	k, unready, err := g.startPrompt(ctx, name)
	if unready {
		return servedPrompt{}, downstream.UnavailableError(name)
	}
	if sp, ok := g.relayed.prompts.table.Load().byName[name]; ok {
		return sp, nil
	}
	var sp servedPrompt
	if err == nil {
		sp, err = g.routePrompt(name, k)
	}
	if err != nil {
		return servedPrompt{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no prompt is named %q", name)}
	}
	return sp, nil
}

// routePrompt finds the prompt that a name this replica does not serve
// belongs to, as route does for tools (see naming.Chain.Lookup): looked up in the
// prompt store, and returned only when this replica lists that very key.
func (g *gateway) routePrompt(name string, k toolname.Key) (servedPrompt, error) {
	c := g.relayed.prompts.chain
	live, _ := g.livePrompts()
	sp, ok := live[k]
	if !ok {
		return servedPrompt{}, c.NotHere(name)
	}
	return sp, nil
}

// countPromptsEver adds, once, the prompts of the prompt chain's whole
// history to the distinct prompts each downstream has had, which its cap
// counts (maxEver), as countEver does for tools: a restart does not let a
// server have another maxEver.
func (g *gateway) countPromptsEver() {
	keys := g.relayed.prompts.chain.History(g.cfg.logger)
	if keys == nil {
		return
	}
	g.mu.Lock()
	ds := maps.Clone(g.downstreams)
	g.mu.Unlock()
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
