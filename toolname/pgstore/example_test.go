package pgstore_test

import (
	"context"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/pgstore"
)

// A gateway replica names its downstream tools through the chain on PostgreSQL,
// and reloads the table whenever another replica stores one. (The example
// needs a PostgreSQL server, so it is compiled but not run; the package's tests
// run the same calls against a real one.)
func ExampleNew() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://gateway@db.internal/gateway")
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	store, err := pgstore.New(ctx, pool, "mcpid") // creates its table if missing
	if err != nil {
		log.Fatal(err)
	}

	// Every replica updates with its own live keys; a name is stored
	// before any client sees it.
	keys := []toolname.Key{{Server: "docs", Tool: "search"}, {Server: "tickets", Tool: "search"}}
	names, _, err := toolname.Update(ctx, store, toolname.Portable, keys)
	if err != nil {
		log.Fatal(err) // PostgreSQL is down, or holds no chain it can trust: serve nothing new
	}
	for key, name := range names.All() {
		fmt.Println(key.Server, key.Tool, "→", name)
	}

	// Another replica stored a table: reload it, for lookups.
	revisions, err := store.Watch(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for range revisions {
		if names, _, err = store.Load(ctx); err != nil {
			log.Print(err) // keep serving the table already loaded
		}
	}
}
