package naming

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"github.com/mcpid/mcpid/toolname"
)

// The backoff between naming rounds that failed (the store cannot be
// reached, or is refused), and between watches of the store: doubled at
// each failure from retryMin to retryMax, so a store that comes back
// serves the waiting names within retryMax.
const (
	retryMin = 100 * time.Millisecond
	retryMax = 5 * time.Second
)

// Chain is one chain of names that the gateway continues in its store and
// serves: the tools' or the prompts'. Both are
// this one piece of code, so that each rule of this package (the backup
// check, the route guard, the lookup bounds, the options check) holds for
// both alike.
type Chain struct {
	kind  string         // "tool" or "prompt", in messages
	store toolname.Store // where the chain lives
	dirty chan struct{}  // holds a pending change for the chain's rounds

	// misses are the called names the store did not route here, for a
	// while (see lookup).
	misses misses
	// pending is set while the store is not yet found to hold the
	// backup's table or one that continues it: no name is routed
	// through the store meanwhile.
	pending atomic.Bool

	// Owned by the chain's rounds.
	stored     *toolname.Table     // the table of the last round that succeeded, or the backup's
	backup     *toolname.Table     // the backup, until the store is found to hold it
	backupPath string              // "" without one
	backupFile *toolname.FileStore // where the backup is kept; nil without one
	backupRev  toolname.Revision   // the store's revision last written to the backup
	counted    bool                // the chain's history is counted in the downstreams' caps
}

// New returns the chain of kind kept in store, with the backup at
// backupPath ("" keeps none): until the store is found to hold the
// backup's table, or one that continues it, the chain serves the backup's
// names and routes nothing through the store. A backup that is not a
// table, or that another gateway holds, is an error.
func New(kind string, store toolname.Store, backupPath string) (*Chain, error) {
	c := &Chain{kind: kind, store: store, dirty: make(chan struct{}, 1), backupPath: backupPath}
	if backupPath == "" {
		return c, nil
	}
	file, backup, err := chainstore.OpenBackup(backupPath)
	if err != nil {
		return nil, fmt.Errorf("reading the %ss' backup: %w", kind, err)
	}
	if err := hold(kind, store, backupPath, backup); err != nil {
		_ = file.Close()
		return nil, err
	}
	c.backupFile, c.backup, c.stored = file, backup, backup
	c.pending.Store(backup != nil)
	return c, nil
}

// HoldBackup makes the store value of the chain of kind start from the
// table of the backup at path ("" keeps none), before anything loads
// through it (see hold). run calls it as soon as the store is open, before
// its first Load; New holds the same table again.
func HoldBackup(kind string, store toolname.Store, path string) error {
	if path == "" {
		return nil
	}
	backup, err := chainstore.ReadTable(path)
	if err != nil {
		return fmt.Errorf("reading the %ss' backup: %w", kind, err)
	}
	return hold(kind, store, path, backup)
}

// hold makes store, when it can ([toolname.Holder]), hold backup (nil
// holds nothing), the table of the backup at path: the store value itself
// then refuses a table that does not continue the backup, at its first
// Load as later, and never holds one. A value that already holds a table
// that neither continues the backup nor is continued by it (a table
// seeded with -seed that does not continue the backup) is an error: the
// gateway would refuse its own store.
func hold(kind string, store toolname.Store, path string, backup *toolname.Table) error {
	h, ok := store.(toolname.Holder)
	if !ok || backup == nil {
		return nil
	}
	if err := h.Hold(backup); err != nil {
		return fmt.Errorf("the %ss' store holds a table that does not continue the backup %s: %w", kind, path, err)
	}
	return nil
}

// Close closes the backup: the chain's rounds have ended.
func (c *Chain) Close() {
	if c.backupFile != nil {
		_ = c.backupFile.Close() // a second close is an error, and nothing else
	}
}

// Changed starts a round of the chain.
func (c *Chain) Changed() {
	select {
	case c.dirty <- struct{}{}:
	default: // one is pending already
	}
}

// Kind is the kind of the chain's names, "tool" or "prompt", as messages
// name them.
func (c *Chain) Kind() string { return c.kind }

// Stored is the table of the last round that succeeded, or the backup's
// until one does (nil before either). Only the chain's rounds may call it.
func (c *Chain) Stored() *toolname.Table { return c.stored }

// Missed reports whether a lookup of name at now is answered from memory,
// without the store: its miss, or the store's failure, is remembered.
func (c *Chain) Missed(name string, now time.Time) bool { return c.misses.missed(name, now) }

