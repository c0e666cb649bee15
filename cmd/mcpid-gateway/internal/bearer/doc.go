// Package bearer is who may call the gateway over HTTP: bearer tokens,
// each mapped to a user id, read from a file (see [Parse] for its
// format), compared in constant time, and replaced at once by [Verifier.Reload]
// (on SIGHUP) when the file changes, or kept when the new file is bad.
//
// [Verifier.Require] is the middleware that refuses a request without a
// known token (401, WWW-Authenticate: Bearer) and hands the request on
// through the go-sdk's own auth.RequireBearerToken, so that the SDK
// carries the user: it refuses a session used by another user than the
// one that opened it, and gives each request's handler the token's
// auth.TokenInfo (its UserID), which the relay's "same verified user"
// rules read.
package bearer
