// Package httpserve holds what the gosdk and mcpgo HTTP handlers share:
// the defaults of their options, the verification of a request's caller,
// the bounded read of its body, and the answers they give before an SDK
// sees a request, and the table of sessions ([Sessions]) that picks the
// session to close when the bound is reached. Each SDK's handler counts
// its own sessions for the bound, since each SDK opens sessions its own
// way.
package httpserve

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
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

// Options are the options of the adapters' NewHTTPHandler, as a caller
// gives them: gosdk.HTTPOptions and mcpgo.HTTPOptions have these fields,
// in this order, and each handler converts its options to Options, so a
// field added to one type and not to the others stops the build. The
// field docs are on the adapters' types.
type Options struct {
	MaxSessions int
	SessionIdle time.Duration
	MaxBody     int64
	Stateless   bool
	Verify      func(*http.Request) (searchfetch.Caller, error)
	// ResourceMetadataURL and Scopes, when set, are named by every 401's
	// challenge (see [Config.Unauthorized]).
	ResourceMetadataURL string
	Scopes              []string
}

// Config is a handler's Options with the defaults applied: a bound of 0
// is none.
type Config Options

// Resolve returns the Config of o (nil for the defaults): a zero value is
// its default, a negative one no bound.
func Resolve(o *Options) Config {
	var c Config
	if o != nil {
		c = Config(*o)
	}
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
// Expiration has passed), 500 for a caller it accepts without a UserID
// ([NoUserID]), 413 for a body over the bound, 400 for a body that
// cannot be read.
func (c Config) Admit(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if c.Verify != nil {
		caller, err := verify(c.Verify, r)
		if err == nil && !caller.Expiration.IsZero() && !caller.Expiration.After(time.Now()) {
			err = errExpired
		}
		if err != nil {
			c.Unauthorized(w, r)
			return nil, false
		}
		if caller.UserID == "" {
			NoUserID(w, r, "the HTTP handler's Verify")
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

// Unauthorized answers 401 with a WWW-Authenticate challenge (RFC 6750,
// section 3): a Bearer challenge that names an invalid token when r
// carries credentials, and no error when it carries none; with
// c.ResourceMetadataURL, the challenge names it as resource_metadata (RFC
// 9728, section 5.1), from which an MCP client discovers its
// authorization server, and, with c.Scopes, the scopes to ask for. The
// body says no more, so that a verifier's reasons never reach the client.
func (c Config) Unauthorized(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("WWW-Authenticate", c.challenge(r.Header.Get("Authorization") != ""))
	http.Error(w, "unauthorized", http.StatusUnauthorized)
}

// challenge returns the Bearer challenge of a 401, for a request that
// carried credentials when invalid is set.
func (c Config) challenge(invalid bool) string {
	var params []string
	if invalid {
		params = append(params, `error="invalid_token"`)
	}
	if c.ResourceMetadataURL != "" {
		params = append(params, "resource_metadata="+quoteParam(c.ResourceMetadataURL))
	}
	if len(c.Scopes) > 0 {
		params = append(params, "scope="+quoteParam(strings.Join(c.Scopes, " ")))
	}
	if len(params) == 0 {
		return "Bearer"
	}
	return "Bearer " + strings.Join(params, ", ")
}

// quoteParam returns s as an HTTP quoted-string (RFC 9110, section
// 5.6.4): '"' and '\' escaped with '\'. A byte that a quoted-string
// cannot hold (a control byte) or that a header should not (a byte
// beyond ASCII) is written percent-encoded, as a URL writes it, so that
// the header stays valid whatever the server configured.
func quoteParam(s string) string {
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 && c != '\t', c >= 0x7f:
			b = append(b, '%', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}

// NoUserID answers 500, with no WWW-Authenticate header, a request whose
// verifier (by) accepted it without a UserID, and logs it at Error with
// slog's default logger. A session belongs to its caller's UserID: an
// empty one would let any other caller without one use it. The fault is
// the server's code, not the client's credentials, so a 401 would send a
// client with a good token into signing in again forever.
func NoUserID(w http.ResponseWriter, r *http.Request, by string) {
	slog.Default().ErrorContext(r.Context(), "mcpid: a verified caller has no UserID; the request is refused with 500 until the server's verifier gives one",
		"verifier", by, "method", r.Method, "path", r.URL.Path)
	http.Error(w, "internal server error", http.StatusInternalServerError)
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
