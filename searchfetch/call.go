package searchfetch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpid/mcpid"
)

// outcome is what a backend call returned.
type outcome[T any] struct {
	val T
	err error
}

// callBackend runs f, a method of the backend, on arg, with ctx bounded by
// the timeout, and recovers a panic as an error. By default f runs inline,
// on the caller's goroutine (the SDK's, one per call): a backend that
// ignores ctx holds the call until it returns. With Options.Isolate, f runs
// on a goroutine of its own and the call ends at the deadline whatever f
// does; the goroutine ends when f does. Errors that the model sees only as
// a generic envelope are logged here, with their own message.
//
// f is a method expression (Backend.Search, Backend.Fetch) rather than a
// closure over arg, so that the inline path allocates nothing of its own.
func callBackend[A, T any](ctx context.Context, t *Tools, tool string, f func(Backend, context.Context, A) (T, error), arg A) (T, error) {
	ctx, cancel := t.bound(ctx)
	if cancel != nil {
		defer cancel()
	}
	var o outcome[T]
	if t.opts.Isolate {
		o = isolated(ctx, t.backend, f, arg)
	} else {
		o = inline(ctx, t.backend, f, arg)
	}
	if o.err == nil {
		return o.val, nil
	}
	if me := (*mcpid.Error)(nil); errors.As(o.err, &me) && me == nil {
		o.err = errNilError // its Error method would panic
	}
	if env := envelope(o.err); env == errUnavailable || env == errTimeout {
		t.opts.Logger.ErrorContext(ctx, "searchfetch: backend failed", "tool", tool, "error", o.err)
	}
	var zero T
	return zero, o.err
}

// bound returns ctx bounded by the timeout, and the function that releases
// the bound's timer. When ctx needs no bound of its own, because there is
// no timeout or because ctx's own deadline comes no later, it returns ctx
// itself and a nil function: the backend sees the same deadline either
// way, and the call saves a context and a timer.
func (t *Tools) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if t.opts.Timeout < 0 {
		return ctx, nil
	}
	deadline := time.Now().Add(t.opts.Timeout)
	if d, ok := ctx.Deadline(); ok && !d.After(deadline) {
		return ctx, nil
	}
	return context.WithDeadline(ctx, deadline)
}

// inline runs f on this goroutine, recovering a panic as an error.
func inline[A, T any](ctx context.Context, b Backend, f func(Backend, context.Context, A) (T, error), arg A) (o outcome[T]) {
	defer func() {
		if p := recover(); p != nil {
			o = outcome[T]{err: panicked(p)}
		}
	}()
	v, err := f(b, ctx, arg)
	return outcome[T]{v, err}
}

// isolated runs f on a goroutine of its own, recovering a panic as an
// error, and returns when f does or ctx is done, whichever comes first.
func isolated[A, T any](ctx context.Context, b Backend, f func(Backend, context.Context, A) (T, error), arg A) outcome[T] {
	done := make(chan outcome[T], 1) // buffered: a late answer never blocks
	go func() { done <- inline(ctx, b, f, arg) }()
	select {
	case o := <-done:
		return o
	case <-ctx.Done():
		return outcome[T]{err: ctx.Err()}
	}
}

// panicked returns the error of a backend that panicked with p.
func panicked(p any) error { return fmt.Errorf("searchfetch: backend panicked: %v", p) }

// errNilError stands for a nil *mcpid.Error that a backend returned as a
// non-nil error.
var errNilError = errors.New("searchfetch: backend returned a nil *mcpid.Error as its error")
