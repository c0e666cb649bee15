// Package httpserve holds what the gosdk and mcpgo HTTP handlers share:
// the defaults of their options, the verification of a request's caller,
// the bounded read of its body, and the answers they give before an SDK
// sees a request. Each SDK's handler keeps its own session accounting,
// since each SDK opens sessions its own way.
package httpserve

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/mcpid/mcpid/searchfetch"
)

// The defaults of the handlers' options: what an option left zero means.
const (
	// DefaultMaxSessions bounds the sessions open at once.
	DefaultMaxSessions = 1000
	// DefaultSessionIdle ends a session after this long without a request.
	DefaultSessionIdle = 10 * time.Minute
	// DefaultMaxBody bounds a request body. Tool arguments are an id, a
	// query or a small object: a MiB is far beyond any.
	DefaultMaxBody = 1 << 20
)

// Config is a handler's options with the defaults applied: a bound of 0
// is none.
type Config struct {
	MaxSessions int
	SessionIdle time.Duration
	MaxBody     int64
	Stateless   bool
	Verify      func(*http.Request) (searchfetch.Caller, error)
}

// Resolve returns the Config of the options' values: a zero value is its
// default, a negative one no bound.
func Resolve(maxSessions int, idle time.Duration, maxBody int64, stateless bool, verify func(*http.Request) (searchfetch.Caller, error)) Config {
	c := Config{MaxSessions: maxSessions, SessionIdle: idle, MaxBody: maxBody, Stateless: stateless, Verify: verify}
	switch {
	case c.MaxSessions == 0:
		c.MaxSessions = DefaultMaxSessions
	case c.MaxSessions < 0:
		c.MaxSessions = 0
	}
	switch {
	case c.SessionIdle == 0:
		c.SessionIdle = DefaultSessionIdle
	case c.SessionIdle < 0:
		c.SessionIdle = 0
	}
	switch {
	case c.MaxBody == 0:
		c.MaxBody = DefaultMaxBody
	case c.MaxBody < 0:
		c.MaxBody = 0
	}
	return c
}

// Admit checks r before any SDK sees it: its caller, with c.Verify, and
// its body, read whole within c.MaxBody. It returns the request to serve,
// whose context carries the verified [searchfetch.Caller] and whose body
// is the one read, or false once it has answered the request itself: 401
// for a caller Verify refuses (an error, a panic, or a Caller whose
// Expiration has passed), 413 for a body over the bound, 400 for a
// body that cannot be read.
func (c Config) Admit(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if c.Verify != nil {
		caller, err := verify(c.Verify, r)
		if err == nil && !caller.Expiration.IsZero() && !caller.Expiration.After(time.Now()) {
			err = errExpired
		}
		if err != nil {
			Unauthorized(w, r)
			return nil, false
		}
		r = r.WithContext(searchfetch.WithCaller(r.Context(), caller))
	}
	if r.Body == nil || r.Body == http.NoBody {
		return r, true
	}
	if c.MaxBody > 0 && r.ContentLength > c.MaxBody {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	body := r.Body
	if c.MaxBody > 0 {
		body = http.MaxBytesReader(w, body, c.MaxBody)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return nil, false
		}
		http.Error(w, "cannot read the request body", http.StatusBadRequest)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	return r, true
}

// verify calls fn on r; a panic is a refusal, as an error is.
func verify(fn func(*http.Request) (searchfetch.Caller, error), r *http.Request) (c searchfetch.Caller, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = searchfetch.Caller{}, errVerifyPanic
		}
	}()
	return fn(r)
}

// The refusals that Admit makes of a verified caller.
var (
	errVerifyPanic = errors.New("the verifier panicked")
	errExpired     = errors.New("the caller's credentials have expired")
)

// Unauthorized answers 401 with a WWW-Authenticate challenge: a plain
// Bearer challenge when r carries no credentials, and one naming an
// invalid token when it does (RFC 6750, section 3). The body says no
// more, so that a verifier's reasons never reach the client.
func Unauthorized(w http.ResponseWriter, r *http.Request) {
	challenge := "Bearer"
	if r.Header.Get("Authorization") != "" {
		challenge = `Bearer error="invalid_token"`
	}
	w.Header().Set("WWW-Authenticate", challenge)
	http.Error(w, "unauthorized", http.StatusUnauthorized)
}

// TooManySessions answers 503 with a JSON-RPC error and a Retry-After
// header: the request would open a session while the bound is reached.
// The error has no id, since the request is refused whole.
func TooManySessions(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "10")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = io.WriteString(w, tooManySessions)
}

const tooManySessions = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"the server has too many open sessions; retry later"}}` + "\n"

// Slots bounds a count of things held at once, such as the requests a
// stateless handler serves: Acquire takes one unless max are held.
type Slots struct {
	ch chan struct{}
}

// NewSlots returns slots for max holders; max 0 means no bound.
func NewSlots(max int) *Slots {
	if max <= 0 {
		return &Slots{}
	}
	return &Slots{ch: make(chan struct{}, max)}
}

// Acquire takes a slot and reports whether it could.
func (s *Slots) Acquire() bool {
	if s.ch == nil {
		return true
	}
	select {
	case s.ch <- struct{}{}:
		return true
	default:
		return false
	}
}

// Release gives back a slot taken by Acquire.
func (s *Slots) Release() {
	if s.ch != nil {
		<-s.ch
	}
}
