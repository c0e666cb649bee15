package searchfetch

import (
	"context"
	"time"
)

// Caller is the verified identity of a tool call's client, which the
// adapters put in its context ([WithCaller]); over stdio there is none.
type Caller struct {
	UserID     string         // as the authorization server names the caller
	Scopes     []string       // the scopes the caller's token grants
	Expiration time.Time      // when the token expires; zero if unknown
	Extra      map[string]any // whatever else the verifier learned
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
