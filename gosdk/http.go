package gosdk

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpid/mcpid/internal/httpserve"
	"github.com/mcpid/mcpid/searchfetch"
)

// HTTPOptions bounds what the clients of a [NewHTTPHandler] can hold of
// the server, and says who they are. The zero value of a field is its
// default; nil options are all the defaults. mcpgo.HTTPOptions has the
// same fields with the same meaning.
type HTTPOptions struct {
	// MaxSessions bounds the MCP sessions open at once. A request that
	// would open another while this many are open closes one to make
	// room: the session idle longest (whose last request ended first) of
	// those without a request (a POST) in flight, so that a flood of
	// initialize requests costs the sessions it displaces a new
	// initialize, not the service. An open event stream (a GET) does not
	// protect a session, and ends with it. With Verify (or behind the
	// go-sdk's bearer-token middleware), the session closed is the one
	// idle longest of the UserID holding the most sessions, so that one
	// user's flood closes that user's own. Only while every session has a
	// request in flight is a request that would open one answered 503,
	// with a JSON-RPC error and a Retry-After header, and the SDK never
	// sees it. The bound counts the sessions the SDK opened, whatever
	// headers the requests carried, and holds under concurrent requests:
	// one that may open a session holds a place until it ends. With
	// Stateless, where a session lives only as long as its request, it
	// bounds the requests served at once, and closes none. 0 means 1,000;
	// a negative value, no bound.
	MaxSessions int
	// SessionIdle ends a session that has had no request for this long,
	// with everything it holds: a client that opens sessions and walks
	// away would otherwise keep each one until the process ends. 0 means
	// 10 minutes; a negative value, never.
	SessionIdle time.Duration
	// MaxBody bounds a request body in bytes: a longer one is answered
	// 413 before the SDK sees it, whether its length is declared or it
	// comes chunked. 0 means 1 MiB, far beyond any tool's arguments; a
	// negative value, no bound (never on a network).
	MaxBody int64
	// Stateless keeps no session between requests, as protocol version
	// 2026-07-28 has it: each request is served whole by itself, so
	// replicas behind a load balancer without affinity serve one
	// conversation, a search answered by one replica and the fetch of its
	// ids by another. Sealed ids (searchfetch.Options.Sealer) then need
	// the same key on every replica, nothing more. Server-to-client
	// requests and the GET stream are not available.
	Stateless bool
	// Verify, when set, authenticates every request before the SDK sees
	// it: an error (or a panic, or a Caller whose Expiration has passed)
	// is answered 401 with a WWW-Authenticate header, and the caller it
	// returns reaches the tools' context, where [searchfetch.CallerFrom]
	// finds it and searchfetch.Options.Authorize can check it. On this
	// SDK the caller travels as the go-sdk's [auth.TokenInfo], so the
	// SDK also binds each session to the caller's UserID. A server that
	// already wraps the handler in the go-sdk's [auth.RequireBearerToken]
	// needs no Verify: the tools see its TokenInfo as their caller.
	// A Caller (or that middleware's TokenInfo) without a UserID is a bug
	// of the server's, since a session belongs to its caller's UserID:
	// every such request is answered 500, without a challenge, and
	// logged at Error by slog's default logger.
	Verify func(*http.Request) (searchfetch.Caller, error)
	// ResourceMetadataURL, when set, is the URL of the server's OAuth
	// protected-resource metadata document (RFC 9728), which names the
	// authorization servers its tokens come from: every 401 names it in
	// WWW-Authenticate, as resource_metadata="…", so that an MCP client
	// can discover where to sign in. Serve the document too (the
	// README shows how).
	ResourceMetadataURL string
	// Scopes, when set, are the scopes a client should ask for: every 401
	// names them in WWW-Authenticate, as scope="…".
	Scopes []string
}

// NewHTTPHandler returns the MCP streamable HTTP endpoint of server,
// bounded for a network by opts (nil for the defaults; see
// [HTTPOptions]). Mount it at the endpoint's path:
//
//	mux.Handle("/mcp", gosdk.NewHTTPHandler(server, nil))
//
// The handler bounds what a request can hold once it is read; reading it
// is the http.Server's to bound. Serve it with at least:
//
//	&http.Server{
//		Handler:           mux,
//		ReadHeaderTimeout: 5 * time.Second,  // a client that sends its headers slowly
//		ReadTimeout:       30 * time.Second, // the whole request, body included
//		IdleTimeout:       2 * time.Minute,  // a kept-alive connection with no request
//		MaxHeaderBytes:    64 << 10,
//	}
//
// and no WriteTimeout: an event stream lasts as long as its session, and
// a write deadline would cut it. The handler reads each body whole before
// the SDK runs, so ReadTimeout never ends an answer that outlasts it.
func NewHTTPHandler(server *mcp.Server, opts *HTTPOptions) http.Handler {
	cfg := httpserve.Resolve((*httpserve.Options)(opts))
	maxBody := cfg.MaxBody
	if maxBody == 0 {
		maxBody = -1 // no bound: the SDK's own default would set one
	}
	var sdk http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:           cfg.Stateless,
		SessionTimeout:      cfg.SessionIdle,
		MaxRequestBodyBytes: maxBody,
	})
	if cfg.Verify != nil {
		sdk = withTokenInfo(sdk)
	}
	h := &httpHandler{cfg: cfg, server: server, sdk: sdk}
	switch {
	case cfg.Stateless:
		h.slots = httpserve.NewSlots(cfg.MaxSessions)
	case cfg.MaxSessions > 0:
		h.sessions = new(httpserve.Sessions)
	}
	return h
}

