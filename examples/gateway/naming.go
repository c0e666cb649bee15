package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpid/mcpid/toolname"
)

// checkNaming refuses to start a replica whose naming options (-profile,
// -qualify, -max-len) differ from those its chain records: such a replica
// could name no new tool, its own tools would stay unlisted, and it would
// look healthy all the same. It compares with the store's table, or, while
// the store cannot be reached, is refused or holds no table, with the
// -backup table. With neither, the replica starts, and the first naming round that loads a
// table with other options stops it (see config.fatal). The error is
// toolname's chain_mismatch, which names both sets of options.
func (g *gateway) checkNaming(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, g.cfg.timeout)
	defer cancel()
	table, _, err := g.cfg.store.Load(ctx)
	from := "the chain in the store"
	if err != nil || table == nil {
		table, from = g.stored, "the backup "+g.cfg.backupPath
	}
	if table == nil {
		return nil
	}
	// Update checks the options against the table before anything else,
	// here on a copy of it in memory: nothing is written to the store.
	copied := &memStore{names: table, n: 1}
	var opts []toolname.Option
	if g.cfg.qualifyAll {
		opts = append(opts, toolname.WithQualifyAll())
	}
	_, _, err = toolname.Update(ctx, copied, g.cfg.profile, nil, opts...)
	if errors.Is(err, toolname.ErrChainMismatch) {
		return fmt.Errorf("-profile, -qualify and -max-len must be those of %s: %w", from, err)
	}
	return nil
}

// stopOnMismatch calls cfg.fatal with a naming round's error when the
// chain records other naming options than this replica's: it would name
// no new tool until restarted with the chain's options.
func (g *gateway) stopOnMismatch(err error) {
	if g.cfg.fatal != nil && errors.Is(err, toolname.ErrChainMismatch) {
		g.cfg.fatal(fmt.Errorf("-profile, -qualify and -max-len must be those of the chain in the store: %w", err))
	}
}
