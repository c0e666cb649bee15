package adaptertest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// recordAliases are the aliases of the connections of Records.
var recordAliases = map[string]string{"c1": "one", "c2": "two", "wiki": "w", "eu:wiki": "euwiki"}

// aliasedIDs are the ids search gives Records with recordAliases, in
// order, unsealed.
var aliasedIDs = []string{
	"one/orders:o1",
	"one/tickets:t1",
	"two/tickets:t1",
	"w/:https://wiki.example.com/p/7",
	"euwiki/pages:p1",
	"notes:n1",
}

// aliasJourneys is the journey of a server with connection aliases, in
// both modes, sealed and not: every id search shows embeds its
// connection's alias, in the text and in structuredContent, and fetches
// its own record, which the backend reads from the real connection (a
// backend given an alias would find nothing); an id minted before the
// aliases still fetches, a connection_id argument may be the alias, and
// an ambiguous_connection answer names the aliases.
func aliasJourneys(t *testing.T, connect Connect) {
	aliases, err := mcpid.NewAliases(recordAliases)
	require.NoError(t, err)
	sealer, err := mcpid.NewSealer([]byte("adaptertest alias journey key 01"))
	require.NoError(t, err)
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		for _, s := range []*mcpid.Sealer{nil, sealer} {
			name := mode.String() + "/unsealed"
			if s != nil {
				name = mode.String() + "/sealed"
			}
			t.Run(name, func(t *testing.T) {
				b := &Backend{}
				c := connect(t, b, &searchfetch.Options{Mode: mode, Aliases: aliases, Sealer: s, Preview: allHits.Preview})
				a := c.Call(t, searchfetch.SearchName, map[string]any{"query": "refund"})
				require.False(t, a.IsError, "search failed: %v", a.Texts)
				ids := mcpid.ExtractIDs(a.Texts[0])
				require.Len(t, ids, len(Records))
				results := a.Structured.(map[string]any)["results"].([]any)
				require.Len(t, results, len(Records))
				for i, id := range ids {
					want := aliasedIDs[i]
					if s != nil {
						want = s.Seal(want)
					}
					assert.Equal(t, want, id)
					assert.Equal(t, id, results[i].(map[string]any)["id"], "results[%d].id", i)
					doc := requireDocument(t, c.Call(t, searchfetch.FetchName, map[string]any{"id": id}))
					assert.Equal(t, id, doc["id"], "the document echoes the id as given")
					assert.Equal(t, Records[i].Title, doc["title"], "fetch %q", id)
					assert.Equal(t, Records[i].ConnectionID, doc["metadata"].(map[string]any)["connection_id"], "fetch %q", id)
				}
				if s != nil {
					return
				}
				// An id minted before the aliases.
				doc := requireDocument(t, c.Call(t, searchfetch.FetchName, map[string]any{"id": "eu%3Awiki/pages:p1"}))
				assert.Equal(t, "Returns policy", doc["title"])
				a = c.Call(t, searchfetch.FetchName, map[string]any{"id": "tickets:t1"})
				e := RequireToolError(t, a, mcpid.CodeAmbiguousConnection)
				if mode == searchfetch.ModeChatGPT {
					assert.Equal(t, []string{"one/tickets:t1", "two/tickets:t1"}, e.AvailableIDs)
					return
				}
				assert.Equal(t, []string{"one", "two"}, e.Available)
				doc = requireDocument(t, c.Call(t, searchfetch.FetchName, map[string]any{"id": "tickets:t1", "connection_id": "two"}))
				assert.Equal(t, Records[2].Title, doc["title"])
				assert.False(t, strings.Contains(a.Texts[0], `"c1"`), "the answer names the aliases only: %s", a.Texts[0])
			})
		}
	}
}
