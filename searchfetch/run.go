package searchfetch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpid/mcpid"
)

// outcome is what a run of the backend (or the authorizer) returned.
type outcome[T any] struct {
	val T
	err error
}

// runBackend runs f, a method of the backend, on arg, with ctx bounded by
// the timeout, and recovers a panic as an error. By default f runs on one
// of the pooled workers (see [pool]) and the call ends at the deadline
// whatever f does: a backend that ignores ctx is answered at the timeout,
// its late answer dropped. With Options.Inline, or a negative Timeout, f
// runs inline, on the caller's goroutine (the SDK's, one per call): a
// backend that ignores ctx then holds the call until it returns. Errors
// that the model sees only as a generic envelope are logged here, with
// their own message.
//
// f is a method expression (Backend.Search, Backend.Fetch) rather than a
// closure over arg, so that the inline path allocates nothing of its own.
func runBackend[A, T any](ctx context.Context, t *Tools, tool string, f func(Backend, context.Context, A) (T, error), arg A) (T, error) {
	if rec := t.recordOf(ctx); rec != nil {
		_, authorizer := any(arg).(authorization)
		defer rec.timed(authorizer, time.Now())
	}
	ctx, cancel := t.bound(ctx)
	if cancel != nil {
		defer cancel()
	}
	var o outcome[T]
	if t.opts.Inline || t.opts.Timeout < 0 {
		o = inline(ctx, t.backend, f, arg)
	} else {
		o = pooled(ctx, t, f, arg)
	}
	if o.err == nil {
		return o.val, nil
	}
	if me := (*mcpid.Error)(nil); errors.As(o.err, &me) && me == nil {
		o.err = errNilError // its Error method would panic
	}
	if env := envelope(o.err); env == errUnavailable || env == errTimeout || env == errHung || env == errFailed {
		t.logFailure(ctx, tool, any(arg), o.err)
	}
	var zero T
	return zero, o.err
}

// logFailure logs, at level Error, err, the error of a backend (or an
// authorizer) call of tool on arg that the model sees only as a generic
// envelope: with the tool and, for a fetch or an authorization, the
// connection it named (the real one; "" for an unscoped fetch).
func (t *Tools) logFailure(ctx context.Context, tool string, arg any, err error) {
	msg, attrs := "searchfetch: backend failed", []any{"tool", tool}
	switch a := arg.(type) {
	case FetchRequest:
		attrs = append(attrs, "connection_id", a.ConnectionID)
	case authorization:
		msg, attrs = "searchfetch: authorizer failed", append(attrs, "connection_id", a.access.ConnectionID)
	}
	t.logger().ErrorContext(ctx, msg, append(attrs, "error", err)...)
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

// task is one backend call that a worker runs: inline's arguments, and
// its outcome once run.
type task[A, T any] struct {
	ctx context.Context
	b   Backend
	f   func(Backend, context.Context, A) (T, error)
	arg A
	out outcome[T]
}

func (c *task[A, T]) run() { c.out = inline(c.ctx, c.b, c.f, c.arg) }

// pooled runs f on a worker of the pool and returns its outcome, or
// ctx's error as soon as ctx is done, whichever comes first. The task is
// the call's one allocation; a late outcome stays in it and is dropped
// with it. While t has MaxHungCalls calls that outlived their deadline
// and still run, it answers errHung without calling f.
func pooled[A, T any](ctx context.Context, t *Tools, f func(Backend, context.Context, A) (T, error), arg A) outcome[T] {
	if t.hung.Load() >= t.maxHung {
		return outcome[T]{err: errHung}
	}
	c := &task[A, T]{ctx: ctx, b: t.backend, f: f, arg: arg}
	if err := t.pool.run(ctx, &t.hung, c); err != nil {
		return outcome[T]{err: err}
	}
	return c.out
}

// panicked returns the error of a backend that panicked with p.
func panicked(p any) error { return fmt.Errorf("searchfetch: backend panicked: %v", p) }

// errNilError stands for a nil *mcpid.Error that a backend returned as a
// non-nil error.
var errNilError = errors.New("searchfetch: backend returned a nil *mcpid.Error as its error")
