package mcpgo

import (
	"context"
	"crypto/rand"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpid/mcpid/internal/httpserve"
	"github.com/mcpid/mcpid/searchfetch"
)

// HTTPOptions bounds what the clients of a [NewHTTPHandler] can hold of
// the server, and says who they are. The zero value of a field is its
// default; nil options are all the defaults. gosdk.HTTPOptions has the
// same fields with the same meaning.
type HTTPOptions struct {
	// MaxSessions bounds the MCP sessions open at once. A request that
	// would open another while this many are open closes one of this
	// handler's to make room: the session idle longest (whose last
	// request ended first) of those without a request (a POST) in
	// flight, so that a flood of initialize requests costs the sessions
	// it displaces a new initialize, not the service. An open event
	// stream (a GET) does not protect a session, and ends with it. With
	// Verify, the session closed is the one idle longest of the UserID
	// holding the most sessions, so that one user's flood closes that
	// user's own. Only while every session has a request in flight is a
	// request that would open one answered 503, with a JSON-RPC error and
	// a Retry-After header. The bound counts the sessions mcp-go opened
	// (registered with the server), whatever headers the requests
	// carried: an initialize opens a session even when it carries an
	// Mcp-Session-Id, and is counted. It holds under concurrent requests.
	// With Stateless, where a session lives only as long as its request,
	// it bounds the requests served at once, and closes none. 0 means
	// 1,000; a negative value, no bound.
	MaxSessions int
	// SessionIdle ends a session that has had no request for this long,
	// with everything it holds (mcp-go's WithSessionIdleTTL, which checks
	// every half of it and at most once a second). 0 means 10 minutes; a
	// negative value, never.
	SessionIdle time.Duration
	// MaxBody bounds a request body in bytes: a longer one is answered
	// 413 before mcp-go, which reads bodies whole and unbounded, sees it.
	// 0 means 1 MiB, far beyond any tool's arguments; a negative value, no
	// bound (never on a network).
	MaxBody int64
	// Stateless keeps no session between requests, as protocol version
	// 2026-07-28 has it: each request is served whole by itself, so
	// replicas behind a load balancer without affinity serve one
	// conversation, a search answered by one replica and the fetch of its
	// ids by another. Sealed ids (searchfetch.Options.Sealer) then need
	// the same key on every replica, nothing more. GET and DELETE are
	// answered 405.
	Stateless bool
	// Verify, when set, authenticates every request before mcp-go sees
	// it: an error (or a panic, or a Caller whose Expiration has passed)
	// is answered 401 with a WWW-Authenticate header, and the caller it
	// returns goes into the request's context, which the tool calls
	// inherit, where [searchfetch.CallerFrom] finds it and
	// searchfetch.Options.Authorize can check it. A session serves only
	// the caller (by UserID) that opened it: a request of another on it
	// is answered 403, as the go-sdk does. mcp-go has no verified token
	// type of its own. A Caller without a UserID is a bug of the
	// server's, since a session belongs to its caller's UserID: every
	// such request is answered 500, without a challenge, and logged at
	// Error by slog's default logger.
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

// NewHTTPHandler returns the MCP streamable HTTP endpoint of s, bounded
// for a network by opts (nil for the defaults; see [HTTPOptions]). Mount
// it at the endpoint's path:
//
//	mux.Handle("/mcp", mcpgo.NewHTTPHandler(s, nil))
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
// mcp-go runs, so ReadTimeout never ends an answer that outlasts it.
//
// To count sessions, the handler adds session hooks to s (creating its
// [server.Hooks] if it has none): call it before s serves anything. The
// sessions it counts are every session registered with s, on any
// transport. Its session ids are random and known only to this handler:
// a request naming another is answered 404. With SessionIdle, mcp-go
// sweeps idle sessions from a goroutine that lives as long as the
// process.
func NewHTTPHandler(s *server.MCPServer, opts *HTTPOptions) http.Handler {
	cfg := httpserve.Resolve((*httpserve.Options)(opts))
	h := &httpHandler{cfg: cfg}
	if cfg.Stateless {
		h.slots = httpserve.NewSlots(cfg.MaxSessions)
		h.sdk = server.NewStreamableHTTPServer(s, server.WithStateLess(true), server.WithDisableStreaming(true))
		return h
	}
	h.ids = &sessionIDs{max: cfg.MaxSessions, pending: map[string]string{}, others: map[string]bool{}, terminate: h.terminate}
	hooks := s.GetHooks()
	if hooks == nil {
		hooks = &server.Hooks{}
		server.WithHooks(hooks)(s)
	}
	hooks.AddOnRegisterSession(func(_ context.Context, cs server.ClientSession) { h.ids.registered(cs.SessionID()) })
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) { h.ids.unregistered(cs.SessionID()) })
	sopts := []server.StreamableHTTPOption{server.WithSessionIdManagerResolver(h.ids)}
	if cfg.SessionIdle > 0 {
		sopts = append(sopts, server.WithSessionIdleTTL(cfg.SessionIdle))
	}
	h.sdk = server.NewStreamableHTTPServer(s, sopts...)
	return h
}

