package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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
// -profile, -qualify and -max-len as the tools' chain.
//
// One goroutine (promptLoop) runs the prompt chain's naming rounds, apart
// from the tools' assigner: a round of one chain never waits on the other.

// promptChain is the gateway's state of the prompt chain.
type promptChain struct {
	dirty     chan struct{}           // holds a pending change for promptLoop
	ready     chan struct{}           // closed after the first round: the first prompts/list may be answered
	readyOnce sync.Once               //
	table     atomic.Pointer[prompts] // what is served now

	// Owned by promptLoop.
	stored     *toolname.Names
	backup     *toolname.Names     // the backup, until the store is found to hold it
	backupFile *toolname.FileStore // nil without -backup
	backupRev  toolname.Revision
	counted    bool // the chain's history is counted in each downstream's kinds.ever
}

// prompts is the served prompt table: immutable, read without locks.
type prompts struct {
	byName map[string]servedPrompt
}

// servedPrompt is one prompt the gateway serves under a name.
type servedPrompt struct {
	key    toolname.Key
	d      *backend
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
	st.shown = map[*backend]shownResources{}
	pc := &st.prompts
	pc.dirty = make(chan struct{}, 1)
	pc.ready = make(chan struct{})
	pc.table.Store(&prompts{})
	if g.cfg.promptStore == nil {
		g.cfg.promptStore = new(memStore)
	}
	if g.cfg.backupPath != "" {
		file, backup, err := openBackup(g.cfg.backupPath + promptsSuffix)
		if err != nil {
			return fmt.Errorf("reading the prompts' backup: %w", err)
		}
		pc.backupFile, pc.backup, pc.stored = file, backup, backup
	}
	return nil
}

// closeRelayed closes the prompt chain's backup; close calls it once
// every goroutine has ended.
func (g *gateway) closeRelayed() {
	if f := g.relayed.prompts.backupFile; f != nil {
		_ = f.Close()
	}
}

// promptsChanged tells promptLoop that some downstream's prompts, or the
// prompt store's table, changed.
func (g *gateway) promptsChanged() {
	select {
	case g.relayed.prompts.dirty <- struct{}{}:
	default:
	}
}

// promptLoop runs the prompt chain's rounds: one at once, then one per
// change, retried with backoff while it fails. The first prompts/list
// waits for the first round, whatever its outcome.
func (g *gateway) promptLoop() {
	defer g.wg.Done()
	pc := &g.relayed.prompts
	delay := retryMin
	retry := time.NewTimer(0)
	<-retry.C
	for first := true; ; first = false {
		if !first {
			select {
			case <-pc.dirty:
			case <-retry.C:
			case <-g.ctx.Done():
				return
			}
		}
		err := g.namePrompts()
		pc.readyOnce.Do(func() { close(pc.ready) })
		if err != nil && g.ctx.Err() == nil {
			g.cfg.logger.Warn("gateway: new prompts wait unlisted; the stored names keep routing", "err", err, "retry_in", delay)
			retry.Reset(delay)
			delay = min(2*delay, namingRetryMax)
		} else {
			retry.Stop()
			delay = retryMin
		}
	}
}

// followPrompts starts a prompt round whenever the prompt store tells that
// a table was stored, as follow does for the tools' store.
func (g *gateway) followPrompts() {
	defer g.wg.Done()
	w, ok := g.cfg.promptStore.(toolname.Watcher)
	if !ok {
		return
	}
	delay := retryMin
	for g.ctx.Err() == nil {
		revs, err := w.Watch(g.ctx)
		if err == nil {
			delay = retryMin
			g.promptsChanged()
			for range revs {
				g.promptsChanged()
			}
		} else {
			g.cfg.logger.Warn("gateway: cannot watch the prompt store; other replicas' names are read at the next round", "err", err, "retry_in", delay)
		}
		select {
		case <-time.After(delay):
		case <-g.ctx.Done():
		}
		delay = min(2*delay, namingRetryMax)
	}
}

// livePrompts returns the prompts every downstream lists now.
func (g *gateway) livePrompts() map[toolname.Key]servedPrompt {
	g.mu.Lock()
	ds := make([]*backend, 0, len(g.downstreams))
	for _, d := range g.downstreams {
		ds = append(ds, d)
	}
	g.mu.Unlock()
	live := map[toolname.Key]servedPrompt{}
	for _, d := range ds {
		d.more.mu.Lock()
		for _, p := range d.more.prompts {
			k := toolname.Key{Server: d.name, Tool: p.Name}
			live[k] = servedPrompt{key: k, d: d, prompt: p}
		}
		d.more.mu.Unlock()
	}
	return live
}

// namePrompts is one round of the prompt chain, as nameTools is of the
// tools' chain: the names come from [toolname.Update] with the keys of
// the prompts listed now, so that each is stored before it is served.
func (g *gateway) namePrompts() error {
	pc := &g.relayed.prompts
	live := g.livePrompts()
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
	defer cancel()
	err := g.checkPromptBackup(ctx)
	if err == nil {
		keys := make([]toolname.Key, 0, len(live))
		for k := range live {
			keys = append(keys, k)
		}
		var names *toolname.Names
		names, _, err = toolname.Update(ctx, g.cfg.promptStore, g.cfg.profile, keys, g.nameOptions()...)
		if err == nil {
			pc.stored = names
		} else if latest, _, lerr := g.cfg.promptStore.Load(ctx); lerr == nil && latest != nil {
			pc.stored = latest
		}
	}
	g.servePrompts(live)
	if err != nil {
		return fmt.Errorf("naming prompts: %w", err)
	}
	g.countPromptsEver()
	return g.keepPromptBackup(ctx)
}

