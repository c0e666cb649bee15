package searchfetch

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpid/mcpid"
)

// outcome is what a backend call returned.
type outcome[T any] struct {
	val T
	err error
}

// callBackend runs f, a backend call, with ctx bounded by the timeout, and
// recovers a panic as an error. By default f runs inline, on the caller's
// goroutine (the SDK's, one per call): a backend that ignores ctx holds
// the call until it returns. With Options.Isolate, f runs on a goroutine
// of its own and the call ends at the deadline whatever f does; the
// goroutine ends when f does. Errors that the model sees only as a generic
// envelope are logged here, with their own message.
func callBackend[T any](ctx context.Context, t *Tools, tool string, f func(context.Context) (T, error)) (T, error) {
	if t.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.opts.Timeout)
		defer cancel()
	}
	var o outcome[T]
	if t.opts.Isolate {
		o = isolated(ctx, f)
	} else {
		o = inline(ctx, f)
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

// inline runs f on this goroutine, recovering a panic as an error.
func inline[T any](ctx context.Context, f func(context.Context) (T, error)) (o outcome[T]) {
	defer func() {
		if p := recover(); p != nil {
			o = outcome[T]{err: panicked(p)}
		}
	}()
	v, err := f(ctx)
	return outcome[T]{v, err}
}

// isolated runs f on a goroutine of its own, recovering a panic as an
// error, and returns when f does or ctx is done, whichever comes first.
func isolated[T any](ctx context.Context, f func(context.Context) (T, error)) outcome[T] {
	done := make(chan outcome[T], 1) // buffered: a late answer never blocks
	go func() { done <- inline(ctx, f) }()
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