// httpHandler is the handler of NewHTTPHandler.
type httpHandler struct {
	cfg    httpserve.Config
	server *mcp.Server
	sdk    http.Handler
	slots  *httpserve.Slots // with Stateless: the requests in flight
	// sessions, with a bound and without Stateless, holds the sessions
	// the handler opened, of which it closes one at the bound.
	sessions *httpserve.Sessions

	mu sync.Mutex
	// opening counts the requests in flight that may open a session and
	// have not yet answered with one: the session they open is
	// initialized, and so counted by sessions, before they answer, so the
	// two together never miss one.
	opening int
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil && ti.UserID == "" {
		// The go-sdk binds a session to its TokenInfo's UserID only when
		// there is one: any caller could use a session opened without.
		httpserve.NoUserID(w, r, "the go-sdk's RequireBearerToken")
		return
	}
	r, ok := h.cfg.Admit(w, r)
	if !ok {
		return
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" && h.sessions != nil {
		h.serveSession(w, r, id)
		return
	}
	if !h.mayOpen(r) || (h.sessions != nil && !initializes(r)) {
		h.sdk.ServeHTTP(w, r)
		return
	}
	if !h.reserve() {
		httpserve.TooManySessions(w)
		return
	}
	if h.sessions == nil {
		defer h.release()
		h.sdk.ServeHTTP(w, r)
		return
	}
	ow := &openingWriter{ResponseWriter: w, sessions: h.sessions, user: userOf(r), opened: h.release}
	defer func() {
		if ow.id == "" {
			h.release()
			return
		}
		h.sessions.End(ow.id)
	}()
	h.sdk.ServeHTTP(ow, r)
}

