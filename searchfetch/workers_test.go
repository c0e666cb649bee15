package searchfetch

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
)

// blocked is a Backend whose Fetch ignores its context: it counts itself on
// entered, unless that is nil, and waits for release.
type blocked struct {
	entered chan struct{}
	release chan struct{}
}

func (b blocked) Search(context.Context, Query) (SearchResult, error) {
	return SearchResult{}, errors.New("not searched")
}

func (b blocked) Fetch(context.Context, FetchRequest) (Document, error) {
	if b.entered != nil {
		b.entered <- struct{}{}
	}
	<-b.release
	return Document{Title: "late"}, nil
}

// TestHungCalls: calls whose backend ignores its context and never returns
// each retire their worker, so the pool keeps serving other calls; past
// maxHung of them the tools answer at once without calling the backend,
// and once the backend returns, the retired workers end and the tools call
// it again.
func TestHungCalls(t *testing.T) {
	const maxHung = 3
	p := &pool{idle: make(chan *worker, 1)}
	b := blocked{entered: make(chan struct{}, maxHung+1), release: make(chan struct{})}
	stuck := New(b, &Options{Timeout: time.Millisecond})
	stuck.pool, stuck.maxHung = p, maxHung
	healthy := New(blocked{release: closed()}, nil)
	healthy.pool = p
	fetch := func(tools *Tools) Result {
		return tools.Fetch(context.Background(), json.RawMessage(`{"id":"c1/orders:o1"}`))
	}

	for i := range maxHung {
		res := fetch(stuck)
		<-b.entered
		require.True(t, res.IsError, res.Text)
		assert.ErrorIs(t, res.Err, context.DeadlineExceeded)
		assert.Equal(t, int64(i+1), stuck.hung.Load(), "hung calls")
		assert.Equal(t, int64(i+1), p.live.Load(), "workers: one retired per hung call")
		assert.Empty(t, p.idle, "idle workers")
	}

	res := fetch(stuck)
	require.True(t, res.IsError, res.Text)
	assert.Equal(t, errHung, res.Err, "refused while maxHung calls hang")
	assert.Empty(t, b.entered, "the backend was not called")
	assert.Equal(t, int64(maxHung), p.live.Load(), "no worker started")

	res = fetch(healthy)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, int64(maxHung+1), p.live.Load(), "a new worker for a healthy call")
	assert.Len(t, p.idle, 1, "idle after its call")
	res = fetch(healthy)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, int64(maxHung+1), p.live.Load(), "the idle worker reused")

	close(b.release)
	require.Eventually(t, func() bool { return stuck.hung.Load() == 0 && p.live.Load() == 1 },
		10*time.Second, time.Millisecond, "the retired workers end when their calls return")
	stuck.opts.Timeout = DefaultTimeout // b answers at once now
	res = fetch(stuck)
	require.False(t, res.IsError, res.Text)
	<-b.entered
	assert.Equal(t, int64(1), p.live.Load(), "the idle worker reused")
}

// TestIdleWorkersBounded: a worker that finds the idle workers full ends.
func TestIdleWorkersBounded(t *testing.T) {
	p := &pool{idle: make(chan *worker)} // no room for an idle worker
	tools := New(blocked{release: closed()}, nil)
	tools.pool = p
	res := tools.Fetch(context.Background(), json.RawMessage(`{"id":"c1/orders:o1"}`))
	require.False(t, res.IsError, res.Text)
	require.Eventually(t, func() bool { return p.live.Load() == 0 }, 10*time.Second, time.Millisecond, "the worker ends")
}

// closed returns a closed channel.
func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// BenchmarkBound measures what bounds a backend call that may ignore its
// context, beside running it inline: a pooled worker (the default) and a
// goroutine, channel and select of its own per call (as a tool written by
// hand would, and as Options.Isolate did before the pool). Each call gets
// a context with the timeout's deadline, as runBackend gives it.
func BenchmarkBound(b *testing.B) {
	resolved, err := mcpid.ResolveFetch("c1/orders:o1", "")
	req := FetchRequest{FetchRequest: resolved}
	require.NoError(b, err)
	backend := blocked{release: closed()}
	pooled := New(backend, nil)
	inline := New(backend, &Options{Inline: true})
	own := func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
		done := make(chan outcome[Document], 1)
		go func() { done <- inline1(ctx, backend, req) }()
		select {
		case o := <-done:
			return o.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, c := range []struct {
		name string
		call func(context.Context) error
	}{
		{"inline", func(ctx context.Context) error {
			_, err := runBackend(ctx, inline, FetchName, Backend.Fetch, req)
			return err
		}},
		{"pooled", func(ctx context.Context) error {
			_, err := runBackend(ctx, pooled, FetchName, Backend.Fetch, req)
			return err
		}},
		{"goroutine", own},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.call(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// inline1 is inline for a fetch.
func inline1(ctx context.Context, b Backend, req FetchRequest) outcome[Document] {
	return inline(ctx, b, Backend.Fetch, req)
}
