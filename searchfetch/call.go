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

// callBackend runs f, a backend call, with ctx bounded by the timeout. f runs
// on its own goroutine, so that a panic is recovered (as an error) and a
// backend that ignores ctx cannot hold the call past the deadline; the
// goroutine ends when f does. Errors that the model sees only as a generic
// envelope are logged here, with their own message.
func callBackend[T any](ctx context.Context, t *Tools, tool string, f func(context.Context) (T, error)) (T, error) {
	if t.opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.opts.Timeout)
		defer cancel()
	}
	done := make(chan outcome[T], 1) // buffered: a late answer never blocks
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- outcome[T]{err: fmt.Errorf("searchfetch: backend panicked: %v", p)}
			}
		}()
		v, err := f(ctx)
		done <- outcome[T]{v, err}
	}()
	var o outcome[T]
	select {
	case o = <-done:
	case <-ctx.Done():
		o.err = ctx.Err()
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

// errNilError stands for a nil *mcpid.Error that a backend returned as a
// non-nil error.
var errNilError = errors.New("searchfetch: backend returned a nil *mcpid.Error as its error")
