package searchfetch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpid/mcpid"
	"github.com/mcpid/mcpid/searchfetch"
)

// failing is a Backend whose both methods behave as do says.
type failing struct {
	do func(ctx context.Context) error
}

func (f failing) Search(ctx context.Context, _ searchfetch.Query) (searchfetch.SearchResult, error) {
	return searchfetch.SearchResult{}, f.do(ctx)
}

func (f failing) Fetch(ctx context.Context, _ searchfetch.FetchRequest) (searchfetch.Document, error) {
	return searchfetch.Document{}, f.do(ctx)
}

// secret is a backend's internal message that must never reach the model.
const secret = "dial tcp 10.0.0.7:5432: password authentication failed for user admin"

// TestBackendFailures: what the model sees when the backend fails, for both
// tools, on a pooled worker (the default) and inline; the backend's own
// words stay in Result.Err and the log.
func TestBackendFailures(t *testing.T) {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) }) // ends the workers of the hanging backend
	var typedNil *mcpid.Error
	tests := []struct {
		name   string
		do     func(ctx context.Context) error
		code   mcpid.Code
		logged bool
		hangs  bool // answers only when the timeout has passed, or never
		// inline runs the backend on the caller's goroutine, where only
		// a backend that honours its context is bounded.
		inline bool
	}{
		{"ambiguous", func(context.Context) error { return mcpid.AmbiguousConnection([]string{"c1", "c2"}) }, mcpid.CodeAmbiguousConnection, false, false, false},
		{"wrapped not_found", func(context.Context) error {
			return fmt.Errorf("reading: %w", mcpid.NewError(mcpid.CodeNotFound, "no such record", "search again"))
		}, mcpid.CodeNotFound, false, false, false},
		{"internal", func(context.Context) error { return errors.New(secret) }, mcpid.CodeResourceUnavailable, true, false, false},
		{"typed nil", func(context.Context) error { return typedNil }, mcpid.CodeResourceUnavailable, true, false, false},
		{"panic", func(context.Context) error { panic(secret) }, mcpid.CodeResourceUnavailable, true, false, false},
		{"hang ignoring ctx", func(context.Context) error { <-block; return nil }, mcpid.CodeResourceUnavailable, true, true, false},
		{"own deadline", func(ctx context.Context) error {
			<-ctx.Done()
			return fmt.Errorf("%s: %w", secret, ctx.Err())
		}, mcpid.CodeResourceUnavailable, true, true, false},
		{"internal, inline", func(context.Context) error { return errors.New(secret) }, mcpid.CodeResourceUnavailable, true, false, true},
		{"panic, inline", func(context.Context) error { panic(secret) }, mcpid.CodeResourceUnavailable, true, false, true},
		{"own deadline, inline", func(ctx context.Context) error {
			<-ctx.Done()
			return fmt.Errorf("%s: %w", secret, ctx.Err())
		}, mcpid.CodeResourceUnavailable, true, true, true},
	}
	for _, tt := range tests {
		for _, tool := range []string{searchfetch.SearchName, searchfetch.FetchName} {
			t.Run(tt.name+"/"+tool, func(t *testing.T) {
				var log bytes.Buffer
				// Only the backends that never answer get a short timeout:
				// the others must be judged on what they return, however
				// loaded the machine.
				timeout := time.Duration(0) // DefaultTimeout
				if tt.hangs {
					timeout = 20 * time.Millisecond
				}
				tools := searchfetch.New(failing{tt.do}, &searchfetch.Options{
					Timeout: timeout,
					Inline:  tt.inline,
					Logger:  slog.New(slog.NewTextHandler(&log, nil)),
				})
				call, args := tools.Search, raw(`{"query":"q"}`)
				if tool == searchfetch.FetchName {
					call, args = tools.Fetch, raw(`{"id":"orders:o1"}`)
				}
				res := call(context.Background(), args)
				requireError(t, res, tt.code)
				assert.NotContains(t, res.Text, "10.0.0.7")
				assert.NotContains(t, string(res.StructuredContent), "10.0.0.7")
				if tt.logged {
					assert.Contains(t, log.String(), "tool="+tool)
				} else {
					assert.Empty(t, log.String())
				}
			})
		}
	}
}