// Miss remembers name as a miss at now, for as long as any miss.
func (c *Chain) Miss(name string, now time.Time) { c.misses.miss(name, now) }

// Update is the part of a round that reads and writes the store: once
// checkBackup lets the store be used, it continues the chain with keys
// ([toolname.Update]) and keeps the table stored. Should the store be
// readable but not writable, what it holds is kept.
func (c *Chain) Update(ctx context.Context, profile toolname.Profile, keys []toolname.Key, opts []toolname.Option) error {
	if err := c.checkBackup(ctx); err != nil {
		return err
	}
	names, _, err := toolname.Update(ctx, c.store, profile, keys, opts...)
	if err == nil {
		c.stored = names
	} else if latest, _, lerr := c.store.Load(ctx); lerr == nil && latest != nil {
		c.stored = latest
	}
	return err
}

// Rounds runs the chain's rounds, one at a time: one per change, and one
// per flush (whose channel is closed once it is over; flushes may be
// nil); changes that come while a round runs merge into one. A round that
// fails is tried again with backoff, from retryMin doubling up to
// retryMax. after is told the outcome of each round.
func (c *Chain) Rounds(ctx context.Context, logger *slog.Logger, flushes <-chan chan struct{}, round func() error, after func(error)) {
	delay := retryMin
	retry := time.NewTimer(0)
	<-retry.C
	for {
		var done chan struct{}
		select {
		case <-c.dirty:
		case <-retry.C:
		case done = <-flushes:
		case <-ctx.Done():
			return
		}
		err := round()
		after(err)
		if err != nil && ctx.Err() == nil {
			logger.Warn("gateway: new "+c.kind+"s wait unlisted; the stored names keep routing", "err", err, "retry_in", delay)
			retry.Reset(delay)
			delay = min(2*delay, retryMax)
		} else {
			retry.Stop()
			delay = retryMin
		}
		if done != nil {
			close(done)
		}
	}
}

// Watch starts a round whenever the store tells that a table was stored,
// by this replica or another, if the store can tell ([toolname.Watcher]),
// and forgets the misses, which the new table may route. It watches
// again, with backoff, when the watch ends or cannot start, and starts a
// round then, for the tables it may have missed.
func (c *Chain) Watch(ctx context.Context, logger *slog.Logger) {
	w, ok := c.store.(toolname.Watcher)
	if !ok {
		return
	}
	delay := retryMin
	for ctx.Err() == nil {
		revs, err := w.Watch(ctx)
		if err == nil {
			delay = retryMin
			c.misses.clear()
			c.Changed()
			for range revs {
				c.misses.clear()
				c.Changed()
			}
		} else {
			logger.Warn("gateway: cannot watch the "+c.kind+"s' store; other replicas' names are read at the next round", "err", err, "retry_in", delay)
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
		}
		delay = min(2*delay, retryMax)
	}
}

// checkBackup refuses a store that holds less than the backup (no table,
// another chain, or an older table of it) or a table that does not
// continue it ([toolname.Table.Continues]: a fork from a restored backup,
// or an edit by hand). A store value that holds the backup's table (see
// hold) refuses those itself; a store that cannot hold one is checked
// here. Once the store holds the backup's table or one that continues it,
// the store value itself refuses to go backwards or sideways
// ([toolname.ErrRollback]), and checkBackup checks no more.
func (c *Chain) checkBackup(ctx context.Context) error {
	if c.backup == nil {
		return nil
	}
	latest, _, err := c.store.Load(ctx)
	id, gen := c.backup.Chain()
	forked := func(err error) error {
		return fmt.Errorf("the backup %s holds chain %s at generation %d; the store's table does not continue it, so the gateway serves the backup's names and names no new %s: %w",
			c.backupPath, id, gen, c.kind, err)
	}
	switch {
	case errors.Is(err, toolname.ErrRollback):
		// The store value, holding the backup's table, refused the
		// store's: the table it names as held is the backup's.
		return forked(err)
	case err != nil:
		return err
	}
	refused := &toolname.Error{Code: toolname.CodeRollback, Field: "chain", Index: -1, Offset: -1}
	switch lid, lgen := latest.Chain(); {
	case latest == nil:
	case lid != id:
		refused.Input = lid
	case lgen < gen:
		refused.Field, refused.Input = "generation", strconv.FormatUint(lgen, 10)
	default:
		if err := latest.Continues(c.backup); err != nil {
			return forked(err)
		}
		refused = nil
	}
	if refused != nil {
		return fmt.Errorf("the backup %s holds chain %s at generation %d; the store holds less, so the gateway serves the backup's names and names no new %s: %w",
			c.backupPath, id, gen, c.kind, refused)
	}
	c.backup = nil
	c.pending.Store(false)
	return nil
}

