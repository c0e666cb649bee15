package bearer

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Verifier holds the tokens of one tokens file, and checks requests
// against them. [Verifier.Reload] replaces them at once, for every
// request after it, and keeps them when the file has become bad.
type Verifier struct {
	path   string
	logger *slog.Logger
	table  atomic.Pointer[Table]
}

// Open reads the tokens file at path (see [Load]) and returns its
// Verifier, which tells logger of refused requests (at Warn) and of
// reloads; nil logs nothing.
func Open(path string, logger *slog.Logger) (*Verifier, error) {
	t, err := Load(path)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	v := &Verifier{path: path, logger: logger}
	v.table.Store(t)
	return v, nil
}

// Tokens returns the tokens v holds now.
func (v *Verifier) Tokens() *Table { return v.table.Load() }

// Reload reads the tokens file again. A good file replaces the tokens at
// once, logged at Info with how many tokens and users it holds; a bad one
// (unreadable, malformed, readable by others) keeps the tokens v held,
// logged at Error with the file's error, which names the line and never a
// token. It returns that error.
func (v *Verifier) Reload() error {
	t, err := Load(v.path)
	if err != nil {
		v.logger.Error("auth tokens not reloaded: the previous tokens stay in force", "err", err)
		return err
	}
	v.table.Store(t)
	v.logger.Info("auth tokens reloaded", "file", v.path, "tokens", t.Len(), "users", t.Users())
	return nil
}

// ReloadOnSIGHUP has v reload its file (see [Verifier.Reload]) each time
// the process gets SIGHUP, until ctx is done. SIGHUP is caught from
// before it returns, so that it never ends the process (its default).
func (v *Verifier) ReloadOnSIGHUP(ctx context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-hup:
				_ = v.Reload()
			case <-ctx.Done():
				return
			}
		}
	}()
}

// verifiedKey is the context key under which Require hands the request's
// auth.TokenInfo to the go-sdk's middleware.
type verifiedKey struct{}

// refusal is the body of a refused request: it says that a token is
// needed, and not whether one was sent, nor which.
const refusal = `{"error":"unauthorized","message":"this endpoint needs a known bearer token: Authorization: Bearer TOKEN"}` + "\n"

// Require returns next behind v's tokens. A request whose Authorization
// header is not "Bearer TOKEN" with a token v holds is answered 401, with
// "WWW-Authenticate: Bearer" and a JSON body that says no more, and
// logged at Warn (method, path, remote address; never the header). A
// request with a known token goes on through the go-sdk's
// auth.RequireBearerToken, which puts its auth.TokenInfo, whose UserID is
// the token's user, in the request's context: the SDK's streamable
// handler then refuses a session used by another user than the one that
// opened it, and gives each MCP request that TokenInfo (req.Extra). Any
// handler that must be called by the tokens' users alone (the MCP
// endpoint, /metrics) is wrapped with it.
func (v *Verifier) Require(next http.Handler) http.Handler {
	// The token is checked once, here; the SDK's middleware is handed
	// what this check found, so that a reload between two checks cannot
	// make them disagree.
	sdk := auth.RequireBearerToken(func(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
		if ti, ok := r.Context().Value(verifiedKey{}).(*auth.TokenInfo); ok {
			return ti, nil
		}
		return nil, auth.ErrInvalidToken
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, why := v.check(r)
		if why != "" {
			v.logger.Warn("request refused: no known bearer token", "reason", why,
				"method", r.Method, "path", r.URL.Path, "remote", r.RemoteAddr)
			h := w.Header()
			h.Set("WWW-Authenticate", "Bearer")
			h.Set("Content-Type", "application/json")
			h.Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(refusal))
			return
		}
		ctx := context.WithValue(r.Context(), verifiedKey{}, &auth.TokenInfo{UserID: user})
		sdk.ServeHTTP(w, r.WithContext(ctx))
	})
}

// check returns the user of r's bearer token, or why r has none: no
// Authorization header, one that is not "Bearer TOKEN" (split as the
// go-sdk splits it), or a token v does not hold.
func (v *Verifier) check(r *http.Request) (user, why string) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", "missing"
	}
	fields := strings.Fields(h)
	if len(fields) != 2 || !strings.EqualFold(fields[0], "bearer") {
		return "", "malformed"
	}
	user, ok := v.table.Load().Lookup(fields[1])
	if !ok {
		return "", "unknown"
	}
	return user, ""
}
