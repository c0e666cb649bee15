package searchfetch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
		{"internal", func(context.Context) error { return errors.New(secret) }, mcpid.CodeResourceError, true, false, false},
		{"typed nil", func(context.Context) error { return typedNil }, mcpid.CodeResourceError, true, false, false},
		{"panic", func(context.Context) error { panic(secret) }, mcpid.CodeResourceError, true, false, false},
		{"hang ignoring ctx", func(context.Context) error { <-block; return nil }, mcpid.CodeResourceUnavailable, true, true, false},
		{"own deadline", func(ctx context.Context) error {
			<-ctx.Done()
			return fmt.Errorf("%s: %w", secret, ctx.Err())
		}, mcpid.CodeResourceUnavailable, true, true, false},
		{"internal, inline", func(context.Context) error { return errors.New(secret) }, mcpid.CodeResourceError, true, false, true},
		{"panic, inline", func(context.Context) error { panic(secret) }, mcpid.CodeResourceError, true, false, true},
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
	requireError(t, failed, mcpid.CodeResourceError)
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
	requireError(t, res, mcpid.CodeResourceError)
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

// temporaryError is an error that says it is temporary, as a
// net.Error once did.
type temporaryError struct{}

func (temporaryError) Error() string   { return "connection reset by peer" }
func (temporaryError) Temporary() bool { return true }

// TestHonestErrors: a backend error that is no *mcpid.Error is
// resource_unavailable (retryable) only when it says the same call may
// succeed later (a deadline, a cancellation, a Timeout or Temporary method
// that reports true, anywhere in its chain), and otherwise resource_error,
// not retryable. Without Options.Logger the error itself goes to
// slog.Default at level Error, with the tool and the connection, and never
// to the model.
func TestHonestErrors(t *testing.T) {
	unauthorized := errors.New("grafana: GET https://staging.grafana.example/api/dashboards/uid/rYdddlPWk: 401 Unauthorized: invalid API key")
	dialTimeout := &url.Error{Op: "Get", URL: "https://staging.grafana.example/api/search",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}}
	tests := []struct {
		name      string
		err       error
		code      mcpid.Code
		message   string
		retryable bool
	}{
		{"upstream 401", unauthorized, mcpid.CodeResourceError, "the source failed the request", false},
		{"wrapped 401", fmt.Errorf("dashboard: %w", unauthorized), mcpid.CodeResourceError, "the source failed the request", false},
		{"DNS name not found", &net.DNSError{Err: "no such host", Name: "grafana.invalid", IsNotFound: true}, mcpid.CodeResourceError, "the source failed the request", false},
		{"net.Error timeout", dialTimeout, mcpid.CodeResourceUnavailable, "the source did not answer in time", true},
		{"temporary, wrapped", fmt.Errorf("search: %w", temporaryError{}), mcpid.CodeResourceUnavailable, "the source failed to answer", true},
		{"cancelled upstream", fmt.Errorf("search: %w", context.Canceled), mcpid.CodeResourceUnavailable, "the source failed to answer", true},
		{"a timeout among joined errors", errors.Join(unauthorized, dialTimeout), mcpid.CodeResourceUnavailable, "the source did not answer in time", true},
	}
	var logged bytes.Buffer
	setDefaultLogger(t, slog.New(slog.NewJSONHandler(&logged, nil)))
	for _, tt := range tests {
		for _, tool := range []string{searchfetch.SearchName, searchfetch.FetchName} {
			t.Run(tt.name+"/"+tool, func(t *testing.T) {
				logged.Reset()
				tools := searchfetch.New(failing{func(context.Context) error { return tt.err }}, nil)
				call, args := tools.Search, raw(`{"query":"q"}`)
				if tool == searchfetch.FetchName {
					call, args = tools.Fetch, raw(`{"id":"staging/dashboards:rYdddlPWk"}`)
				}
				res := call(context.Background(), args)
				e := requireError(t, res, tt.code)
				assert.Equal(t, tt.message, e.Message())
				assert.Equal(t, tt.retryable, strings.Contains(res.Text, `"retryable":true`), res.Text)
				assert.NotContains(t, res.Text, "401")
				assert.NotContains(t, res.Text, "grafana")
				assert.ErrorIs(t, res.Err, tt.err)

				var rec map[string]any
				require.NoError(t, json.Unmarshal(logged.Bytes(), &rec), "one record on slog.Default: %s", logged.String())
				want := map[string]any{"level": "ERROR", "msg": "searchfetch: backend failed", "tool": tool, "error": tt.err.Error()}
				if tool == searchfetch.FetchName {
					want["connection_id"] = "staging"
				}
				delete(rec, "time")
				if diff := cmp.Diff(want, rec); diff != "" {
					t.Errorf("log record (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// setDefaultLogger makes l slog's default logger until the test ends.
// slog.SetDefault also points package log at l, and setting the old
// default back does not undo that: log's output and flags are restored
// by hand. A test that calls it must not run in parallel.
func setDefaultLogger(t *testing.T, l *slog.Logger) {
	old, w, flags := slog.Default(), log.Writer(), log.Flags()
	slog.SetDefault(l)
	t.Cleanup(func() {
		slog.SetDefault(old)
		log.SetOutput(w)
		log.SetFlags(flags)
	})
}
