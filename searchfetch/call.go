package searchfetch

import (
	"context"
	"errors"

	"github.com/mcpid/mcpid"
)

// outcome is what a backend call returned.
type outcome[T any] struct {
	val T
	err error
}

// callBackend runs f, a backend call, with ctx bounded by the timeout, and
// returns its value or an *mcpid.Error fit for the model. f runs on its own
// goroutine, so that a panic is recovered and a backend that ignores ctx
// cannot hold the call past the deadline; the goroutine ends when f does.
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
				t.opts.Logger.ErrorContext(ctx, "searchfetch: backend panicked", "tool", tool, "panic", p)
				var zero T
				done <- outcome[T]{zero, errUnavailable}
			}
		}()
		v, err := f(ctx)
		done <- outcome[T]{v, err}
	}()
	var zero T
	select {
	case o := <-done:
		if o.err != nil {
			return zero, t.modelError(ctx, tool, o.err)
		}
		return o.val, nil
	case <-ctx.Done():
		return zero, t.modelError(ctx, tool, ctx.Err())
	}
}

// modelError returns the error the model sees for a failed backend call:
// an *mcpid.Error as it is, a timeout as errTimeout, anything else as
// errUnavailable. Only the last two are logged; their message stays here.
func (t *Tools) modelError(ctx context.Context, tool string, err error) error {
	var me *mcpid.Error
	if errors.As(err, &me) && me != nil {
		return me
	}
	t.opts.Logger.ErrorContext(ctx, "searchfetch: backend failed", "tool", tool, "error", err)
	if errors.Is(err, context.DeadlineExceeded) {
		return errTimeout
	}
	return errUnavailable
}
