package searchfetch

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/internal/testkit/economy"
)

// TestCursorTokens: a cursor without a backend cursor costs a model at
// most 12 o200k tokens, sealed or not, whatever its count; and it opens
// back to what it holds.
func TestCursorTokens(t *testing.T) {
	s, err := mcpid.NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	ctx := WithCaller(context.Background(), Caller{UserID: "ana@example.com"})
	query := strings.Repeat("refund policy for orders shipped to Berlin ", 20)
	most := 0.0
	for _, sealer := range []*mcpid.Sealer{nil, s} {
		tools := New(&nopBackend{}, &Options{Sealer: sealer})
		for _, passed := range []int{1, 8, 64, 999, 12345, 1_000_000, maxPassed} {
			c := tools.cursorText(ctx, query, cursor{passed: passed})
			n := economy.TokensPerID(t, c, 1)
			assert.LessOrEqual(t, n, 12.0, "%q", c)
			most = max(most, n)
			got, err := tools.openCursor(ctx, query, c)
			require.NoError(t, err)
			assert.Equal(t, cursor{passed: passed}, got)
		}
		c := tools.cursorText(ctx, query, cursor{passed: 3, backend: "eyJvZmZzZXQiOjQwfQ"})
		got, err := tools.openCursor(ctx, query, c)
		require.NoError(t, err)
		assert.Equal(t, cursor{passed: 3, backend: "eyJvZmZzZXQiOjQwfQ"}, got)
	}
	t.Logf("at most %.0f o200k tokens a cursor", most)
}

// nopBackend is a Backend that finds nothing.
type nopBackend struct{}

func (nopBackend) Search(context.Context, Query) (SearchResult, error) { return SearchResult{}, nil }
func (nopBackend) Fetch(context.Context, FetchRequest) (Document, error) {
	return Document{}, nil
}