// serveSession serves r, a request on the session id, for the table of
// sessions: a POST protects the session while it is served, and a GET's
// event stream ends when the table closes the session. A session the
// table does not hold (never opened here, or closed to make room) is
// answered 404, and one of another user 403, as the SDK answers them.
func (h *httpHandler) serveSession(w http.ResponseWriter, r *http.Request, id string) {
	owner, ok := h.sessions.Owner(id)
	switch {
	case !ok:
		http.Error(w, "session not found", http.StatusNotFound)
		return
	case owner != "" && owner != userOf(r):
		http.Error(w, "session user mismatch", http.StatusForbidden)
		return
	}
	switch r.Method {
	case http.MethodPost:
		if !h.sessions.Begin(id) {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		defer h.sessions.End(id)
	case http.MethodGet:
		ctx, stop, ok := h.sessions.Stream(r.Context(), id)
		if !ok {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		defer stop()
		r = r.WithContext(ctx)
	}
	h.sdk.ServeHTTP(w, r)
}

// userOf returns the UserID that the SDK binds a session of r to: its
// TokenInfo's, which Verify's caller becomes; "" without one.
func userOf(r *http.Request) string {
	if c, ok := searchfetch.CallerFrom(r.Context()); ok {
		return c.UserID
	}
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}

// openingWriter is the response writer of a request that may open a
// session: the SDK names the session it opened, initialized, in the
// response's headers, and the writer records it in the table before they
// reach the client, so that no request can name a session the table
// misses. From then on the server counts the session, and the request
// gives back its place (opened).
type openingWriter struct {
	http.ResponseWriter
	sessions *httpserve.Sessions
	user     string
	opened   func()
	id       string // the session recorded; "" for none
	written  bool
}

// record records the session the response names, once.
func (w *openingWriter) record() {
	if w.written {
		return
	}
	w.written = true
	if id := w.Header().Get("Mcp-Session-Id"); id != "" {
		w.id = id
		w.sessions.Open(id, w.user)
		w.opened()
	}
}

func (w *openingWriter) WriteHeader(code int) {
	w.record()
	w.ResponseWriter.WriteHeader(code)
}

func (w *openingWriter) Write(p []byte) (int, error) {
	w.record()
	return w.ResponseWriter.Write(p)
}

// Flush records the session before the headers go out, as the first
// write does, and flushes: the SDK flushes an event stream as it goes.
func (w *openingWriter) Flush() {
	w.record()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *openingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// mayOpen reports whether the SDK may open a session for r: with
// Stateless, every POST is served by a session of its own; otherwise a
// POST without a session id opens one (a request naming a session the
// SDK does not hold is answered 404, and GET and DELETE never open one).
func (h *httpHandler) mayOpen(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	return h.cfg.Stateless || r.Header.Get("Mcp-Session-Id") == ""
}

// initializes reports whether r, a POST whose body is read whole, may
// initialize a session: an initialize request as the SDK decodes it, or
// a batch, which may hold one. Any other request without a session (a
// 2026-07-28 client's server/discover, say) is served by a session that
// the SDK closes when the request ends, uninitialized: it neither counts
// towards the bound nor closes a session to make room.
func initializes(r *http.Request) bool {
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return true
	}
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
		return true
	}
	msg, err := jsonrpc.DecodeMessage(body)
	req, ok := msg.(*jsonrpc.Request)
	return err == nil && ok && req.Method == "initialize"
}

// reserve takes a place for a request that may open a session, and
// reports whether there was one.
func (h *httpHandler) reserve() bool {
	if h.cfg.MaxSessions <= 0 {
		return true
	}
	if h.slots != nil {
		return h.slots.Acquire()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sessions.Len() >= h.cfg.MaxSessions {
		h.keepLive() // only sessions the SDK ended make the table this long
	}
	for h.opening+sessions(h.server) >= h.cfg.MaxSessions {
		if !h.evict() {
			return false
		}
	}
	h.opening++
	return true
}

// evict closes the session that the table picks to make room, and
// reports whether there was one: every session of the table may have a
// request in flight. A closed session is gone from the server when Close
// returns.
func (h *httpHandler) evict() bool {
	h.keepLive()
	id, ok := h.sessions.Evict()
	if !ok {
		return false
	}
	for ss := range h.server.Sessions() {
		if ss.ID() == id {
			_ = ss.Close()
		}
	}
	return true
}

// release gives back the place of reserve.
func (h *httpHandler) release() {
	if h.cfg.MaxSessions <= 0 {
		return
	}
	if h.slots != nil {
		h.slots.Release()
		return
	}
	h.mu.Lock()
	h.opening--
	h.mu.Unlock()
}

// keepLive makes the table forget the sessions the SDK ended itself
// (idle, deleted, or never initialized), which the go-sdk tells no one.
func (h *httpHandler) keepLive() {
	h.sessions.Keep(func(yield func(string) bool) {
		for ss := range h.server.Sessions() {
			if !yield(ss.ID()) {
				return
			}
		}
	})
}

// sessions returns the number of initialized sessions server holds now.
// A session whose initialize failed, or that was opened for a request
// that was no initialize (such as a 2026-07-28 request to a stateful
// server), is closed by the SDK when its request ends, but the server may
// still list it for a moment: it holds nothing by then, and counting it
// would refuse a client that probes before it initializes. The sessions
// still initializing are counted by their requests (opening).
func sessions(server *mcp.Server) int {
	n := 0
	for ss := range server.Sessions() {
		if ss.InitializeParams() != nil {
			n++
		}
	}
	return n
}

// withTokenInfo returns sdk behind the go-sdk's bearer-token middleware,
// whose verifier hands on the caller that Verify put into the request's
// context: the middleware is the one way to give the SDK a TokenInfo,
// which it passes to each tool call ([mcp.RequestExtra]). A request that
// Verify accepted without a bearer token (a scheme of the server's own)
// is shown to the middleware with a placeholder one.
func withTokenInfo(sdk http.Handler) http.Handler {
	bearer := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		c, ok := searchfetch.CallerFrom(ctx)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: c.UserID, Scopes: c.Scopes, Expiration: c.Expiration, Extra: c.Extra}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(sdk)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hasBearer(r.Header) {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer verified")
		}
		bearer.ServeHTTP(w, r)
	})
}

// hasBearer reports whether h carries a bearer token in the form the
// go-sdk's middleware reads.
func hasBearer(h http.Header) bool {
	f := strings.Fields(h.Get("Authorization"))
	return len(f) == 2 && strings.EqualFold(f[0], "bearer")
}

// callerOf returns the caller that ti describes.
func callerOf(ti *auth.TokenInfo) searchfetch.Caller {
	return searchfetch.Caller{UserID: ti.UserID, Scopes: ti.Scopes, Expiration: ti.Expiration, Extra: ti.Extra}
}
