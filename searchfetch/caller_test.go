package searchfetch_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcpid/mcpid/searchfetch"
)

func TestCallerRoundTrip(t *testing.T) {
	_, ok := searchfetch.CallerFrom(context.Background())
	assert.False(t, ok, "a context without a caller")

	want := searchfetch.Caller{UserID: "u1", Scopes: []string{"read"}, Expiration: time.Unix(1e9, 0)}
	got, ok := searchfetch.CallerFrom(searchfetch.WithCaller(context.Background(), want))
	assert.True(t, ok)
	assert.Equal(t, want, got)
}
