package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/naming"
	"github.com/mcpid/mcpid/toolname"
)

// checkNaming refuses to start a replica whose naming options (-profile,
// -qualify, -max-len) differ from those its chains record, the tools' or
// the prompts': such a replica could name no new tool or prompt, its own
// would stay unlisted, and it would look healthy all the same. It compares
// with the store's table, or, while the store cannot be reached, is
// refused or holds no table, with the -backup table. With neither, the
// replica starts, and the first naming round that loads a table with other
// options stops it (see config.fatal). The error is toolname's
// chain_mismatch, which names both sets of options.
func (g *gateway) checkNaming(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, g.cfg.timeout)
	defer cancel()
	for _, c := range []*naming.Chain{g.tools, g.kinds.PromptChain()} {
		if err := c.CheckNaming(ctx, g.cfg.profile, g.recordedOptions()); err != nil {
			return err
		}
	}
	return nil
}

// stopOnMismatch calls cfg.fatal with a naming round's error of chain c
// when c records other naming options than this replica's: it would name
// no new tool or prompt until restarted with the chain's options.
func (g *gateway) stopOnMismatch(c *naming.Chain, err error) {
	if g.cfg.fatal != nil && errors.Is(err, toolname.ErrChainMismatch) {
		g.cfg.fatal(fmt.Errorf("-profile, -qualify and -max-len must be those of the %ss' chain in the store: %w", c.Kind(), err))
	}
}

// nameTools is one naming round of the tools' chain, run by the assigner
// only: it continues the chain with the keys of the tools listed now, and
// serves the table that Update returns. On an error, the last table stored
// keeps being served.
func (g *gateway) nameTools() error {
	live, listed := g.liveTools()
	ctx, cancel := context.WithTimeout(g.ctx, g.cfg.timeout)
	defer cancel()
	err := g.tools.Update(ctx, g.cfg.profile, naming.KeysOf(live), g.updateOptions())
	g.serve(live, listed)
	if err != nil {
		return fmt.Errorf("naming tools: %w", err)
	}
	g.countEver()
	return g.tools.KeepBackup(ctx)
}

// recordedOptions are the options that a chain records beside the profile.
func (g *gateway) recordedOptions() []toolname.Option {
	var opts []toolname.Option
	if g.cfg.qualifyAll {
		opts = append(opts, toolname.WithQualifyAll())
	}
	return opts
}

// updateOptions are the options of every Update: those the chain records,
// and the logger.
func (g *gateway) updateOptions() []toolname.Option {
	return append(g.recordedOptions(), toolname.WithLogger(g.cfg.logger))
}

// The prompts are named in a chain of their own (see package relay): in
// Redis and PostgreSQL the chain "<chain>/prompts" (which is why -chain
// may not hold a "/"), and beside a -state, -backup or -seed file the
// file "<FILE>.prompts".

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

// promptBackup returns where the prompt chain's backup is kept beside the
// tools' backup at path: "" keeps none.
func promptBackup(path string) string {
	if path == "" {
		return ""
	}
	return path + promptsSuffix
}