// httpHandler is the handler of NewHTTPHandler.
type httpHandler struct {
	cfg   httpserve.Config
	sdk   *server.StreamableHTTPServer
	slots *httpserve.Slots // with Stateless: the requests in flight
	ids   *sessionIDs      // without Stateless
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r, ok := h.cfg.Admit(w, r)
	if !ok {
		return
	}
	if h.cfg.Stateless {
		h.serveStateless(w, r)
		return
	}
	if id := r.Header.Get(server.HeaderKeySessionID); id != "" && !h.ids.owns(id, user(r)) {
		// As the go-sdk does: a session serves the caller that opened it.
		http.Error(w, "session user mismatch", http.StatusForbidden)
		return
	}
	id := r.Header.Get(server.HeaderKeySessionID)
	switch r.Method {
	case http.MethodGet, http.MethodDelete:
		// mcp-go opens a session for a GET that names none, or names one
		// it does not know, and a DELETE ends whatever session it names:
		// both must name a session of this handler.
		if !h.ids.live(id) {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		if r.Method == http.MethodGet {
			// The stream ends when its session is closed to make room.
			ctx, stop, _ := h.ids.sessions.Stream(r.Context(), id)
			defer stop()
			r = r.WithContext(ctx)
		}
		h.sdk.ServeHTTP(w, r)
		return
	}
	if id != "" && h.ids.sessions.Begin(id) {
		// A request in flight protects its session from being closed to
		// make room. A session the table does not hold is mcp-go's to
		// answer: 404, or a new session for an initialize.
		defer h.ids.sessions.End(id)
	}
	t := &ticket{user: user(r)}
	r = r.WithContext(context.WithValue(r.Context(), ticketKey{}, t))
	h.sdk.ServeHTTP(&ticketWriter{ResponseWriter: w, t: t, dropped: http.Header{}}, r)
	h.ids.done(t)
	if t.refused.Load() {
		httpserve.TooManySessions(w)
	}
}

// serveStateless serves r within the bound on requests in flight.
func (h *httpHandler) serveStateless(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		w.Header().Set("Allow", "POST")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	if r.Header.Get(server.HeaderKeySessionID) != "" {
		// Stateless, mcp-go would still serve a request on the session
		// it names, if one is registered (a stdio session, say).
		r = r.Clone(r.Context())
		r.Header.Del(server.HeaderKeySessionID)
	}
	if r.Method == http.MethodPost {
		if !h.slots.Acquire() {
			httpserve.TooManySessions(w)
			return
		}
		defer h.slots.Release()
	}
	h.sdk.ServeHTTP(w, r)
}

// A ticket is what one request did to the session count: the session id
// mcp-go generated for it, and whether it was refused one.
type ticket struct {
	id      string // guarded by sessionIDs.mu
	user    string // the UserID of the request's verified caller
	refused atomic.Bool
}

// user returns the UserID of r's verified caller; "" without one.
func user(r *http.Request) string {
	c, _ := searchfetch.CallerFrom(r.Context())
	return c.UserID
}

// ticketKey is the context key of a request's ticket.
type ticketKey struct{}

// sessionIDs generates, validates and counts the session ids of one
// handler. mcp-go asks it for an id exactly when it opens a session for a
// POST (an initialize, whatever headers it carries), so the bound is
// checked there, against the sessions registered, the ids generated for
// requests still running and the sessions being closed, and a session is
// closed there to make room; the session hooks tell it when a session is
// registered and when it ends.
type sessionIDs struct {
	max       int
	terminate func(id string) // ends the session id in mcp-go, hooks and all

	// sessions holds the registered sessions of the ids this handler
	// generated, with who opened each and its use, from which one is
	// picked to close. Its lock is taken after mu, never before.
	sessions httpserve.Sessions

	mu sync.Mutex
	// pending holds the ids this handler generated whose session is not
	// yet registered, while the request that generated the id runs, with
	// the UserID of the caller that opened it.
	pending map[string]string
	// others holds the sessions registered with the server that this
	// handler did not generate, such as a stdio session: they count
	// towards the bound, but requests cannot name them.
	others map[string]bool
	// closing counts the sessions being closed to make room: still
	// registered with mcp-go, and no longer in sessions.
	closing int
}

// ResolveSessionIdManager returns the id manager of r: one that takes its
// place in the bound for r's ticket. mcp-go's idle sweeper asks without a
// request, only to terminate ids.
func (s *sessionIDs) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	var t *ticket
	if r != nil {
		t, _ = r.Context().Value(ticketKey{}).(*ticket)
	}
	return idManager{s: s, t: t}
}

