package toolname_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpid/mcpid/toolname"
)

// A gateway names its tools through a store: each time its servers or
// their tools change, it calls Update with the keys it serves, and serves
// the table Update returns. Names are stored before they are served, and
// survive restarts.
func ExampleUpdate() {
	dir, err := os.MkdirTemp("", "toolname-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	store, err := toolname.NewFileStore(filepath.Join(dir, "names.json"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()

	ctx := context.Background()
	show := func(event string, keys []toolname.Key) {
		names, _, err := toolname.Update(ctx, store, toolname.Portable, keys)
		if err != nil {
			fmt.Println(event+":", err)
			return
		}
		_, gen := names.Chain()
		fmt.Printf("%s (generation %d):", event, gen)
		for k, name := range names.All() {
			fmt.Printf(" %s=%s", toolname.Join(k.Server, k.Tool), name)
		}
		fmt.Println()
	}
	github := toolname.Key{Server: "github", Tool: "search"}
	gitlab := toolname.Key{Server: "gitlab", Tool: "search"}
	show("github", []toolname.Key{github})
	show("gitlab joins", []toolname.Key{github, gitlab})
	show("github leaves", []toolname.Key{gitlab})
	// Nothing new: nothing is stored, and the table is one past the stored one.
	show("github returns", []toolname.Key{github, gitlab})

	// Another profile on the same chain would rename every tool: refused.
	_, _, err = toolname.Update(ctx, store, toolname.OpenAI, []toolname.Key{github})
	fmt.Println(errors.Is(err, toolname.ErrChainMismatch))
	// Output:
	// github (generation 1): github::search=search
	// gitlab joins (generation 2): github::search=search gitlab::search=gitlab__search
	// github leaves (generation 3): gitlab::search=gitlab__search
	// github returns (generation 3): github::search=search gitlab::search=gitlab__search
	// true
}

// A file store keeps one gateway's chain in a file, locked for as long as
// the store is open.
func ExampleNewFileStore() {
	dir, err := os.MkdirTemp("", "toolname-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "names.json")

	store, err := toolname.NewFileStore(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	keys := []toolname.Key{{Server: "a", Tool: "search"}, {Server: "b", Tool: "search"}}
	if _, _, err := toolname.Update(ctx, store, toolname.Portable, keys); err != nil {
		fmt.Println(err)
		return
	}

	// A second gateway on the same file is refused.
	_, err = toolname.NewFileStore(path)
	fmt.Println("second store:", errors.Is(err, toolname.ErrStoreLocked))

	// After a restart, the chain goes on where it was.
	if err := store.Close(); err != nil {
		fmt.Println(err)
		return
	}
	store, err = toolname.NewFileStore(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	names, _, err := store.Load(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, gen := names.Chain()
	fmt.Println("generation", gen)
	for k, name := range names.All() {
		fmt.Println(toolname.Join(k.Server, k.Tool), name)
	}
	// Output:
	// second store: true
	// generation 1
	// a::search a__search
	// b::search b__search
}
