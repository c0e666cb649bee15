package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpid/mcpid/toolname"
)

// This file is how the gateway keeps one name per tool across every
// replica that shares its store: the part a gateway author copies.
//
//   - Names come only from [toolname.Update] with the keys this replica
//     lists now: Update stores a table before it returns one that gives a
//     key a name the chain never held, so nothing is served before it is
//     stored, and since a key gets its chain's name back, every replica
//     gives a key the same name, whichever started or listed first.
//   - While the store cannot be reached, the last table stored keeps
//     routing, and tools that have no name yet wait, unlisted, for the
//     next round (retried with backoff).
//   - Another replica's table ([toolname.Watcher]) only starts a round:
//     Update writes only for keys of this replica's own that the chain has
//     not named yet.
//   - A called name that this replica does not serve is looked up once in
//     the store, and routed only to a tool this replica lists under the
//     very key the chain gave it (see route).
//   - With -backup, the last table loaded from or stored in the store is
//     kept in a local file (a [toolname.FileStore] of its own), and a
//     store that holds less than it (emptied, another chain, an older
//     table) or a table that does not continue it (a name it gives
//     dropped, or given to another tool) is refused until it holds it
//     again. Meanwhile no call is routed through the store.

// nameTools is one naming round, run by the assigner only: it continues the
// chain with the keys of the tools listed now, and serves the table that
// Update returns. On an error, the last table stored keeps being served.
func (g *gateway) nameTools() error {
	live := g.liveTools()
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
	defer cancel()
	err := g.checkBackup(ctx)
	if err == nil {
		keys := make([]toolname.Key, 0, len(live))
		for k := range live {
			keys = append(keys, k)
		}
		var names *toolname.Names
		names, _, err = toolname.Update(ctx, g.cfg.store, g.cfg.profile, keys, g.nameOptions()...)
		if err == nil {
			g.stored = names
		} else if latest, _, lerr := g.cfg.store.Load(ctx); lerr == nil && latest != nil {
			// The store can be read but not written: what it holds
			// is stored.
			g.stored = latest
		}
	}
	g.serve(live)
	if err != nil {
		return fmt.Errorf("naming tools: %w", err)
	}
	g.countEver()
	return g.keepBackup(ctx)
}

// nameOptions are the options of every Update: those the chain records.
func (g *gateway) nameOptions() []toolname.Option {
	opts := []toolname.Option{toolname.WithLogger(g.cfg.logger)}
	if g.cfg.qualifyAll {
		opts = append(opts, toolname.WithQualifyAll())
	}
	return opts
}

// checkBackup refuses a store that holds less than the backup (no table,
// another chain, or an older table of it) or a table that does not
// continue it ([toolname.Names.Continues]: a fork from a restored backup,
// or an edit by hand). Once the store holds the backup's table or one
// that continues it, the store value itself refuses to go backwards or
// sideways ([toolname.ErrRollback]), and checkBackup checks no more.
func (g *gateway) checkBackup(ctx context.Context) error {
	if g.backup == nil {
		return nil
	}
	latest, _, err := g.cfg.store.Load(ctx)
	if err != nil {
		return err
	}
	id, gen := g.backup.Chain()
	refused := &toolname.Error{Code: toolname.CodeRollback, Field: "chain", Index: -1, Offset: -1}
	switch lid, lgen := latest.Chain(); {
	case latest == nil:
	case lid != id:
		refused.Input = lid
	case lgen < gen:
		refused.Field, refused.Input = "generation", strconv.FormatUint(lgen, 10)
	default:
		if err := latest.Continues(g.backup); err != nil {
			return fmt.Errorf("the backup %s holds chain %s at generation %d; the store's table does not continue it, so the gateway serves the backup's names and names no new tool: %w",
				g.cfg.backupPath, id, gen, err)
		}
		refused = nil
	}
	if refused != nil {
		return fmt.Errorf("the backup %s holds chain %s at generation %d; the store holds less, so the gateway serves the backup's names and names no new tool: %w",
			g.cfg.backupPath, id, gen, refused)
	}
	g.backup = nil
	g.backupPending.Store(false)
	return nil
}

// keepBackup stores the table the store holds now in the backup, a
// [toolname.FileStore] of its own, when it changed since the last time.
func (g *gateway) keepBackup(ctx context.Context) error {
	if g.backupFile == nil {
		return nil
	}
	latest, rev, err := g.cfg.store.Load(ctx)
	if err != nil || latest == nil || rev == g.backupRev {
		return err
	}
	_, kept, err := g.backupFile.Load(ctx)
	if err == nil {
		_, err = g.backupFile.Swap(ctx, kept, latest)
	}
	if err != nil {
		return fmt.Errorf("writing the backup: %w", err)
	}
	g.backupRev = rev
	return nil
}

// route finds the tool that a called name this replica does not serve
// belongs to. It looks the name up in the store once, as
// [toolname.Names.Lookup] does (another replica may have named a tool that
// this one has not relisted yet), and returns the tool only when this
// replica lists that very key; otherwise the name is unknown here. A name
// the store's table resolves starts a round, so that this replica serves
// it too. Until the store is found to hold the backup's table, or one
// that continues it, the store routes nothing.
//
// The lookup waits for the store at most lookupTimeout, and a miss is
// remembered for at most missTTL (see misses), so that a hung store or a
// client that guesses names costs a call a second at most.
func (g *gateway) route(ctx context.Context, name string) (servedTool, error) {
	unknown := &toolname.Error{Code: toolname.CodeUnknownTool, Index: -1, Offset: -1, Input: name}
	if g.backupPending.Load() || g.misses.missed(name, time.Now()) {
		return servedTool{}, unknown
	}
	ctx, cancel := context.WithTimeout(ctx, min(lookupTimeout, g.cfg.timeout))
	defer cancel()
	latest, _, err := g.cfg.store.Load(ctx)
	if err != nil {
		g.misses.storeFailed(time.Now())
		return servedTool{}, err
	}
	k, err := latest.Lookup(name)
	if errors.Is(err, toolname.ErrUnknownTool) {
		g.misses.miss(name, time.Now())
	}
	if err != nil {
		return servedTool{}, err
	}
	g.changed()
	st, ok := g.liveTools()[k]
	if !ok {
		g.misses.miss(name, time.Now())
		return servedTool{}, unknown
	}
	return st, nil
}
