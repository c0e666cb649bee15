package adaptertest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// RunOnCall checks, through the adapter and its SDK's client, in both
// modes, that Options.OnCall hears every call once, before its answer
// reaches the client, with the caller the server's context carries: a
// search with the hits it shows and denies and the connections it shows,
// a fetch with the connection it read, a denied fetch as forbidden and an
// argument error as invalid_arguments.
func RunOnCall(t *testing.T, connect ConnectAs) {
	for _, mode := range []searchfetch.Mode{searchfetch.ModeDefault, searchfetch.ModeChatGPT} {
		t.Run(mode.String(), func(t *testing.T) {
			var (
				mu    sync.Mutex
				heard []searchfetch.Call
			)
			onCall := func(_ context.Context, c searchfetch.Call) {
				mu.Lock()
				defer mu.Unlock()
				heard = append(heard, c)
			}
			// last returns the one call heard since the previous one.
			last := func(t *testing.T) searchfetch.Call {
				t.Helper()
				mu.Lock()
				defer mu.Unlock()
				require.Len(t, heard, 1, "OnCall is called once per call, before the answer")
				c := heard[0]
				heard = heard[:0]
				return c
			}
			b := &Backend{}
			opts := &searchfetch.Options{Mode: mode, Authorize: Authorize, OnCall: onCall}
			c := connect(t, b, opts, searchfetch.Caller{UserID: "ana"})

			res := c.Call(t, searchfetch.SearchName, map[string]any{"query": "refund"})
			require.False(t, res.IsError, "%v", res.Texts)
			got := last(t)
			assert.Equal(t, searchfetch.SearchName, got.Tool)
			assert.Equal(t, "ana", got.Caller.UserID)
			assert.Equal(t, mcpid.Code(""), got.Code)
			assert.Equal(t, len(mcpid.ExtractIDs(res.Texts[0])), got.Shown)
			assert.Equal(t, 4, got.Shown)
			assert.Equal(t, 2, got.Denied, "c2's ticket and eu:wiki's page")
			assert.Equal(t, 0, got.Dropped)
			assert.Equal(t, []string{"c1", "wiki", ""}, got.Connections)
			assert.GreaterOrEqual(t, got.Bytes, len(res.Texts[0]))
			assert.Positive(t, got.Backend)
			assert.Positive(t, got.Authorize)
			assert.GreaterOrEqual(t, got.Duration, got.Backend)

			res = c.Call(t, searchfetch.FetchName, map[string]any{"id": "c1/orders:o1"})
			require.False(t, res.IsError, "%v", res.Texts)
			got = last(t)
			assert.Equal(t, searchfetch.FetchName, got.Tool)
			assert.Equal(t, mcpid.Code(""), got.Code)
			assert.Equal(t, []string{"c1"}, got.Connections)
			assert.Equal(t, "c1/orders:o1", got.ID)
			assert.Equal(t, 2*len(res.Texts[0]), got.Bytes, "the document's JSON, as text and as structuredContent")

			res = c.Call(t, searchfetch.FetchName, map[string]any{"id": "c2/tickets:t1"})
			require.True(t, res.IsError, "%v", res.Texts)
			got = last(t)
			assert.Equal(t, mcpid.CodeForbidden, got.Code)
			assert.Equal(t, decodeError(t, res).Code, got.Code)
			assert.Equal(t, []string{"c2"}, got.Connections)
			assert.Zero(t, got.Backend, "a denied fetch never reaches the backend")
			assert.Positive(t, got.Authorize)
			require.Error(t, got.Err)

			res = c.Call(t, searchfetch.FetchName, map[string]any{"id": 7})
			require.True(t, res.IsError, "%v", res.Texts)
			got = last(t)
			assert.Equal(t, searchfetch.CodeInvalidArguments, got.Code)
			assert.Nil(t, got.Connections)
			assert.Zero(t, got.Backend)
			assert.Zero(t, got.Authorize)
		})
	}
}
