package gateway

import (
	"context"
	"flag"
	"log/slog"
	"net/http"

	"github.com/mcpid/mcpid/cmd/mcpid-gateway/internal/bearer"
	"github.com/mcpid/mcpid/internal/serve"
)

// Who may call the gateway over HTTP. Every caller acts with the
// downstreams' credentials (the -header values sent to remote servers,
// the environment given to stdio ones), so a listener that another
// machine can reach needs inbound authentication: -auth-tokens FILE, or
// an explicit -insecure-no-auth. A loopback listener needs neither, and
// applies -auth-tokens when it is given.

// inboundAuth is the -auth-tokens and -insecure-no-auth flags.
type inboundAuth struct {
	tokens   string // -auth-tokens: the tokens file; "" for none
	insecure bool   // -insecure-no-auth
}

// register defines the flags on fs.
func (a *inboundAuth) register(fs *flag.FlagSet) {
	fs.StringVar(&a.tokens, "auth-tokens", "", "with -http, let in only requests with a bearer token this `FILE` holds (lines of USER TOKEN; read again on SIGHUP); needed, or -insecure-no-auth, on a non-loopback address")
	fs.BoolVar(&a.insecure, "insecure-no-auth", false, "with -http on a non-loopback address, serve anyone who reaches it, with the downstreams' credentials")
}

// check returns a usage error for flags that contradict each other or
// the mode, and for a non-loopback -http address without either flag.
func (a inboundAuth) check(fs *flag.FlagSet, m serve.Mode) error {
	if (a.tokens != "" || a.insecure) && m.HTTP == "" {
		return serve.Usage(fs, "-auth-tokens and -insecure-no-auth need -http")
	}
	if a.tokens != "" && a.insecure {
		return serve.Usage(fs, "-auth-tokens and -insecure-no-auth are exclusive")
	}
	if m.HTTP != "" && serve.CheckLoopback(m.HTTP) != nil && a.tokens == "" && !a.insecure {
		return serve.Usage(fs, "-http %q listens beyond this machine, and every caller acts with the downstreams' credentials: "+
			"give -auth-tokens FILE (who may call), or -insecure-no-auth (anyone who reaches the port)", m.HTTP)
	}
	return nil
}

// open returns the verifier of -auth-tokens, reloaded on SIGHUP until ctx
// is done, or nil when the flag is not given; it warns of a non-loopback
// listener served without authentication.
func (a inboundAuth) open(ctx context.Context, addr string, logger *slog.Logger) (*bearer.Verifier, error) {
	if a.tokens == "" {
		if a.insecure && serve.CheckLoopback(addr) != nil {
			logger.Warn("serving without authentication (-insecure-no-auth): anyone who reaches this address calls the downstreams with their credentials", "addr", addr)
		}
		return nil, nil
	}
	v, err := bearer.Open(a.tokens, logger)
	if err != nil {
		return nil, err
	}
	v.ReloadOnSIGHUP(ctx)
	t := v.Tokens()
	logger.Info("auth tokens loaded", "file", a.tokens, "tokens", t.Len(), "users", t.Users())
	return v, nil
}

// behindTokens returns the -http listener's handler h behind v: every request
// needs a token of v's (see bearer.Verifier.Require) but those of
// /healthz and /readyz, which a load balancer's checks send without one,
// and which tell nothing secret. So whatever the listener serves (the MCP
// endpoint, /metrics) is behind the tokens, unless named here. With v
// nil, h is served as it is.
func behindTokens(v *bearer.Verifier, h http.Handler) http.Handler {
	if v == nil {
		return h
	}
	protected := v.Require(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz", "/readyz":
			h.ServeHTTP(w, r)
		default:
			protected.ServeHTTP(w, r)
		}
	})
}
