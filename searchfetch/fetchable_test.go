package searchfetch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// realConnections are connection ids as sources mint them: opaque tokens,
// GCP resource names, ARNs, names with ':' and '%', and one that is the
// leading part of some base ids below.
var realConnections = []string{
	"cin_4f2a", "projects/p1/connections/c2", "arn:aws:s3:::bucket", "drive:team",
	"reports", "100%", "a%2Fb", "notion", "octo", "jira-eu", "mail", "données",
}

// realBaseIDs are record ids as sources mint them: GitHub, Notion, Jira,
// Message-IDs, S3 keys with spaces, Windows paths, "..", long, CJK and
// emoji ids, legacy handles, and ids that look like self-contained handles
// of the connections above.
var realBaseIDs = []string{
	"octo/repo#42", "https://www.notion.so/Roadmap-4f2a?pvs=4", "PROJ-17",
	"<CAF=x+1@mail.example.com>", "reports/Q3 summary.pdf", `C:\Users\ana\notes.txt`,
	"../../etc/passwd", strings.Repeat("0123456789", 30), "文档:第一章/第二节", "😀 party",
	"orders:o1", "orders:o2", "reports/2024:q3.pdf", "2024:q3.pdf", "reports/:2024:q3.pdf",
	"cin_4f2a/orders:o1", "a%2Fb/s:r", ":o1", "s:r/x", "%", ".", "..",
}

// byPair is a Backend that holds one document for each (connection, base
// id) pair of its hits and records what each fetch asked for.
type byPair struct {
	hits []mcpid.Hit

	mu    sync.Mutex
	asked [][2]string
}

func newByPair() *byPair {
	b := &byPair{hits: []mcpid.Hit{{ID: "notes:n1", Title: "a legacy hit with no connection"}}}
	for _, c := range realConnections {
		for _, base := range realBaseIDs {
			b.hits = append(b.hits, mcpid.Hit{ID: base, ConnectionID: c, Title: c + " " + base})
		}
	}
	return b
}

func (b *byPair) Search(context.Context, searchfetch.Query) (searchfetch.SearchResult, error) {
	return searchfetch.SearchResult{Hits: b.hits}, nil
}

func (b *byPair) Fetch(_ context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked = append(b.asked, [2]string{req.ConnectionID, req.Handle.BaseID()})
	if req.ConnectionID == "" && req.Handle.BaseID() == "orders:o1" {
		return searchfetch.Document{}, mcpid.AmbiguousConnection([]string{"projects/p1/connections/c2", "drive:team"})
	}
	return searchfetch.Document{Title: req.ConnectionID + " " + req.Handle.BaseID()}, nil
}

// last returns the (connection, base id) of the last fetch.
func (b *byPair) last() [2]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.asked[len(b.asked)-1]
}

// TestEveryShownHitFetchesItself: in both modes, every hit that search
// shows, from every pair of real-world connection and base id, fetches by
// its id alone exactly the (connection, base id) it came with; no two hits
// share an id; and no answer asks ChatGPT for a connection_id.
func TestEveryShownHitFetchesItself(t *testing.T) {
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			b := newByPair()
			opts := &searchfetch.Options{Mode: mode, Preview: mcpid.PreviewOptions{Budget: 1 << 20, MaxHits: 1 << 10}}
			tools := searchfetch.New(b, opts)
			res := tools.Search(context.Background(), raw(`{"query":"q"}`))
			require.False(t, res.IsError, res.Text)

			shown := mcpid.ExtractIDs(res.Text)
			require.Len(t, shown, len(b.hits), "every hit is shown, once")
			assert.NotContains(t, res.Text, "connection_id=", "every shown id embeds its connection")
			seen := map[string]int{}
			for i, id := range shown {
				if j, dup := seen[id]; dup {
					t.Fatalf("hits %d and %d share the id %q", j, i, id)
				}
				seen[id] = i
				args, err := json.Marshal(map[string]string{"id": id})
				require.NoError(t, err)
				doc := tools.Fetch(context.Background(), args)
				want := [2]string{b.hits[i].ConnectionID, b.hits[i].ID}
				require.False(t, doc.IsError, "fetch %q: %s", id, doc.Text)
				require.Equal(t, want, b.last(), "fetch %q", id)
				var got searchfetch.Document
				require.NoError(t, json.Unmarshal([]byte(doc.Text), &got))
				assert.Equal(t, id, got.ID, "the document echoes the id")
			}
		})
	}
}

// TestChatGPTAmbiguousRetriesWithIDs: a legacy id from an older
// conversation that the source finds in two connections answers, in
// ChatGPT mode, with the self-contained ids to retry with; each of them
// fetches its own connection's record.
func TestChatGPTAmbiguousRetriesWithIDs(t *testing.T) {
	b := newByPair()
	tools := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT})
	res := tools.Fetch(context.Background(), raw(`{"id":"orders:o1"}`))
	e := requireError(t, res, mcpid.CodeAmbiguousConnection)
	assert.NotContains(t, res.Text, "connection_id")
	assert.Empty(t, e.Available)
	require.Equal(t, []string{"projects%2Fp1%2Fconnections%2Fc2/orders:o1", "drive%3Ateam/orders:o1"}, e.AvailableIDs)
	assert.Contains(t, res.Text, `"retry_with":"id"`)
	for i, conn := range []string{"projects/p1/connections/c2", "drive:team"} {
		args, err := json.Marshal(map[string]string{"id": e.AvailableIDs[i]})
		require.NoError(t, err)
		doc := tools.Fetch(context.Background(), args)
		require.False(t, doc.IsError, doc.Text)
		assert.Equal(t, [2]string{conn, "orders:o1"}, b.last())
	}

	// The default mode, which takes connection_id, asks for one.
	res = searchfetch.New(b, nil).Fetch(context.Background(), raw(`{"id":"orders:o1"}`))
	e = requireError(t, res, mcpid.CodeAmbiguousConnection)
	assert.Equal(t, []string{"projects/p1/connections/c2", "drive:team"}, e.Available)
	assert.Contains(t, res.Text, `"retry_with":"connection_id"`)
}

// TestSearchShowsEachIDOnce: hits with the same resulting id are shown
// once, the first of them.
func TestSearchShowsEachIDOnce(t *testing.T) {
	b := &recorder{result: searchfetch.SearchResult{Hits: []mcpid.Hit{
		{ID: "orders:o1", ConnectionID: "c1", Title: "first"},
		{ID: "orders:o1", ConnectionID: "c2"},
		{ID: "orders:o1", ConnectionID: "c1", Title: "again"},
		{ID: "notes:n1"},
		{ID: "notes:n1", Title: "again"},
	}}}
	res := searchfetch.New(b, nil).Search(context.Background(), raw(`{"query":"q"}`))
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, []string{"c1/orders:o1", "c2/orders:o1", "notes:n1"}, mcpid.ExtractIDs(res.Text))
	assert.Contains(t, res.Text, `"first"`)
	assert.NotContains(t, res.Text, `"again"`)
}
