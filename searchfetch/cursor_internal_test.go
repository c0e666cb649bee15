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
// back to what it holds, with a backend cursor too (its backend pages
// and their readable hits).
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
		for _, want := range []cursor{
			{passed: 3, backend: "eyJvZmZzZXQiOjQwfQ", pages: 1, earlier: 57},
			{passed: 0, backend: "p-2.x~y", pages: maxBackendPages, earlier: maxPassed},
		} {
			got, err := tools.openCursor(ctx, query, tools.cursorText(ctx, query, want))
			require.NoError(t, err)
			assert.Equal(t, want, got)
		}
	}
	t.Logf("at most %.0f o200k tokens a cursor", most)
}

// nopBackend is a Backend that finds nothing.
type nopBackend struct{}

func (nopBackend) Search(context.Context, Query) (SearchResult, error) { return SearchResult{}, nil }
func (nopBackend) Fetch(context.Context, FetchRequest) (Document, error) {
	return Document{}, nil
}

// TestCursorCounts: a cursor's counts are read as written, and only so:
// one count alone, three with a backend cursor, each canonical, the
// backend pages from 1 to maxBackendPages.
func TestCursorCounts(t *testing.T) {
	tools := New(&nopBackend{}, nil)
	ctx := context.Background()
	tests := []struct {
		payload string
		ok      bool
	}{
		{"3", true},
		{"3-1-0.b", true},
		{"0-1000-999999999.b", true},
		{"3.b", false},
		{"3-1.b", false},
		{"3-1-0-0.b", false},
		{"3-1-0", false},
		{"3-", false},
		{"3-0-0.b", false},
		{"3-1001-0.b", false},
		{"3-01-0.b", false},
		{"3--0.b", false},
		{"3-1-1000000000.b", false},
	}
	for _, tt := range tests {
		_, err := tools.openCursor(ctx, "q", tt.payload+"~"+tools.cursorTag(ctx, "q", tt.payload))
		if tt.ok {
			assert.NoError(t, err, tt.payload)
		} else {
			assert.ErrorIs(t, err, ErrInvalidArguments, tt.payload)
		}
	}
}