// KeepBackup stores the table the store holds now in the backup, a
// [toolname.FileStore] of its own, when it changed since the last time.
func (c *Chain) KeepBackup(ctx context.Context) error {
	if c.backupFile == nil {
		return nil
	}
	latest, rev, err := c.store.Load(ctx)
	if err != nil || latest == nil || rev == c.backupRev {
		return err
	}
	_, kept, err := c.backupFile.Load(ctx)
	if err == nil {
		_, err = c.backupFile.Swap(ctx, kept, latest)
	}
	if err != nil {
		return fmt.Errorf("writing the %ss' backup: %w", c.kind, err)
	}
	c.backupRev = rev
	return nil
}

// History returns, the first time it is called with a table held, every
// key of the chain's whole history, live or retired, which the
// downstreams' caps count: so a restart does not let a server have
// another share of names. Later calls return nothing.
func (c *Chain) History(logger *slog.Logger) []toolname.Key {
	if c.counted || c.stored == nil {
		return nil
	}
	c.counted = true
	data, err := json.Marshal(c.stored)
	var keys struct{ Names, Retired []toolname.Key }
	if err == nil {
		err = json.Unmarshal(data, &keys)
	}
	if err != nil {
		logger.Warn("gateway: cannot count the "+c.kind+"s of the chain", "err", err)
		return nil
	}
	return append(keys.Names, keys.Retired...)
}

// CheckNaming refuses the chain when the naming options differ from
// those it records, compared with the store's table, or, while the store
// cannot be reached, is refused or holds no table, with the backup's
// (the gateway checks both chains at start).
func (c *Chain) CheckNaming(ctx context.Context, profile toolname.Profile, opts []toolname.Option) error {
	table, _, err := c.store.Load(ctx)
	from := "the " + c.kind + "s' chain in the store"
	if err != nil || table == nil {
		table, from = c.stored, "the backup "+c.backupPath
	}
	if table == nil {
		return nil
	}
	// Update checks the options against the table before anything else,
	// here on a copy of it in memory: nothing is written to the store.
	// The start's deadline may have passed waiting for the store; the
	// copy needs none.
	copied := chainstore.NewMem(table)
	_, _, err = toolname.Update(context.WithoutCancel(ctx), copied, profile, nil, opts...)
	if errors.Is(err, toolname.ErrChainMismatch) {
		return fmt.Errorf("-profile, -qualify and -max-len must be those of %s: %w", from, err)
	}
	return nil
}

// Lookup looks up, in the chain's store, a called name that this replica
// does not serve, as [toolname.Table.Route] does (another replica may
// have named it), and starts a round when the store's table has it, so
// that this replica serves it too. Until the store is found to hold the
// backup's table, or one that continues it, the store routes nothing.
//
// The lookup waits for the store at most lookupTimeout (never beyond
// timeout), and a miss is remembered for at most missTTL (see misses), so
// that a hung store or a client that guesses names costs a call a second
// at most. A key that this replica does not list is a miss too (NotHere).
func (c *Chain) Lookup(ctx context.Context, name string, timeout time.Duration) (toolname.Key, error) {
	if c.pending.Load() || c.misses.missed(name, time.Now()) {
		return toolname.Key{}, unknownName(name)
	}
	ctx, cancel := context.WithTimeout(ctx, min(lookupTimeout, timeout))
	defer cancel()
	latest, _, err := c.store.Load(ctx)
	if err != nil {
		c.misses.storeFailed(time.Now())
		return toolname.Key{}, err
	}
	k, err := latest.Route(name)
	if errors.Is(err, toolname.ErrUnknownTool) {
		c.misses.miss(name, time.Now())
	}
	if err != nil {
		return toolname.Key{}, err
	}
	c.Changed()
	return k, nil
}

// NotHere remembers name as a miss, since the key the store's table gives
// it is not one this replica lists, and returns the error of a name
// unknown here.
func (c *Chain) NotHere(name string) error {
	c.misses.miss(name, time.Now())
	return unknownName(name)
}

// unknownName is the error of a called name that routes nowhere here.
func unknownName(name string) error {
	return &toolname.Error{Code: toolname.CodeUnknownTool, Index: -1, Offset: -1, Input: name}
}

// KeysOf returns the keys of live, the items a round of a chain names,
// in no particular order.
func KeysOf[V any](live map[toolname.Key]V) []toolname.Key {
	keys := make([]toolname.Key, 0, len(live))
	for k := range live {
		keys = append(keys, k)
	}
	return keys
}
