package gateway

import (
	"context"
	"errors"
	"fmt"

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
	for _, c := range []*chain{g.tools, g.relayed.prompts.chain} {
		if err := c.checkNaming(ctx, g.cfg.profile, g.recordedOptions()); err != nil {
			return err
		}
	}
	return nil
}

// stopOnMismatch calls cfg.fatal with a naming round's error of chain c
// when c records other naming options than this replica's: it would name
// no new tool or prompt until restarted with the chain's options.
func (g *gateway) stopOnMismatch(c *chain, err error) {
	if g.cfg.fatal != nil && errors.Is(err, toolname.ErrChainMismatch) {
		g.cfg.fatal(fmt.Errorf("-profile, -qualify and -max-len must be those of the %ss' chain in the store: %w", c.kind, err))
	}
}
