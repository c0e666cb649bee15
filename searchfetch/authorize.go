package searchfetch

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mcpid/mcpid"
)

// Access is what [Options.Authorize] is asked to allow: that the caller of
// Tool read ConnectionID, the real connection (never an alias; "" for an
// unscoped fetch or hits that name none).
type Access struct {
	Tool         string
	ConnectionID string
	// ID and Handle are a fetch's id as given and the handle it resolved
	// to (its connection perhaps an alias); zero for a search.
	ID     string
	Handle mcpid.Handle
}

// errForbidden is the answer to a fetch the authorizer denied: the same
// whether or not the record exists. Its hint is mcpid's, which the tools
// give in their own names.
var errForbidden = &mcpid.Error{Code: mcpid.CodeForbidden, Offset: -1}

// authorize asks Options.Authorize whether the caller in ctx may have a,
// bounded as a backend call is. It returns nil when it may; errForbidden
// when the authorizer denies it with an error that is no *mcpid.Error or
// panics; the authorizer's *mcpid.Error as it is; and, when the authorizer
// does not answer within the timeout, context.DeadlineExceeded, which the
// model sees as resource_unavailable. Without an authorizer, everything is
// allowed.
func (t *Tools) authorize(ctx context.Context, a Access) error {
	if t.opts.Authorize == nil {
		return nil
	}
	_, err := runBackend(ctx, t, a.Tool, authorizerMethod, authorization{t.opts.Authorize, a, t.logger()})
	return err
}

// denied reports whether err, an error of authorize, denies the access
// rather than failing to decide it.
func denied(err error) bool {
	return errors.Is(err, mcpid.ErrForbidden)
}

// authorization is one call of an authorizer, in the form runBackend
// runs.
type authorization struct {
	authorize func(context.Context, Access) error
	access    Access
	logger    *slog.Logger
}

// authorizerMethod runs the authorization a, with the signature of a backend
// method, so that runBackend bounds it as it bounds the backend.
func authorizerMethod(_ Backend, ctx context.Context, a authorization) (struct{}, error) {
	return struct{}{}, a.run(ctx)
}

// run calls the authorizer and turns its answer into authorize's.
func (a authorization) run(ctx context.Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			a.logger.ErrorContext(ctx, "searchfetch: authorizer panicked; access denied",
				"tool", a.access.Tool, "connection_id", a.access.ConnectionID, "panic", p)
			err = errForbidden
		}
	}()
	err = a.authorize(ctx, a.access)
	var me *mcpid.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &me) && me != nil:
		return err
	case ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded):
		return err
	}
	a.logger.DebugContext(ctx, "searchfetch: access denied",
		"tool", a.access.Tool, "connection_id", a.access.ConnectionID, "error", err)
	return errForbidden
}
