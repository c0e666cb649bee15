package naming

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/chainstore"
	"github.com/mcpid/mcpid/toolname"
)

// Seed stores the table in the file at path as the first table of the
// tools' chain, and the one at promptsPath as the first of the prompts'
// chain, within timeout; a missing promptsPath (a gateway
// whose downstreams never served a prompt keeps none) leaves the prompts'
// chain empty. Both files are read, and both chains
// checked empty, before either is written: a -seed that would fail on
// one chain seeds neither, so that it can be run again as it is once the
// operator has emptied both (toolname.Seed still refuses a chain written
// meanwhile). Call it before the stores hold their backups, which
// would refuse a load of an empty chain.
func Seed(ctx context.Context, path, promptsPath string, timeout time.Duration, tools, prompts toolname.Store) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	chains := []struct {
		store toolname.Store
		path  string
		names *toolname.Table
	}{{tools, path, nil}, {prompts, promptsPath, nil}}
	for i := range chains {
		c := &chains[i]
		names, err := chainstore.ReadTable(c.path)
		if err == nil && names == nil && c.store != prompts {
			err = fmt.Errorf("%s: no such file", c.path)
		}
		if err != nil {
			return fmt.Errorf("-seed: %w", err)
		}
		c.names = names
		held, _, err := c.store.Load(ctx)
		if err == nil && held != nil {
			err = &toolname.Error{Code: toolname.CodeChainNotEmpty, Index: -1, Offset: -1}
		}
		if err != nil {
			return fmt.Errorf("-seed %s: nothing seeded: %w", c.path, err)
		}
	}
	for _, c := range chains {
		if c.names == nil {
			continue // no FILE.prompts: no prompt was ever named, and the chain stays empty
		}
		if _, err := toolname.Seed(ctx, c.store, c.names); err != nil {
			return fmt.Errorf("-seed %s: %w", c.path, err)
		}
	}
	return nil
}
