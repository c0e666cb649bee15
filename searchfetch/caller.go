package searchfetch

import (
	"context"
	"time"
)

// Caller is the verified identity of the client making a call, as the
// transport's authentication established it. The adapters put it into
// the context of every tool call ([WithCaller]), so that
// [Options.Authorize] and the backend can check what the caller may read.
// Over stdio there is no caller: the process is the user.
type Caller struct {
	// UserID names the caller, as the authorization server does.
	UserID string
	// Scopes are the scopes the caller's token grants.
	Scopes []string
	// Expiration is when the caller's token expires; zero if unknown.
	Expiration time.Time
	// Extra holds whatever else the verifier learned of the caller.
	Extra map[string]any
}

// callerKey is the context key of the [Caller].
type callerKey struct{}

// WithCaller returns a copy of ctx that carries c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the [Caller] that ctx carries, and reports whether it
// carries one.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