// stuck is a Backend that ignores its context: each call sends its context
// on entered, then waits for release and answers with a document, or hits
// of it.
type stuck struct {
	entered chan context.Context
	release chan struct{}
}

func newStuck() stuck {
	return stuck{entered: make(chan context.Context, 1), release: make(chan struct{})}
}

func (s stuck) Search(ctx context.Context, _ searchfetch.Query) (searchfetch.SearchResult, error) {
	s.entered <- ctx
	<-s.release
	return searchfetch.SearchResult{Hits: []mcpid.Hit{{ID: "orders:o1", ConnectionID: "c1", Title: "late"}}}, nil
}

func (s stuck) Fetch(ctx context.Context, _ searchfetch.FetchRequest) (searchfetch.Document, error) {
	s.entered <- ctx
	<-s.release
	return searchfetch.Document{Title: "late"}, nil
}

// TestTimeoutIgnored: a backend that ignores its context is answered at the
// timeout, while it is still blocked, and its late answer is dropped; with
// Inline, or a negative Timeout, it holds the call until it returns, and its
// answer, late as it is, is the call's.
func TestTimeoutIgnored(t *testing.T) {
	for _, tool := range []string{searchfetch.SearchName, searchfetch.FetchName} {
		t.Run("pooled/"+tool, func(t *testing.T) {
			b := newStuck()
			defer close(b.release)
			tools := searchfetch.New(b, &searchfetch.Options{Timeout: time.Millisecond})
			res := toolOf(tools, tool)(context.Background())
			ctx := <-b.entered // the backend is in, and stays until release
			requireError(t, res, mcpid.CodeResourceUnavailable)
			assert.Contains(t, res.Text, `"retryable":true`)
			assert.ErrorIs(t, res.Err, context.DeadlineExceeded)
			assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded, "the backend's context ended at the timeout")
		})
		for _, opts := range []searchfetch.Options{{Timeout: time.Millisecond, Inline: true}, {Timeout: -1}} {
			t.Run(fmt.Sprintf("inline %v/%s", opts.Timeout, tool), func(t *testing.T) {
				b := newStuck()
				tools := searchfetch.New(b, &opts)
				done := make(chan searchfetch.Result, 1)
				go func() { done <- toolOf(tools, tool)(context.Background()) }()
				ctx := <-b.entered
				if opts.Timeout > 0 {
					<-ctx.Done() // the timeout has passed: the call is still held
				}
				select {
				case res := <-done:
					t.Fatalf("the call returned while the backend ran inline: %s", res.Text)
				default:
				}
				close(b.release)
				res := <-done
				require.False(t, res.IsError, res.Text)
				assert.Contains(t, res.Text, "late")
			})
		}
	}
}

// toolOf returns a call of the tool named tool with valid arguments.
func toolOf(tools *searchfetch.Tools, tool string) func(context.Context) searchfetch.Result {
	if tool == searchfetch.FetchName {
		return func(ctx context.Context) searchfetch.Result { return tools.Fetch(ctx, raw(`{"id":"c1/orders:o1"}`)) }
	}
	return func(ctx context.Context) searchfetch.Result { return tools.Search(ctx, raw(`{"query":"q"}`)) }
}

// TestTimeoutMessage: a backend that does not answer in time gets its own
// message, apart from other failures.
func TestTimeoutMessage(t *testing.T) {
	hang := failing{func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }}
	other := failing{func(context.Context) error { return errors.New(secret) }}
	// Only the hanging backend gets a short timeout: the failing one must
	// be judged on its error, however loaded the machine.
	timeout := searchfetch.New(hang, &searchfetch.Options{Timeout: time.Millisecond}).Fetch(context.Background(), raw(`{"id":"orders:o1"}`))
	failed := searchfetch.New(other, nil).Fetch(context.Background(), raw(`{"id":"orders:o1"}`))
	requireError(t, timeout, mcpid.CodeResourceUnavailable)
	requireError(t, failed, mcpid.CodeResourceUnavailable)
	assert.NotEqual(t, timeout.Text, failed.Text)
	assert.ErrorIs(t, timeout.Err, context.DeadlineExceeded)
	assert.EqualError(t, failed.Err, secret)
}

