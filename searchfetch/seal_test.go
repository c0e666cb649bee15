package searchfetch_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

func sealer(t *testing.T) *mcpid.Sealer {
	t.Helper()
	s, err := mcpid.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	return s
}

// TestSealedJourney: in both modes, search shows sealed ids in the text
// and in structuredContent; each fetches its own hit and is echoed as
// given; a one-digit drift to a record that exists is unknown_id and never
// reaches the backend.
func TestSealedJourney(t *testing.T) {
	s := sealer(t)
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		t.Run(mode.String(), func(t *testing.T) {
			b := &byPair{hits: []mcpid.Hit{
				{ID: "orders:o12", ConnectionID: "cin_4f2a", Title: "Order o12"},
				{ID: "orders:o13", ConnectionID: "cin_4f2a", Title: "Order o13"},
				{ID: "octo/repo#42", ConnectionID: "projects/p1/connections/c2", Title: "Issue 42"},
			}}
			tools := searchfetch.New(b, &searchfetch.Options{Mode: mode, Sealer: s})
			res := tools.Search(context.Background(), raw(`{"query":"q"}`))
			require.False(t, res.IsError, res.Text)
			ids := mcpid.ExtractIDs(res.Text)
			require.Len(t, ids, 3)
			for i, id := range ids {
				want, _ := mcpid.SelfContainedID(b.hits[i].ID, b.hits[i].ConnectionID)
				assert.Equal(t, s.Seal(want), id)
				assert.Contains(t, string(res.StructuredContent), `"id":"`+id+`"`)

				doc := tools.Fetch(context.Background(), mustArgs(t, id))
				require.False(t, doc.IsError, doc.Text)
				assert.Equal(t, [2]string{b.hits[i].ConnectionID, b.hits[i].ID}, b.last())
				var got searchfetch.Document
				require.NoError(t, json.Unmarshal([]byte(doc.Text), &got))
				assert.Equal(t, id, got.ID, "the document echoes the id as given")
			}

			asked := len(b.asked)
			drifted := strings.Replace(ids[0], "o12", "o13", 1)
			require.NotEqual(t, ids[0], drifted)
			for _, bad := range []string{drifted, ids[0][:len(ids[0])-1], "cin_4f2a/orders:o13", ids[1] + "x"} {
				requireError(t, tools.Fetch(context.Background(), mustArgs(t, bad)), mcpid.CodeUnknownID)
			}
			assert.Len(t, b.asked, asked, "no backend call")
		})
	}
}

// TestAcceptUnsealed: a server that turns sealing on keeps taking the
// unsealed ids of live conversations only while it says so.
func TestAcceptUnsealed(t *testing.T) {
	s := sealer(t)
	for _, accept := range []bool{false, true} {
		b := newByPair()
		tools := searchfetch.New(b, &searchfetch.Options{Sealer: s, AcceptUnsealed: accept})
		res := tools.Fetch(context.Background(), raw(`{"id":"cin_4f2a/orders:o2"}`))
		if !accept {
			requireError(t, res, mcpid.CodeUnknownID)
			assert.Empty(t, b.asked)
			continue
		}
		require.False(t, res.IsError, res.Text)
		assert.Equal(t, [2]string{"cin_4f2a", "orders:o2"}, b.last())
		res = tools.Fetch(context.Background(), mustArgs(t, s.Seal("cin_4f2a/orders:o2")))
		require.False(t, res.IsError, res.Text)
	}
}

// TestSealedAmbiguous: in ChatGPT mode the ids to retry with are sealed
// too, and each fetches its connection's record.
func TestSealedAmbiguous(t *testing.T) {
	s := sealer(t)
	b := newByPair()
	tools := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, Sealer: s})
	e := requireError(t, tools.Fetch(context.Background(), mustArgs(t, s.Seal("orders:o1"))), mcpid.CodeAmbiguousConnection)
	require.Equal(t, []string{s.Seal("projects%2Fp1%2Fconnections%2Fc2/orders:o1"), s.Seal("drive%3Ateam/orders:o1")}, e.AvailableIDs)
	res := tools.Fetch(context.Background(), mustArgs(t, e.AvailableIDs[1]))
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, [2]string{"drive:team", "orders:o1"}, b.last())
}

// mustArgs returns the fetch arguments {"id": id}.
func mustArgs(t *testing.T, id string) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(map[string]string{"id": id})
	require.NoError(t, err)
	return b
}

// TestAcceptUnsealedMintsNoSeal: a made-up legacy id that the source finds
// in two connections, taken unsealed under AcceptUnsealed, answers with
// the ids to retry with unsealed: none of them opens, so none fetches once
// AcceptUnsealed is off. A sealed id still gets sealed ids.
func TestAcceptUnsealedMintsNoSeal(t *testing.T) {
	s := sealer(t)
	b := newByPair()
	accepting := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, Sealer: s, AcceptUnsealed: true})
	e := requireError(t, accepting.Fetch(context.Background(), mustArgs(t, "orders:o1")), mcpid.CodeAmbiguousConnection)
	require.Equal(t, []string{"projects%2Fp1%2Fconnections%2Fc2/orders:o1", "drive%3Ateam/orders:o1"}, e.AvailableIDs)
	strict := searchfetch.New(b, &searchfetch.Options{Mode: searchfetch.ModeChatGPT, Sealer: s})
	asked := len(b.asked)
	for _, id := range e.AvailableIDs {
		_, err := s.Open(id)
		require.ErrorIs(t, err, mcpid.ErrUnknownID, "%q opens", id)
		requireError(t, strict.Fetch(context.Background(), mustArgs(t, id)), mcpid.CodeUnknownID)
	}
	assert.Len(t, b.asked, asked, "no backend call")

	e = requireError(t, accepting.Fetch(context.Background(), mustArgs(t, s.Seal("orders:o1"))), mcpid.CodeAmbiguousConnection)
	require.Len(t, e.AvailableIDs, 2)
	for _, id := range e.AvailableIDs {
		_, err := s.Open(id)
		require.NoError(t, err, "%q", id)
	}
}

// TestNewZeroSealer: a Sealer with no key is a programming error, as a nil
// backend is.
func TestNewZeroSealer(t *testing.T) {
	assert.PanicsWithValue(t, "searchfetch: New with a Sealer that has no key; use mcpid.NewSealer", func() {
		searchfetch.New(&recorder{}, &searchfetch.Options{Sealer: &mcpid.Sealer{}})
	})
	assert.NotPanics(t, func() { searchfetch.New(&recorder{}, &searchfetch.Options{Sealer: sealer(t)}) })
}
