package adaptertest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// Stuck is a searchfetch.Backend that ignores its context, as a plain
// blocking call does: each call counts itself on Entered, waits for
// Release to close, and then answers with every record (or the first), and
// counts its return in Returned.
type Stuck struct {
	Backend
	Entered  chan struct{}
	Release  chan struct{}
	Returned atomic.Int64
}

// NewStuck returns a Stuck with room on Entered for n calls.
func NewStuck(n int) *Stuck {
	return &Stuck{Entered: make(chan struct{}, n), Release: make(chan struct{})}
}

// Search waits for Release, ignoring ctx, then searches.
func (s *Stuck) Search(ctx context.Context, q searchfetch.Query) (searchfetch.SearchResult, error) {
	s.Entered <- struct{}{}
	<-s.Release
	defer s.Returned.Add(1)
	return s.Backend.Search(ctx, q)
}

// Fetch waits for Release, ignoring ctx, then fetches.
func (s *Stuck) Fetch(ctx context.Context, req searchfetch.FetchRequest) (searchfetch.Document, error) {
	s.Entered <- struct{}{}
	<-s.Release
	defer s.Returned.Add(1)
	return s.Backend.Fetch(ctx, req)
}

// ignoredContext: with the default options, a backend that ignores its
// context is answered resource_unavailable (retryable) at the timeout,
// while it is still blocked, for both tools.
func ignoredContext(t *testing.T, connect Connect) {
	b := NewStuck(2)
	t.Cleanup(func() { close(b.Release) })
	c := connect(t, b, &searchfetch.Options{Timeout: 10 * time.Millisecond})
	for _, call := range BenchCalls {
		a := c.Call(t, call.Tool, call.Args)
		e := RequireToolError(t, a, mcpid.CodeResourceUnavailable)
		assert.Equal(t, "the source did not answer in time", e.Message(), call.Tool)
		assert.Contains(t, a.Texts[0], `"retryable":true`, call.Tool)
		<-b.Entered // the backend was called, and has not returned:
		assert.Equal(t, int64(0), b.Returned.Load(), "%s: answered while the backend is blocked", call.Tool)
	}
}

// panicking is a searchfetch.Backend whose every call panics.
type panicking struct{}

func (panicking) Search(context.Context, searchfetch.Query) (searchfetch.SearchResult, error) {
	panic("search: index out of range")
}

func (panicking) Fetch(context.Context, searchfetch.FetchRequest) (searchfetch.Document, error) {
	panic("fetch: nil map")
}

// panicked: a backend that panics, on a pooled worker (the default) or
// inline, gets a generic resource_error answer (not retryable: the same
// call panics again), the panic's words not among it, and the server goes
// on.
func panicked(t *testing.T, connect Connect) {
	for _, inline := range []bool{false, true} {
		c := connect(t, panicking{}, &searchfetch.Options{Inline: inline})
		for _, call := range BenchCalls {
			a := c.Call(t, call.Tool, call.Args)
			e := RequireToolError(t, a, mcpid.CodeResourceError)
			assert.Equal(t, "the source failed the request", e.Message(), "%s, inline %v", call.Tool, inline)
			assert.NotContains(t, a.Texts[0], `"retryable"`)
			assert.NotContains(t, a.Texts[0], "nil map")
			assert.NotContains(t, a.Texts[0], "out of range")
		}
	}
}