// owner returns the UserID of the caller that opened the session id, and
// reports whether id names a live session of this handler.
func (s *sessionIDs) owner(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if user, ok := s.pending[id]; ok {
		return user, true
	}
	return s.sessions.Owner(id)
}

// live reports whether id names a live session of this handler.
func (s *sessionIDs) live(id string) bool {
	_, ok := s.owner(id)
	return ok
}

// owns reports whether the session id, if it is one of this handler's,
// was opened by the caller user.
func (s *sessionIDs) owns(id, user string) bool {
	o, ok := s.owner(id)
	return !ok || o == user
}

// generate returns a new id for t's request, closing a session to make
// room when the bound is reached, or "" and marks t refused when every
// session has a request in flight.
func (s *sessionIDs) generate(t *ticket) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t == nil || t.id != "" {
		if t != nil {
			t.refused.Store(true)
		}
		return ""
	}
	for s.max > 0 && len(s.pending)+s.sessions.Len()+len(s.others)+s.closing >= s.max {
		id, ok := s.sessions.Evict()
		if !ok {
			t.refused.Store(true)
			return ""
		}
		// The session counts as closing until mcp-go has unregistered
		// it, which its hook tells under mu.
		s.closing++
		s.mu.Unlock()
		s.terminate(id)
		s.mu.Lock()
		s.closing--
	}
	t.id = idPrefix + rand.Text()
	s.pending[t.id] = t.user
	return t.id
}

// idPrefix starts every session id, as mcp-go's own do.
const idPrefix = "mcp-session-"

// done ends t's request: an id generated for it whose session was never
// registered is forgotten, and a session it opened is no longer in use.
func (s *sessionIDs) done(t *ticket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.id == "" {
		return
	}
	if _, ok := s.pending[t.id]; ok {
		delete(s.pending, t.id)
		return
	}
	s.sessions.End(t.id)
}

// registered counts the session id that mcp-go registered: one of this
// handler's enters the table of sessions, in use by the request that
// opened it until that request is done.
func (s *sessionIDs) registered(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if user, ok := s.pending[id]; ok {
		delete(s.pending, id)
		s.sessions.Open(id, user)
		return
	}
	s.others[id] = true
}

// unregistered forgets the session id whose session ended.
func (s *sessionIDs) unregistered(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, id)
	delete(s.others, id)
	s.sessions.Forget(id)
}

// terminate ends the session id as a client's DELETE does, through
// mcp-go's own handler, so that it unregisters the session and drops
// everything it holds for it.
func (h *httpHandler) terminate(id string) {
	r, _ := http.NewRequestWithContext(context.Background(), http.MethodDelete, "/", nil) // a fixed URL: no error
	r.Header.Set(server.HeaderKeySessionID, id)
	h.sdk.ServeHTTP(discard{}, r)
}

// discard is a response writer that keeps nothing.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}

// idManager is the server.SessionIdManager of one request.
type idManager struct {
	s *sessionIDs
	t *ticket
}

func (m idManager) Generate() string { return m.s.generate(m.t) }

func (m idManager) Validate(id string) (isTerminated bool, err error) {
	if !m.s.live(id) {
		return false, errNoSession
	}
	return false, nil
}

// Terminate ends nothing itself: mcp-go unregisters the session next,
// which the hooks see.
func (m idManager) Terminate(string) (isNotAllowed bool, err error) { return false, nil }

// errNoSession is the answer to a request that names no live session;
// mcp-go answers it 404 without this text.
var errNoSession = sessionError("session not found")

type sessionError string

func (e sessionError) Error() string { return string(e) }

// ticketWriter is the response writer of a POST: once mcp-go was refused a
// session for it, what mcp-go writes is dropped, and the handler answers
// 503 instead.
type ticketWriter struct {
	http.ResponseWriter
	t       *ticket
	dropped http.Header
}

func (w *ticketWriter) Header() http.Header {
	if w.t.refused.Load() {
		return w.dropped
	}
	return w.ResponseWriter.Header()
}

func (w *ticketWriter) WriteHeader(code int) {
	if !w.t.refused.Load() {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *ticketWriter) Write(p []byte) (int, error) {
	if w.t.refused.Load() {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Flush flushes an event stream as it goes, as mcp-go expects of a
// writer that can stream.
func (w *ticketWriter) Flush() {
	if !w.t.refused.Load() {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *ticketWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
