package redisstore_test

import (
	"context"
	"fmt"
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/mcpid/mcpid/toolname"
	"github.com/mcpid/mcpid/toolname/redisstore"
)

// A gateway replica names its downstream tools through the chain on Redis,
// and reloads the table whenever another replica stores one. (The example
// needs a Redis server, so it is compiled but not run; the package's tests
// run the same calls against a real one.)
func ExampleNew() {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379"})
	defer client.Close()
	store := redisstore.New(client, "mcpid")

	// Every replica updates with its own live keys; a name is stored
	// before any client sees it.
	keys := []toolname.Key{{Server: "docs", Tool: "search"}, {Server: "tickets", Tool: "search"}}
	names, _, err := toolname.Update(ctx, store, toolname.Portable, keys)
	if err != nil {
		log.Fatal(err) // Redis is down, or holds no chain it can trust: serve nothing new
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