// ctxKey marks the request's context.
type ctxKey struct{}

// TestBackendContext: the backend gets the request's context, bounded by
// the timeout (DefaultTimeout when unset, none when negative) or by the
// request's own deadline, whichever comes first.
func TestBackendContext(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration
		request time.Duration // the request's own deadline; 0: none
		bounded time.Duration // 0: no deadline
	}{
		{"default", 0, 0, searchfetch.DefaultTimeout},
		{"set", time.Minute, 0, time.Minute},
		{"none", -1, 0, 0},
		{"request's first", time.Hour, time.Minute, time.Minute},
		{"timeout first", time.Minute, time.Hour, time.Minute},
		{"request's alone", -1, time.Minute, time.Minute},
	}
	for _, tt := range tests {
		for _, tool := range []string{searchfetch.SearchName, searchfetch.FetchName} {
			t.Run(tt.name+"/"+tool, func(t *testing.T) {
				b := &recorder{}
				tools := searchfetch.New(b, &searchfetch.Options{Timeout: tt.timeout})
				ctx := context.WithValue(context.Background(), ctxKey{}, "request")
				if tt.request != 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tt.request)
					defer cancel()
				}
				call, args := tools.Search, raw(`{"query":"q"}`)
				if tool == searchfetch.FetchName {
					call, args = tools.Fetch, raw(`{"id":"orders:o1"}`)
				}
				start := time.Now()
				require.False(t, call(ctx, args).IsError)
				require.Len(t, b.ctxs, 1)
				got := b.ctxs[0]
				assert.Equal(t, "request", got.Value(ctxKey{}))
				deadline, ok := got.Deadline()
				require.Equal(t, tt.bounded != 0, ok, "has a deadline")
				if ok {
					assert.WithinDuration(t, start.Add(tt.bounded), deadline, time.Minute/2)
				}
				if own, ok := ctx.Deadline(); ok && tt.request == tt.bounded {
					assert.Equal(t, own, deadline, "the request's own deadline")
				}
			})
		}
	}
}

// TestErrorResult: the helper the adapters give servers for their own
// tools.
func TestErrorResult(t *testing.T) {
	res := searchfetch.ErrorResult(mcpid.NewError(mcpid.CodeNotFound, "no such order", "list the orders first"))
	requireError(t, res, mcpid.CodeNotFound)
	res = searchfetch.ErrorResult(errors.New(secret))
	requireError(t, res, mcpid.CodeResourceUnavailable)
	assert.NotContains(t, res.Text, "10.0.0.7")
}

// TestBoundAllocs: a request whose own deadline comes first gets no
// context or timer of the tools' own: a fetch allocates no more than with
// no timeout at all, while the tools' own bound costs its context and
// timer. Running the backend on a pooled worker, the default, costs one
// allocation, the task the worker runs.
func TestBoundAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool, and so encoding/json, allocate at random")
	}
	b := &recorder{}
	args := raw(`{"id":"orders:o1"}`)
	allocs := func(opts *searchfetch.Options, ctx context.Context) float64 {
		tools := searchfetch.New(b, opts)
		return testing.AllocsPerRun(100, func() {
			b.ctxs, b.requests = b.ctxs[:0], b.requests[:0]
			if res := tools.Fetch(ctx, args); res.IsError {
				t.Fatal(res.Text)
			}
		})
	}
	soon, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	unbounded := allocs(&searchfetch.Options{Timeout: -1}, context.Background())
	assert.Equal(t, unbounded, allocs(&searchfetch.Options{Timeout: time.Hour, Inline: true}, soon), "the request's deadline first")
	assert.Equal(t, unbounded+1, allocs(&searchfetch.Options{Timeout: time.Hour}, soon), "a pooled worker")
	assert.Greater(t, allocs(&searchfetch.Options{Timeout: time.Hour, Inline: true}, context.Background()), unbounded, "the tools' own bound")
}