// servePrompts puts the live prompts that the stored table names on the
// MCP server, changing only what changed.
func (g *gateway) servePrompts(live map[toolname.Key]servedPrompt) {
	pc := &g.relayed.prompts
	old := pc.table.Load().byName
	next := &prompts{byName: map[string]servedPrompt{}}
	for k, name := range pc.stored.All() {
		sp, ok := live[k]
		if ok && g.cfg.profile.Valid(name) {
			next.byName[name] = sp
		}
	}
	var gone []string
	for name := range old {
		if _, ok := next.byName[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
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
	sp, ok := g.relayed.prompts.table.Load().byName[req.Params.Name]
	if !ok {
		var err error
		if sp, err = g.routePrompt(ctx, req.Params.Name); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no prompt is named %q", req.Params.Name)}
		}
	}
	cs := sp.d.session.Load()
	if cs == nil {
		return nil, unavailableErr(sp.d)
	}
	ctx, cancel := context.WithTimeout(ctx, g.cfg.timeout)
	defer cancel()
	params := &mcp.GetPromptParams{Name: sp.key.Tool, Arguments: req.Params.Arguments,
		InputResponses: req.Params.InputResponses, RequestState: req.Params.RequestState}
	rc := sp.d.relay.Start(ctx, req, params, g.cfg.timeout)
	res, err := cs.GetPrompt(ctx, params)
	sp.d.relay.End(rc)
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

// routePrompt finds the prompt that a name this replica does not serve
// belongs to, as route does for tools: looked up once in the prompt
// store, and returned only when this replica lists that very key.
func (g *gateway) routePrompt(ctx context.Context, name string) (servedPrompt, error) {
	ctx, cancel := context.WithTimeout(ctx, g.cfg.timeout)
	defer cancel()
	latest, _, err := g.cfg.promptStore.Load(ctx)
	if err != nil {
		return servedPrompt{}, err
	}
	k, err := latest.Lookup(name)
	if err != nil {
		return servedPrompt{}, err
	}
	g.promptsChanged()
	sp, ok := g.livePrompts()[k]
	if !ok {
		return servedPrompt{}, &toolname.Error{Code: toolname.CodeUnknownTool, Index: -1, Offset: -1, Input: name}
	}
	return sp, nil
}

// checkPromptBackup refuses a prompt store that holds less than the
// prompts' backup, by the rule checkBackup applies to the tools' chain.
func (g *gateway) checkPromptBackup(ctx context.Context) error {
	pc := &g.relayed.prompts
	if pc.backup == nil {
		return nil
	}
	latest, _, err := g.cfg.promptStore.Load(ctx)
	if err != nil {
		return err
	}
	id, gen := pc.backup.Chain()
	lid, lgen := latest.Chain()
	if latest == nil || lid != id || lgen < gen {
		return fmt.Errorf("the backup %s holds prompt chain %s at generation %d; the store holds less, so the gateway serves the backup's names and names no new prompt: %w",
			g.cfg.backupPath+promptsSuffix, id, gen, &toolname.Error{Code: toolname.CodeRollback, Field: "chain", Index: -1, Offset: -1, Input: lid})
	}
	pc.backup = nil
	return nil
}

// keepPromptBackup stores the prompt chain's latest table in its backup
// when it changed since the last time.
func (g *gateway) keepPromptBackup(ctx context.Context) error {
	pc := &g.relayed.prompts
	if pc.backupFile == nil {
		return nil
	}
	latest, rev, err := g.cfg.promptStore.Load(ctx)
	if err != nil || latest == nil || rev == pc.backupRev {
		return err
	}
	_, kept, err := pc.backupFile.Load(ctx)
	if err == nil {
		_, err = pc.backupFile.Swap(ctx, kept, latest)
	}
	if err != nil {
		return fmt.Errorf("writing the prompts' backup: %w", err)
	}
	pc.backupRev = rev
	return nil
}

// openPromptStore opens the prompt chain's store beside the tools' one
// (see promptState), and stops a start on one whose value is not a table,
// as checkStore does.
func openPromptStore(ctx context.Context, o *options) (toolname.Store, func(), error) {
	state := promptState(o.state)
	store, closeStore, err := openStore(ctx, state, o.chain+"/prompts")
	if err != nil {
		return nil, nil, err
	}
	if err := checkStore(ctx, store, state, o.cfg.timeout); err != nil {
		closeStore()
		return nil, nil, err
	}
	return store, closeStore, nil
}

// countPromptsEver adds, once, the prompts of the prompt chain's whole
// history to the distinct prompts each downstream has had, which its cap
// counts (maxEver), as countEver does for tools: a restart does not let a
// server have another maxEver.
func (g *gateway) countPromptsEver() {
	pc := &g.relayed.prompts
	if pc.counted || pc.stored == nil {
		return
	}
	pc.counted = true
	data, err := json.Marshal(pc.stored)
	var keys struct{ Names, Retired []toolname.Key }
	if err == nil {
		err = json.Unmarshal(data, &keys)
	}
	if err != nil {
		g.cfg.logger.Warn("gateway: cannot count the prompt chain's prompts", "err", err)
		return
	}
	g.mu.Lock()
	ds := maps.Clone(g.downstreams)
	g.mu.Unlock()
	for _, k := range append(keys.Names, keys.Retired...) {
		if d := ds[k.Server]; d != nil {
			d.more.mu.Lock()
			if d.more.ever == nil {
				d.more.ever = map[string]bool{}
			}
			d.more.ever[k.Tool] = true
			d.more.mu.Unlock()
		}
	}
}
